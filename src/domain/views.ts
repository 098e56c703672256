// Views (reference §5.4): saved ways to look at a collection's items. Every collection has a default table view
// (all items, creation order), made the first time the collection's views are read, under a lock so concurrent
// first reads make one. The Tycho extension POST /v0/tycho/collections/{id}/views saves further views with a
// filter and a sort in the language of item search (checked by the same parser, so a view that saves is a
// search that runs). A view's items are that search, one keyset page at a time.
import { AppError, invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { findCollection, type Collection } from './collections.ts';
import { prepareQuery, prepareQueryFor, serveQuery, type ItemPage, type PreparedQuery, type SearchInput } from './item-reads.ts';
import { loadSchema } from './collection-schema.ts';
import type { ServedItem } from './item-wire.ts';
import { recordLock } from './locks.ts';
import type { Principal } from './api-keys.ts';
import type { PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';
import { longerThan } from './characters.ts';

export type ViewType = 'table' | 'board';
export const VIEW_TYPES: readonly ViewType[] = ['table', 'board'];

export interface View {
  id: string;
  orgId: string;
  collectionId: string;
  name: string;
  viewType: ViewType;
  /** The saved filter, as a search body's `filter`; null shows every item. */
  filter: unknown;
  /** The saved sort, as a search body's `sort`. */
  sort: string[];
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ViewInput {
  name: string;
  view_type?: ViewType;
  filter?: unknown;
  sort?: string[];
}

/** Views one collection may hold (the default one included): all of them are listed with the collection. */
export const MAX_VIEWS_PER_COLLECTION = 100;
const NAME_MAX = 255;

async function listOf(store: Store, orgId: string, collectionId: string): Promise<View[]> {
  return (await store.views.list(orgId, { limit: MAX_VIEWS_PER_COLLECTION }, { collectionId })).rows;
}

/** The collection's views, oldest first, the default view made first when it has none yet. */
export async function viewsOfCollection(store: Store, orgId: string, collection: Collection, clock?: Clock): Promise<View[]> {
  const views = await listOf(store, orgId, collection.id);
  if (views.some((v) => v.isDefault)) return views;
  return store.transaction(async (tx) => {
    await tx.lock([recordLock('views', collection.id)]);
    const again = await listOf(tx, orgId, collection.id);
    if (again.some((v) => v.isDefault)) return again;
    const now = timestamp(clock);
    const view: View = {
      id: newId(),
      orgId,
      collectionId: collection.id,
      name: `All ${collection.name}`,
      viewType: 'table',
      filter: null,
      sort: [],
      isDefault: true,
      createdAt: now,
      updatedAt: now,
    };
    await tx.views.insert(view);
    return [view, ...again];
  });
}

export async function getView(store: Store, orgId: string, id: string): Promise<View> {
  return orNotFound(store.views.find(orgId, id));
}

/** The view with its collection, for `include[]=collection`. */
export async function getViewWithCollection(store: Store, orgId: string, id: string): Promise<{ view: View; collection: Collection }> {
  const view = await getView(store, orgId, id);
  return { view, collection: await findCollection(store, orgId, view.collectionId) };
}

/**
 * The view's saved query, parsed against the collection's current fields. A condition or sort key that no
 * longer fits them (its field deleted since the view was saved, or changed so that it no longer parses) is left out
 * rather than failing the view for good: no API changes a view's filter or sort, so nothing could mend it.
 */
export async function prepareViewQuery(store: Store, orgId: string, id: string): Promise<{ view: View; prepared: PreparedQuery }> {
  const view = await getView(store, orgId, id);
  const schema = await loadSchema(store, orgId, view.collectionId);
  const prepare = (input: SearchInput) => prepareQueryFor(store, orgId, schema, input, (i) => ({ pointer: `/sort/${i}` }));
  const fits = (input: SearchInput) => prepare(input).then(() => true, (error: unknown) => (error instanceof AppError ? false : Promise.reject(error)));
  try {
    return { view, prepared: await prepare({ filter: view.filter, sort: view.sort }) };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
  }
  const sort: string[] = [];
  for (const key of view.sort) if (await fits({ sort: [key] })) sort.push(key);
  return { view, prepared: await prepare({ filter: await fittingFilter(view.filter, (leaf) => fits({ filter: leaf })), sort }) };
}

/**
 * `filter` without the conditions `fits` refuses; an `and`/`or` left with none, or a `not` of a condition left
 * out, goes too. Null when nothing is left (the view shows every item).
 */
async function fittingFilter(filter: unknown, fits: (leaf: unknown) => Promise<boolean>): Promise<unknown> {
  if (filter === null || typeof filter !== 'object') return null;
  const node = filter as { op?: unknown; filters?: unknown[]; filter?: unknown };
  if ((node.op === 'and' || node.op === 'or') && Array.isArray(node.filters)) {
    const kept = [];
    for (const child of node.filters) {
      const fitting = await fittingFilter(child, fits);
      if (fitting !== null) kept.push(fitting);
    }
    return kept.length === 0 ? null : { ...node, filters: kept };
  }
  if (node.op === 'not') {
    const inner = await fittingFilter(node.filter, fits);
    return inner === null ? null : { ...node, filter: inner };
  }
  return (await fits(filter)) ? filter : null;
}

export function viewItems(store: Store, orgId: string, prepared: PreparedQuery, page: PageRequest): Promise<ItemPage<ServedItem>> {
  return serveQuery(store, orgId, prepared, page);
}

/** Tycho extension: saves a view of the collection; the filter and sort are checked as a search would check them. */
export async function createView(store: Store, principal: Principal, collectionKey: string, input: ViewInput, clock?: Clock): Promise<View> {
  const name = input.name.trim();
  if (name.length === 0) throw invalidAt('/name', 'name must not be blank; send the view\'s display name');
  if (longerThan(name, NAME_MAX)) throw invalidAt('/name', `name must be at most ${NAME_MAX} characters`);
  const orgId = principal.orgId;
  return store.transaction(async (tx) => {
    await tx.lockSchema(orgId, 'shared');
    const prepared = await prepareQuery(tx, orgId, collectionKey, { filter: input.filter, sort: input.sort ?? [] }, (i) => ({ pointer: `/sort/${i}` }));
    const collection = prepared.schema.collection;
    await viewsOfCollection(tx, orgId, collection, clock);
    await tx.lock([recordLock('views', collection.id)]);
    if ((await listOf(tx, orgId, collection.id)).length >= MAX_VIEWS_PER_COLLECTION) {
      throw new AppError('invalid_state', `${collection.ref} already has ${MAX_VIEWS_PER_COLLECTION} views, the most a collection holds`);
    }
    const now = timestamp(clock);
    const view: View = {
      id: newId(),
      orgId,
      collectionId: collection.id,
      name,
      viewType: input.view_type ?? 'table',
      filter: input.filter ?? null,
      sort: input.sort ?? [],
      isDefault: false,
      createdAt: now,
      updatedAt: now,
    };
    await tx.views.insert(view);
    return view;
  });
}
