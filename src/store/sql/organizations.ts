// Organizations table.
import type { Kysely, Selectable } from 'kysely';
import type { Organization } from '../../domain/organizations.ts';
import type { OrganizationRepo } from '../../domain/ports/store.ts';
import type { Database, OrganizationsTable } from './schema.ts';

const toOrganization = (row: Selectable<OrganizationsTable>): Organization => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  sandbox: row.sandbox === 1,
  ...(row.parent_id !== null ? { parentId: row.parent_id } : {}),
  ...(row.snapshot_name !== null ? { snapshotName: row.snapshot_name } : {}),
});

export function organizationRepo(db: Kysely<Database>): OrganizationRepo {
  return {
    async insert(org) {
      await db
        .insertInto('organizations')
        .values({ id: org.id, name: org.name, created_at: org.createdAt, sandbox: org.sandbox ? 1 : 0, parent_id: org.parentId ?? null, snapshot_name: org.snapshotName ?? null })
        .execute();
    },
    async findByName(name) {
      const row = await db.selectFrom('organizations').selectAll().where('name', '=', name).executeTakeFirst();
      return row && toOrganization(row);
    },
    async findById(id) {
      const row = await db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toOrganization(row);
    },
    async list() {
      const rows = await db.selectFrom('organizations').selectAll().orderBy('id').execute();
      return rows.map(toOrganization);
    },
    async sandboxesOf(parentId) {
      const rows = await db.selectFrom('organizations').selectAll().where('parent_id', '=', parentId).orderBy('id').execute();
      return rows.map(toOrganization);
    },
  };
}
