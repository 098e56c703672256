// Global search (reference §5.20, `POST /search?query=…`): items whose text-like values start with the query
// (compared as the index keeps them: lower-cased, identifiers as written) and files whose name contains it.
// Ranking: an exact match (a whole value or name equal to the query) before a prefix match before a file name
// merely containing it; within a rank items before files, then the shorter matched text, then the text, then
// the id. At most MAX_RESULTS results; the list is not paginated.
import { badParameter } from './errors.ts';
import { loadSchema, type CollectionSchema } from './collection-schema.ts';
import { prefixKey } from './items.ts';
import { wireTag, type ServedItem } from './item-wire.ts';
import { withItemAssociations } from './associations.ts';
import type { StoredFile } from './files.ts';
import type { PrefixSearch, Store } from './ports/store.ts';
import { longerThan } from './characters.ts';

/** The most results one search returns. */
export const MAX_RESULTS = 50;
/** The longest query accepted, in characters. */
export const MAX_QUERY_LENGTH = 500;

/** Field types whose values are texts in the index (the others are numbers, dates, options or item ids). */
export const TEXT_FIELD_TYPES = [
  'field/text/single_line', 'field/text/multi_line', 'field/identifier', 'field/email', 'field/uri/url', 'field/uri/domain',
  'field/uri/social_x', 'field/uri/social_linked_in', 'field/telephone_number', 'field/geo',
];

/** Text-like field types whose index keys keep the value's case (items.ts `indexKey`). */
const CASED_FIELD_TYPES = ['field/identifier'];

export type SearchHit = { type: 'item'; item: ServedItem; schema: CollectionSchema } | { type: 'file'; file: StoredFile };

interface Ranked {
  rank: number;
  kind: number;
  text: string;
  id: string;
}

const compare = (a: Ranked, b: Ranked): number =>
  a.rank - b.rank || a.kind - b.kind || a.text.length - b.text.length || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export async function globalSearch(store: Store, orgId: string, query: string | undefined): Promise<SearchHit[]> {
  const text = (query ?? '').trim();
  if (text.length === 0) throw badParameter('query', 'query must hold the text to search for, e.g. POST /v0/search?query=acme');
  if (longerThan(text, MAX_QUERY_LENGTH)) throw badParameter('query', `query must be at most ${MAX_QUERY_LENGTH} characters`);
  const lower = text.toLowerCase();
  // Identifiers keep their case in the index; every other text key is lower-cased.
  const searches: PrefixSearch[] = [{ fieldTypes: TEXT_FIELD_TYPES, prefix: prefixKey(lower) }];
  if (text !== lower) searches.push({ fieldTypes: CASED_FIELD_TYPES, prefix: prefixKey(text) });

  const best = new Map<string, Ranked>();
  const collectionOf = new Map<string, string>();
  for (const m of await store.search.textPrefix(orgId, searches, MAX_RESULTS)) {
    collectionOf.set(m.itemId, m.collectionId);
    const ranked: Ranked = { rank: m.key === lower || m.key === text ? 0 : 1, kind: 0, text: m.key, id: m.itemId };
    const seen = best.get(m.itemId);
    if (!seen || compare(ranked, seen) < 0) best.set(m.itemId, ranked);
  }
  const files = new Map((await store.search.filesByName(orgId, text, MAX_RESULTS)).map((f) => [f.id, f]));
  for (const file of files.values()) {
    const name = file.name.toLowerCase();
    best.set(file.id, { rank: name === lower ? 0 : name.startsWith(lower) ? 1 : 2, kind: 1, text: name, id: file.id });
  }
  const chosen = [...best.values()].sort(compare).slice(0, MAX_RESULTS);

  // The schemas first, so that items whose stored wire form is current come as that form (item-wire.ts).
  const itemIds = chosen.filter((c) => c.kind === 0).map((c) => c.id);
  const schemas = new Map<string, CollectionSchema>();
  for (const collectionId of new Set(itemIds.map((id) => collectionOf.get(id)!))) schemas.set(collectionId, await loadSchema(store, orgId, collectionId));
  const tags = [...schemas.values()].map(wireTag);
  const items = new Map((await store.items.serveMany(orgId, itemIds, tags)).map((i) => [i.id, i]));
  const withLinks = new Map(
    (await withItemAssociations(store, orgId, 'file', chosen.filter((c) => c.kind === 1).map((c) => files.get(c.id)!))).map((f) => [f.id, f]),
  );
  return chosen.flatMap((c): SearchHit[] => {
    if (c.kind === 1) return [{ type: 'file', file: withLinks.get(c.id)! }];
    const item = items.get(c.id);
    return item ? [{ type: 'item', item, schema: schemas.get(collectionOf.get(c.id)!)! }] : [];
  });
}
