// Store tests that look under the store: a migrated store and a second, plain Kysely handle on the same
// database, for raw rows and EXPLAIN.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { openStore } from '../../src/store/open-store.ts';
import type { Database } from '../../src/store/sql/schema.ts';
import type { Store } from '../../src/domain/ports/store.ts';
import type { Principal } from '../../src/domain/api-keys.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { throwawayPostgres, type EngineName } from './harness.ts';

/** A one-connection pool whose idle errors (a dropped database) do not crash the test process. */
export function rawPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => {});
  return pool;
}

export interface RawStore {
  store: Store;
  raw: Kysely<Database>;
  /** Another store on the same database, as another process would open it (closed by `close`). */
  another(): Promise<Store>;
  close(): Promise<void>;
}

export async function openStoreWithRaw(engine: EngineName): Promise<RawStore> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'tycho-raw-'));
    const file = join(dir, 'tycho.sqlite');
    const store = await openStore({ engine: 'sqlite', path: file });
    const raw = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) });
    const others: Store[] = [];
    return {
      store,
      raw,
      another: async () => others[others.push(await openStore({ engine: 'sqlite', path: file })) - 1]!,
      async close() {
        await raw.destroy();
        for (const other of others) await other.close();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const database = await throwawayPostgres();
  const store = await openStore({ engine: 'postgres', url: database.url, poolSize: 2 });
  const raw = new Kysely<Database>({ dialect: new PostgresDialect({ pool: rawPool(database.url) }) });
  const others: Store[] = [];
  return {
    store,
    raw,
    another: async () => others[others.push(await openStore({ engine: 'postgres', url: database.url, poolSize: 2 })) - 1]!,
    async close() {
      await raw.destroy();
      for (const other of others) await other.close();
      await store.close();
      await database.drop();
    },
  };
}

/** Resolves once a statement of this PostgreSQL database waits for a lock (a write queued behind another). */
export async function untilWaitingOnLock(raw: Kysely<Database>): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and state = 'active'`.execute(raw);
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Two stores on one database, as two processes would open them, and a writer of an organization in it. */
export interface TwoWriters {
  s: RawStore;
  other: Store;
  principal: Principal;
}

export async function twoWriters(engine: EngineName, organizationName: string): Promise<TwoWriters> {
  const s = await openStoreWithRaw(engine);
  const { organization } = await ensureOrganization(s.store, organizationName);
  return { s, other: await s.another(), principal: { orgId: organization.id, scope: 'write', actor: { id: 'test', type: 'api_key' } } };
}
