// API keys table: hashes only, never the keys themselves.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ApiKey } from '../../domain/api-keys.ts';
import type { ApiKeyRepo } from '../../domain/ports/store.ts';
import type { ApiKeysTable, Database } from './schema.ts';
import type { Engine } from './sql-store.ts';

const toApiKey = (row: Selectable<ApiKeysTable>): ApiKey => ({
  id: row.id,
  orgId: row.org_id,
  name: row.name,
  prefix: row.prefix,
  hash: row.hash,
  readOnly: row.read_only === 1,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  admin: row.admin === 1,
});

const toRow = (key: ApiKey): Omit<ApiKeysTable, 'admin'> & { admin: number } => ({
  id: key.id,
  org_id: key.orgId,
  name: key.name,
  prefix: key.prefix,
  hash: key.hash,
  read_only: key.readOnly ? 1 : 0,
  created_at: key.createdAt,
  revoked_at: key.revokedAt,
  admin: key.admin ? 1 : 0,
});

export function apiKeyRepo(db: Kysely<Database>, engine: Pick<Engine, 'changeToken' | 'announce'>): ApiKeyRepo {
  return {
    async insert(key) {
      await db.insertInto('api_keys').values(toRow(key)).execute();
      await engine.announce(db, 'api_keys');
    },
    async update(key) {
      const { id, ...rest } = toRow(key);
      await db.updateTable('api_keys').set(rest).where('id', '=', id).execute();
      await engine.announce(db, 'api_keys');
    },
    changeToken: () => engine.changeToken('api_keys'),
    async findByHash(hash) {
      const row = await db.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
      return row && toApiKey(row);
    },
    async findByPrefix(prefix) {
      // substr rather than LIKE: no metacharacters to escape, case-sensitive on every engine.
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where(sql`substr(prefix, 1, ${prefix.length})`, '=', prefix)
        .orderBy('id')
        .execute();
      return rows.map(toApiKey);
    },
    async list(orgId) {
      let q = db.selectFrom('api_keys').selectAll();
      if (orgId !== undefined) q = q.where('org_id', '=', orgId);
      return (await q.orderBy('id').execute()).map(toApiKey);
    },
  };
}
