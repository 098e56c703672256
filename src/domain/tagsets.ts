// Tagsets: named groups of coloured tags, available on calls, on meetings and/or in given inboxes.
// `associations` (seed §2.5) is `[{"type": "calls"}, {"type": "meetings"}, {"type": "inbox", "id": "…"}]`.
import { invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { buildOptions, type OptionInput } from './field-params.ts';
import type { ChoiceOption } from './fields.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { LinkTarget, Store } from './ports/store.ts';
import { ASSOCIATION } from './associations.ts';
import { recordLock } from './locks.ts';
import { checkedName } from './characters.ts';

export type Tag = ChoiceOption;

export type TagsetAssociation = { type: 'calls' } | { type: 'meetings' } | { type: 'inbox'; id: string };

export interface Tagset {
  id: string;
  orgId: string;
  name: string;
  description: string | null;
  tags: Tag[];
  associations: TagsetAssociation[];
  createdAt: string;
  updatedAt: string;
}

export interface TagsetInput {
  name?: string;
  description?: string | null;
  tags?: OptionInput[];
  associations?: { type: string; id?: string }[];
}

export async function createTagset(store: Store, orgId: string, input: TagsetInput & { name: string }, clock?: Clock): Promise<Tagset> {
  const now = timestamp(clock);
  const tagset: Tagset = {
    id: newId(),
    orgId,
    name: checkName(input.name),
    description: input.description?.trim() || null,
    tags: buildOptions(input.tags ?? [], [], '/tags', true),
    associations: await checkAssociations(store, orgId, input.associations ?? []),
    createdAt: now,
    updatedAt: now,
  };
  await store.transaction(async (tx) => {
    await tx.tagsets.insert(tagset);
    await tx.links.replace(orgId, 'tagset', tagset.id, ASSOCIATION, tagset.associations.map(toTarget));
  });
  return tagset;
}

export async function getTagset(store: Store, orgId: string, id: string): Promise<Tagset> {
  const [tagset] = await withAssociations(store, orgId, [await orNotFound(store.tagsets.find(orgId, id))]);
  return tagset!;
}

export async function listTagsets(store: Store, orgId: string, page: PageRequest): Promise<Page<Tagset>> {
  const found = await store.tagsets.list(orgId, page);
  return { ...found, rows: await withAssociations(store, orgId, found.rows) };
}

/** `tags`, when sent, is the complete new list: entries with an id update that tag, others are new. */
export async function updateTagset(store: Store, orgId: string, id: string, patch: TagsetInput, clock?: Clock): Promise<Tagset> {
  return store.transaction(async (tx) => {
    // The whole tagset is written back: a concurrent patch of it must not be overwritten with what it replaced.
    await tx.lock([recordLock('tagset', id)]);
    const current = await getTagset(tx, orgId, id);
    const next: Tagset = { ...current, updatedAt: timestamp(clock) };
    if (patch.name !== undefined) next.name = checkName(patch.name);
    if (patch.description !== undefined) next.description = patch.description?.trim() || null;
    if (patch.tags !== undefined) next.tags = buildOptions(patch.tags, current.tags, '/tags', true);
    await tx.tagsets.update(next);
    if (patch.associations !== undefined) {
      next.associations = await checkAssociations(tx, orgId, patch.associations);
      await tx.links.replace(orgId, 'tagset', id, ASSOCIATION, next.associations.map(toTarget));
    }
    return next;
  });
}

export async function deleteTagset(store: Store, orgId: string, id: string): Promise<void> {
  await store.transaction(async (tx) => {
    await getTagset(tx, orgId, id);
    await tx.tagsets.delete(orgId, id);
    await tx.links.deleteEntity(orgId, 'tagset', id);
  });
}

/** Every tagset of the organization (they are few), e.g. to show which ones each inbox offers. */
export async function allTagsets(store: Store, orgId: string): Promise<Tagset[]> {
  const all: Tagset[] = [];
  let page = await listTagsets(store, orgId, { limit: 100 });
  all.push(...page.rows);
  while (page.hasNext && page.end) {
    page = await listTagsets(store, orgId, { limit: 100, after: page.end });
    all.push(...page.rows);
  }
  return all;
}

export function availableIn(tagsets: Tagset[], inboxId: string): Tagset[] {
  return tagsets.filter((t) => t.associations.some((a) => a.type === 'inbox' && a.id === inboxId));
}

// A tagset available on calls or meetings links to the whole kind (no id); one available in an inbox, to it.
const toTarget = (a: TagsetAssociation): LinkTarget => ({ type: a.type, id: a.type === 'inbox' ? a.id : null });

function toAssociation(t: LinkTarget): TagsetAssociation {
  return t.type === 'inbox' ? { type: 'inbox', id: t.id! } : { type: t.type as 'calls' | 'meetings' };
}

/** The tagsets with their associations, from one query for all of them. */
async function withAssociations(store: Store, orgId: string, records: Omit<Tagset, 'associations'>[]): Promise<Tagset[]> {
  const links = await store.links.targetsOf(orgId, 'tagset', records.map((r) => r.id), ASSOCIATION);
  return records.map((r) => ({ ...r, associations: (links.get(r.id) ?? []).map(toAssociation) }));
}

const checkName = (name: string): string => checkedName(name, '/name');

async function checkAssociations(store: Store, orgId: string, inputs: { type: string; id?: string }[]): Promise<TagsetAssociation[]> {
  const result: TagsetAssociation[] = [];
  for (const [i, input] of inputs.entries()) {
    let association: TagsetAssociation;
    if (input.type === 'calls' || input.type === 'meetings') association = { type: input.type };
    else if (input.type === 'inbox') {
      if (input.id === undefined) throw invalidAt(`/associations/${i}/id`, 'an inbox association needs the id of the inbox');
      if (!(await store.inboxes.find(orgId, input.id))) throw invalidAt(`/associations/${i}/id`, `no inbox has id "${input.id}"`);
      association = { type: 'inbox', id: input.id };
    } else {
      throw invalidAt(`/associations/${i}/type`, 'type must be "calls", "meetings" or "inbox" (with the inbox id)');
    }
    if (!result.some((r) => JSON.stringify(r) === JSON.stringify(association))) result.push(association);
  }
  return result;
}

/** Every tag of the organization by id. */
export async function tagsById(store: Store, orgId: string): Promise<Map<string, Tag>> {
  return new Map((await allTagsets(store, orgId)).flatMap((t) => t.tags.map((tag): [string, Tag] => [tag.id, tag])));
}

/**
 * The tags of tagsets offered on calls or on meetings, by id. A tagset with no associations at all is offered
 * everywhere: the SDKs cannot send `associations`, and a tagset they create must still tag calls and meetings.
 */
export async function tagsAvailableOn(store: Store, orgId: string, on: 'calls' | 'meetings'): Promise<Map<string, Tag>> {
  const offered = (await allTagsets(store, orgId)).filter((t) => t.associations.length === 0 || t.associations.some((a) => a.type === on));
  return new Map(offered.flatMap((t) => t.tags.map((tag): [string, Tag] => [tag.id, tag])));
}

/**
 * A call's or meeting's `tags`: tag pointers (`type` "tag" when given) to tags of tagsets offered there, each
 * once, in the order given; a problem is a 422 at `/tags/<i>/…`.
 */
export async function checkTagPointers(store: Store, orgId: string, on: 'calls' | 'meetings', inputs: { id: string; type?: string }[]): Promise<Tag[]> {
  const available = await tagsAvailableOn(store, orgId, on);
  const result: Tag[] = [];
  for (const [i, input] of inputs.entries()) {
    if (input.type !== undefined && input.type !== 'tag') throw invalidAt(`/tags/${i}/type`, 'tags are tag pointers: {"type": "tag", "id": "…"}');
    const tag = available.get(input.id);
    if (!tag) throw invalidAt(`/tags/${i}/id`, `no tag of a tagset available on ${on} has id "${input.id}"`);
    if (!result.some((t) => t.id === tag.id)) result.push(tag);
  }
  return result;
}
