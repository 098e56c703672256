// Item lists and searches: parse the filter, selection and sort against the collection's fields, then ask
// the store for one keyset page.
import { invalidAt, notFound } from './errors.ts';
import { fieldByKey, fromParts, loadSchema, type CollectionSchema } from './collection-schema.ts';
import { parseFilter, parseSort, type SortSchemas } from './filter/parse.ts';
import type { ErrorSource } from './errors.ts';
import type { ItemQuery } from './filter/ast.ts';
import type { Item } from './items.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';
import { wireTag, type ServedItem } from './item-wire.ts';

export interface SearchInput {
  filter?: unknown;
  include?: string[];
  sort?: string[];
}

export interface ItemPage<T = Item> {
  schema: CollectionSchema;
  page: Page<T>;
  /** Field ids to show, when the request selected some. */
  include?: Set<string>;
}

/** Parsed once before the page is read, so the cursor scope can name the sort. */
export interface PreparedQuery {
  schema: CollectionSchema;
  query: ItemQuery;
  include?: Set<string>;
  /** Identifies the order; cursors are only valid under the order that made them. */
  orderSignature: string;
}

export async function prepareQuery(
  store: Store,
  orgId: string,
  collectionKey: string,
  input: SearchInput,
  sortSource: (i: number) => ErrorSource,
): Promise<PreparedQuery> {
  return prepareQueryFor(store, orgId, await loadSchema(store, orgId, collectionKey), input, sortSource);
}

/** `prepareQuery` against a schema in hand (`store` loads those of related collections a sort goes through). */
export async function prepareQueryFor(
  store: Store,
  orgId: string,
  schema: CollectionSchema,
  input: SearchInput,
  sortSource: (i: number) => ErrorSource,
): Promise<PreparedQuery> {
  const sorts = input.sort ?? [];
  const related = new Map<string, CollectionSchema>();
  if (sorts.some((s) => s.includes('.'))) {
    const ids = new Set(schema.fields.flatMap((f) => f.config.allowedCollectionIds ?? []));
    for (const id of ids) related.set(id, await loadSchema(store, orgId, id));
  }
  const sortSchemas: SortSchemas = { own: schema, related };
  const query: ItemQuery = { collectionId: schema.collection.id, sort: parseSort(sortSchemas, sorts, sortSource) };
  if (input.filter !== undefined && input.filter !== null) query.filter = parseFilter(schema, input.filter);
  const prepared: PreparedQuery = { schema, query, orderSignature: JSON.stringify(query.sort) };
  if (input.include !== undefined) {
    prepared.include = new Set(
      input.include.map((key, i) => {
        const field = fieldByKey(schema, key);
        if (!field) throw invalidAt(`/include/${i}`, `${schema.collection.ref} has no field "${key}"`);
        return field.id;
      }),
    );
  }
  return prepared;
}

export async function runQuery(store: Store, orgId: string, prepared: PreparedQuery, page: PageRequest): Promise<ItemPage> {
  const result = await store.items.query(orgId, prepared.query, page);
  return { schema: prepared.schema, page: result, ...(prepared.include ? { include: prepared.include } : {}) };
}

/**
 * `runQuery` for an answer: items come as their stored wire forms where those are current (see
 * item-wire.ts), so they need no rendering. A selection of fields is rendered from the values.
 */
export async function serveQuery(store: Store, orgId: string, prepared: PreparedQuery, page: PageRequest): Promise<ItemPage<ServedItem>> {
  if (prepared.include) return runQuery(store, orgId, prepared, page);
  return { schema: prepared.schema, page: await store.items.serve(orgId, prepared.query, page, wireTag(prepared.schema)) };
}

/**
 * A page of the collection's items for an answer, as `serveQuery` gives it: `prepare` parses the request
 * against a schema and `pageOf` gives the page it asks for (a cursor is valid only under the order that made
 * it). Both may run twice: with the schema this process loaded last, then with the current one (`Store.servePage`).
 */
export async function servePage(
  store: Store,
  orgId: string,
  collectionKey: string,
  prepare: (schema: CollectionSchema) => Promise<PreparedQuery>,
  pageOf: (prepared: PreparedQuery) => PageRequest,
): Promise<ItemPage<ServedItem> & { prepared: PreparedQuery }> {
  const result = await store.servePage(orgId, collectionKey, async (parts) => {
    const prepared = await prepare(fromParts(parts));
    // A selection of fields is rendered from the values; otherwise stored wire forms serve where current.
    return { prepared, query: prepared.query, page: pageOf(prepared), ...(prepared.include ? {} : { wireTag: wireTag(prepared.schema) }) };
  });
  if (!result) throw notFound();
  const { plan, page } = result.read;
  const { prepared } = plan;
  return { prepared, schema: prepared.schema, page, ...(prepared.include ? { include: prepared.include } : {}) };
}

/** The item `id` of the collection for an answer, as `serveQuery` gives items, with the schema to show it by; 404 when there is none. */
export async function serveItem(store: Store, orgId: string, collectionKey: string, id: string): Promise<{ schema: CollectionSchema; item: ServedItem }> {
  const result = await store.serveItem(orgId, collectionKey, id, (parts) => wireTag(fromParts(parts)));
  if (!result?.read) throw notFound();
  return { schema: fromParts(result.parts), item: result.read };
}
