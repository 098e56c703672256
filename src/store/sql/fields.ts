// Fields table; type-specific configuration and default values are JSON columns.
import type { Kysely, Selectable } from 'kysely';
import type { Cardinality, Field, FieldKind, FieldType } from '../../domain/fields.ts';
import type { FieldRepo } from '../../domain/ports/store.ts';
import { bumpSchemaTag } from './schema-cache.ts';
import type { Engine } from './sql-store.ts';
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
  funnel_id: f.config.funnelId ?? null,
  config: JSON.stringify(f.config),
  default_values: JSON.stringify(f.defaultValues),
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

export function fieldRepo(db: Kysely<Database>, engine: Pick<Engine, 'announce'>): FieldRepo {
  const byOrg = (orgId: string) => db.selectFrom('fields').selectAll().where('org_id', '=', orgId);

  return {
    async insertMany(fields) {
      if (fields.length === 0) return;
      await db.insertInto('fields').values(fields.map(toRow)).execute();
      for (const orgId of new Set(fields.map((f) => f.orgId))) await bumpSchemaTag(db, engine, orgId);
    },
    async update(field) {
      const { id, org_id, ...rest } = toRow(field);
      await db.updateTable('fields').set(rest).where('id', '=', id).where('org_id', '=', org_id).execute();
      await bumpSchemaTag(db, engine, org_id);
    },
    async delete(orgId, ids) {
      if (ids.length === 0) return;
      await db.deleteFrom('fields').where('org_id', '=', orgId).where('id', 'in', ids).execute();
      await bumpSchemaTag(db, engine, orgId);
    },
    async find(orgId, collectionId, idOrRef) {
      const rows = await byOrg(orgId)
        .where('collection_id', '=', collectionId)
        .where((eb) => eb.or([eb('id', '=', idOrRef), eb('ref', '=', idOrRef)]))
        .execute();
      const row = rows.find((r) => r.id === idOrRef) ?? rows[0];
      return row && toField(row);
    },
    async findMany(orgId, ids) {
      if (ids.length === 0) return [];
      return (await byOrg(orgId).where('id', 'in', ids).orderBy('id').execute()).map(toField);
    },
    async listByFunnel(orgId, funnelId) {
      return (await byOrg(orgId).where('funnel_id', '=', funnelId).orderBy('id').execute()).map(toField);
    },
    async refs(orgId, collectionId) {
      const rows = await db.selectFrom('fields').select('ref').where('org_id', '=', orgId).where('collection_id', '=', collectionId).execute();
      return rows.map((r) => r.ref);
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
