// Fields table; type-specific configuration and default values are JSON columns.
import type { Kysely, Selectable } from 'kysely';
import type { Cardinality, Field, FieldKind, FieldType } from '../../domain/fields.ts';
import type { FieldRepo } from '../store.ts';
import type { Database, FieldsTable } from './schema.ts';

const toField = (row: Selectable<FieldsTable>): Field => ({
  id: row.id,
  orgId: row.org_id,
  collectionId: row.collection_id,
  ref: row.ref,
  name: row.name,
  description: row.description,
  type: row.type as FieldType,
  cardinality: row.cardinality as Cardinality,
  required: row.required === 1,
  unique: row.is_unique === 1,
  readonly: row.readonly === 1,
  kind: row.kind as FieldKind,
  config: JSON.parse(row.config),
  defaultValues: JSON.parse(row.default_values),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toRow = (f: Field): FieldsTable => ({
  id: f.id,
  org_id: f.orgId,
  collection_id: f.collectionId,
  ref: f.ref,
  name: f.name,
  description: f.description,
  type: f.type,
  cardinality: f.cardinality,
  required: f.required ? 1 : 0,
  is_unique: f.unique ? 1 : 0,
  readonly: f.readonly ? 1 : 0,
  kind: f.kind,
  config: JSON.stringify(f.config),
  default_values: JSON.stringify(f.defaultValues),
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

export function fieldRepo(db: Kysely<Database>): FieldRepo {
  return {
    async insertMany(fields) {
      if (fields.length > 0) await db.insertInto('fields').values(fields.map(toRow)).execute();
    },
    async listByCollection(orgId, collectionId) {
      const rows = await db
        .selectFrom('fields')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('collection_id', '=', collectionId)
        .orderBy('id')
        .execute();
      return rows.map(toField);
    },
  };
}
