// Row mapping of saved views (migration 0010). The saved filter and sort are JSON text; `default_of` holds the
// collection id on the collection's default view only, which a unique index keeps to one.
import type { View } from '../../domain/views.ts';
import { json, type RecordMapping } from './records.ts';
import type { ViewsTable } from './schema.ts';

export const viewMapping: RecordMapping<View, ViewsTable, 'collectionId'> = {
  toModel: (r) => ({
    id: r.id,
    orgId: r.org_id,
    collectionId: r.collection_id,
    name: r.name,
    viewType: r.view_type as View['viewType'],
    filter: r.filter === null ? null : json.parse(r.filter),
    sort: json.parse(r.sort),
    isDefault: r.default_of !== null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  toRow: (v) => ({
    id: v.id,
    org_id: v.orgId,
    collection_id: v.collectionId,
    name: v.name,
    view_type: v.viewType,
    filter: v.filter === null || v.filter === undefined ? null : json.text(v.filter),
    sort: json.text(v.sort),
    default_of: v.isDefault ? v.collectionId : null,
    created_at: v.createdAt,
    updated_at: v.updatedAt,
  }),
  filters: { collectionId: 'collection_id' },
};
