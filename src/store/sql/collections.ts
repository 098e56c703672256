// Collections table.
import type { Kysely, Selectable } from 'kysely';
import type { Collection, CollectionKind } from '../../domain/collections.ts';
import type { CollectionRepo } from '../../domain/ports/store.ts';
import { bumpSchemaTag } from './schema-cache.ts';
import type { Engine } from './sql-store.ts';
import type { CollectionsTable, Database } from './schema.ts';
import { fetchPage } from './keyset.ts';
import { mapPage } from '../../domain/pagination.ts';

const toCollection = (row: Selectable<CollectionsTable>): Collection => ({
  id: row.id,
  orgId: row.org_id,
  ref: row.ref,
  name: row.name,
  description: row.description,
  iconName: row.icon_name,
  kind: row.kind as CollectionKind,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toRow = (c: Collection): CollectionsTable => ({
  id: c.id,
  org_id: c.orgId,
  ref: c.ref,
  name: c.name,
  description: c.description,
  icon_name: c.iconName,
  kind: c.kind,
  created_at: c.createdAt,
  updated_at: c.updatedAt,
});

export function collectionRepo(db: Kysely<Database>, engine: Pick<Engine, 'announce'>): CollectionRepo {
  const byOrg = (orgId: string) => db.selectFrom('collections as c').selectAll('c').where('c.org_id', '=', orgId);

  return {
    async insert(collection) {
      await db.insertInto('collections').values(toRow(collection)).execute();
      await bumpSchemaTag(db, engine, collection.orgId);
    },
    async update(collection) {
      const { id, org_id, ...rest } = toRow(collection);
      await db.updateTable('collections').set(rest).where('id', '=', id).where('org_id', '=', org_id).execute();
      await bumpSchemaTag(db, engine, org_id);
    },
    async find(orgId, idOrRef) {
      const rows = await byOrg(orgId)
        .where((eb) => eb.or([eb('c.id', '=', idOrRef), eb('c.ref', '=', idOrRef)]))
        .execute();
      const row = rows.find((r) => r.id === idOrRef) ?? rows[0];
      return row && toCollection(row);
    },
    async findMany(orgId, ids) {
      if (ids.length === 0) return [];
      return (await byOrg(orgId).where('c.id', 'in', ids).execute()).map(toCollection);
    },
    async list(orgId, page) {
      const result = await fetchPage(byOrg(orgId), [{ column: 'c.id', desc: false }], page, (r) => ({ key: [], id: r.id }));
      return mapPage(result, toCollection);
    },
    async refs(orgId) {
      const rows = await db.selectFrom('collections').select('ref').where('org_id', '=', orgId).execute();
      return rows.map((r) => r.ref);
    },
  };
}
