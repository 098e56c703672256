// Wire shapes of items (seed §2.4, reference §5.3): values keyed by field ref, `many` fields always arrays,
// the system timestamps always present. Request bodies and the update-strategy headers.
import { Type, type Static } from 'typebox';
import type { Strategies } from '../../domain/item-values.ts';
import { CollectionPointer, exampleOf, PageQuery } from './common.ts';
import { MAX_SORT_KEYS } from '../../domain/filter/parse.ts';
import { RequestValueMap, ResponseValueMap } from './values.ts';
import { FilterParam } from './filters.ts';

export const ItemWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('item'),
    collection: CollectionPointer,
    values: ResponseValueMap,
  },
  {
    examples: [
      {
        id: '1CLJt2v5NVwRc8nCqWZPnr',
        type: 'item',
        collection: { id: '1CLJt2v5L9yv2kFJKqB4ad', type: 'collection', ref: 'organizations' },
        values: {
          name: { type: 'value/text/single_line', data: 'Acme' },
          domain: [{ type: 'value/uri/domain', data: 'acme.com' }],
          created_at: { type: 'value/datetime', data: '2025-02-17T16:00:00.000Z' },
          updated_at: { type: 'value/datetime', data: '2025-02-17T16:00:00.000Z' },
        },
      },
    ],
  },
);

export type ItemOut = Static<typeof ItemWire>;

const ValueMap = RequestValueMap('must be an object mapping field refs to values');

export const SearchResult = Type.Object({ type: Type.Literal('search_result'), data: ItemWire }, { examples: [{ type: 'search_result', data: exampleOf(ItemWire) }] });

const SortKeys = Type.Array(Type.String({ minLength: 1, maxLength: 512 }), {
  maxItems: MAX_SORT_KEYS,
  description: `up to ${MAX_SORT_KEYS} field refs or ids, \`-\` for descending`,
});

/** `include[]`: the fields to return (ids or refs), as the TypeScript SDK (and Ruby's until May 2026) sends it. */
export const ItemListQuery = Type.Object({
  ...PageQuery.properties,
  sort: Type.Optional(SortKeys),
  include: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 1000 })),
});

export const SearchBody = Type.Object(
  {
    filter: Type.Optional(FilterParam),
    include: Type.Optional(Type.Array(Type.String(), { maxItems: 1000, description: 'the fields to return (ids or refs); all when left out' })),
    sort: Type.Optional(SortKeys),
  },
  { examples: [{ filter: { op: 'and', filters: [{ field: 'name', op: 'contains', value: 'acme' }, { field: 'employees', op: 'gte', value: 10 }] }, sort: ['-employees'] }] },
);

export const ItemValuesBody = Type.Object(
  { values: ValueMap },
  { examples: [{ values: { name: { type: 'value/text/single_line', data: 'Acme' }, domain: [{ type: 'value/uri/domain', data: 'acme.com' }], employees: null } }] },
);

export const UpsertBody = Type.Object(
  {
    identifiers: ValueMap,
    values: ValueMap,
    collection_id: Type.Optional(Type.String()),
  },
  {
    examples: [
      {
        identifiers: { domain: { type: 'value/uri/domain', data: 'acme.com' } },
        values: { name: { type: 'value/text/single_line', data: 'Acme' }, employees: { type: 'value/number/unitless_integer', data: 250 } },
      },
    ],
  },
);

/** ItemPointerParam (reference §4.1): `{id, type: "item"}`; `collection` may be repeated and is ignored. */
const ItemPointerParam = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  type: Type.Literal('item'),
  collection: Type.Optional(Type.Unknown()),
});

export const MergeBody = Type.Object(
  { source: ItemPointerParam, destination: ItemPointerParam },
  { examples: [{ source: { id: '1CLJt2v5WmQa6FhXc9Tbsn', type: 'item' }, destination: { id: '1CLJt2v5NVwRc8nCqWZPnr', type: 'item' } }] },
);

export const StrategyHeaders = Type.Object({
  'update-one-strategy': Type.Optional(
    Type.Union([Type.Literal('replace'), Type.Literal('preserve')], {
      errorMessage: 'must be "replace" or "preserve"',
      description: 'For `one` fields: `replace` (default) overwrites the current value; `preserve` keeps a current value and only fills empty fields.',
    }),
  ),
  'update-many-strategy': Type.Optional(
    Type.Union([Type.Literal('replace'), Type.Literal('preserve'), Type.Literal('merge')], {
      errorMessage: 'must be "replace", "preserve" or "merge"',
      description: 'For `many` fields: `replace` (default) overwrites the list; `preserve` keeps a non-empty list; `merge` adds the sent values missing from it.',
    }),
  ),
});

export function strategiesOf(headers: Static<typeof StrategyHeaders>): Strategies {
  return { one: headers['update-one-strategy'] ?? 'replace', many: headers['update-many-strategy'] ?? 'replace' };
}

export const ItemParams = Type.Object({ collection_id: Type.String(), id: Type.String() });
export const CollectionParams = Type.Object({ collection_id: Type.String() });

/** Items are rendered by the domain, which also keeps each item's wire form stored (domain/item-wire.ts). */
export { renderItem } from '../../domain/item-wire.ts';
