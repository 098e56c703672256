// Funnels table; steps are a JSON array in order.
import type { Kysely, Selectable } from 'kysely';
import type { Funnel } from '../../domain/funnels.ts';
import { mapPage } from '../../domain/pagination.ts';
import type { FunnelRepo } from '../../domain/ports/store.ts';
import { bumpSchemaTag } from './schema-cache.ts';
import type { Engine } from './sql-store.ts';
import type { Database, FunnelsTable } from './schema.ts';
import { fetchPage } from './keyset.ts';

const toFunnel = (row: Selectable<FunnelsTable>): Funnel => ({
  id: row.id,
  orgId: row.org_id,
  name: row.name,
  steps: JSON.parse(row.steps),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toRow = (f: Funnel): FunnelsTable => ({
  id: f.id,
  org_id: f.orgId,
  name: f.name,
  steps: JSON.stringify(f.steps),
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

export function funnelRepo(db: Kysely<Database>, engine: Pick<Engine, 'announce'>): FunnelRepo {
  const byOrg = (orgId: string) => db.selectFrom('funnels as f').selectAll('f').where('f.org_id', '=', orgId);
  return {
    async insert(funnel) {
      await db.insertInto('funnels').values(toRow(funnel)).execute();
      await bumpSchemaTag(db, engine, funnel.orgId);
    },
    async update(funnel) {
      const { id, org_id, ...rest } = toRow(funnel);
      await db.updateTable('funnels').set(rest).where('id', '=', id).where('org_id', '=', org_id).execute();
      await bumpSchemaTag(db, engine, org_id);
    },
    async delete(orgId, id) {
      await db.deleteFrom('funnels').where('org_id', '=', orgId).where('id', '=', id).execute();
      await bumpSchemaTag(db, engine, orgId);
    },
    async find(orgId, id) {
      const row = await byOrg(orgId).where('f.id', '=', id).executeTakeFirst();
      return row && toFunnel(row);
    },
    async findMany(orgId, ids) {
      if (ids.length === 0) return [];
      return (await byOrg(orgId).where('f.id', 'in', ids).execute()).map(toFunnel);
    },
    async list(orgId, page) {
      const result = await fetchPage(byOrg(orgId), [{ column: 'f.id', desc: false }], page, (r) => ({ key: [], id: r.id }));
      return mapPage(result, toFunnel);
    },
  };
}
