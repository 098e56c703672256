// Wire shapes of views (reference §5.4) and the body of the Tycho extension that saves one.
import { Type, type Static } from 'typebox';
import type { CollectionWithFields } from '../../domain/collections.ts';
import type { View } from '../../domain/views.ts';
import { MAX_SORT_KEYS } from '../../domain/filter/parse.ts';
import { CollectionWire, renderCollection } from './collections.ts';
import { Include } from '../list-query.ts';
import { exampleOf, PageQuery } from './common.ts';
import { renderViewSummary, ViewSummary, viewProperties } from './view-wire.ts';

export const ViewWire = Type.Object({ ...viewProperties, collection: Type.Optional(CollectionWire) }, { examples: [{ ...exampleOf(ViewSummary), collection: exampleOf(CollectionWire) }] });

export const ViewParams = Type.Object({ id: Type.String() });
export const ViewQuery = Type.Object({ include: Include(['collection']) });
export const ViewItemsQuery = PageQuery;

export const CreateViewBody = Type.Object(
  {
    name: Type.String({ maxLength: 1000 }),
    view_type: Type.Optional(Type.Union([Type.Literal('table'), Type.Literal('board')], { errorMessage: 'must be "table" or "board"' })),
    filter: Type.Optional(Type.Unknown()),
    sort: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: MAX_SORT_KEYS })),
  },
  { examples: [{ name: 'Gold accounts', view_type: 'table', filter: { field: 'tier', op: 'eq', value: 'Gold' }, sort: ['-employees'] }] },
);

export function renderView(view: View, collection?: CollectionWithFields): Static<typeof ViewWire> {
  return { ...renderViewSummary(view), ...(collection ? { collection: renderCollection(collection) } : {}) };
}
