// PostgreSQL: a pg pool shared by the process; many processes may share the database. Writers exclude each
// other only where they must, with transaction-scoped advisory locks on narrow keys (see domain/locks.ts), and
// a database that cannot be reached surfaces as 503 rather than as an internal error.
import pg from 'pg';
import { CompiledQuery, Kysely, PostgresDialect, sql, type Compilable, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { serviceUnavailable } from '../../domain/errors.ts';
import { migrate } from '../migrations/index.ts';
import { POSTGRES_TYPES } from '../migrations/column-types.ts';
import { SqlStore, type Engine } from '../sql/sql-store.ts';
import type { Database } from '../sql/schema.ts';
import type { Store } from '../../domain/ports/store.ts';
import { changeSignals } from './changes.ts';
import { pipelineTransactions, readAhead } from './pipeline.ts';
import { isPlannedPerRequest } from '../sql/statement-marks.ts';

// COUNT(*) and other int8 results fit in a JavaScript number for every count Tycho makes.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Set on the error of a statement whose cached plan a concurrent migration invalidated: retrying succeeds. */
const STALE_PLAN = 'TYCHO_STALE_PLAN';

/**
 * Connection-level failures: the database is down, restarting or unreachable — not a bug in the request; and
 * 57014, a statement cancelled by the operator (pg_cancel_backend, or a statement_timeout set on the role).
 */
const UNAVAILABLE_CODES = new Set([STALE_PLAN, 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', '57014', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);

export function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return (
    (typeof e?.code === 'string' && UNAVAILABLE_CODES.has(e.code)) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e?.message ?? '')
  );
}


async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isUnavailable(error) ? serviceUnavailable(error) : error;
  }
}

/** Wraps the driver so that connection failures become 503 at the store boundary. */
function guardDriver(driver: Driver): Driver {
  const guardConnection = (connection: DatabaseConnection): DatabaseConnection => ({
    executeQuery: <R>(query: CompiledQuery) => guarded<QueryResult<R>>(() => connection.executeQuery<R>(query)),
    streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
  });
  const connections = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const unwrap = (c: DatabaseConnection) => connections.get(c) ?? c;
  return {
    init: () => guarded(() => driver.init()),
    acquireConnection: async () => {
      const inner = await guarded(() => driver.acquireConnection());
      const outer = guardConnection(inner);
      connections.set(outer, inner);
      return outer;
    },
    beginTransaction: (c, settings) => guarded(() => driver.beginTransaction(unwrap(c), settings)),
    commitTransaction: (c) => guarded(() => driver.commitTransaction(unwrap(c))),
    rollbackTransaction: (c) => guarded(() => driver.rollbackTransaction(unwrap(c))),
    releaseConnection: (c) => driver.releaseConnection(unwrap(c)),
    destroy: () => driver.destroy(),
  };
}

class GuardedPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return guardDriver(super.createDriver());
  }
}

/** Named statements a connection keeps at most; beyond them statements go unnamed (parsed and planned each time). */
const NAMED_PER_CONNECTION = 500;

/** PostgreSQL refuses a prepared statement whose result columns a migration changed ("cached plan must not change result type"). */
const isStalePlan = (error: unknown) => (error as { code?: string })?.code === '0A000' && /cached plan/i.test((error as Error).message ?? '');

/**
 * Kysely sends every query as an unnamed statement, which PostgreSQL parses and plans afresh each time.
 * Naming each parameterised statement by its text makes it parsed once per connection and lets the server
 * reuse its plan; a statement marked as planned per request (`store/sql/statement-marks.ts`) stays unnamed. A statement whose plan a migration made stale (another process upgraded the schema) is
 * named afresh on its next use; the request that met it is answered 503, to be retried.
 */
function nameStatements(client: pg.PoolClient): void {
  const names = new Map<string, string>();
  let counter = 0;
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  client.query = ((text: unknown, values?: unknown, ...rest: unknown[]) => {
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || rest.length > 0) return query(text, values, ...rest);
    if (isPlannedPerRequest(text)) return query(text, values);
    let name = names.get(text);
    if (name === undefined && names.size < NAMED_PER_CONNECTION) names.set(text, (name = `tycho_${++counter}`));
    if (name === undefined) return query(text, values);
    return query({ name, text, values }).catch((error: unknown) => {
      if (isStalePlan(error)) {
        names.delete(text);
        throw Object.assign(new Error(`statement plan changed by a migration: ${(error as Error).message}`), { code: STALE_PLAN });
      }
      throw error;
    });
  }) as typeof client.query;
}

/**
 * The statements every item write sends under the schema lock, written out once: built and compiled by Kysely
 * on every write they cost ~25 µs of the API thread's time per create (a CPU profile).
 */
const LOCK_TEXT = {
  shared: 'select pg_advisory_xact_lock_shared(hashtextextended(k, 0)) from unnest($1::text[]) as k',
  exclusive: 'select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest($1::text[]) as k',
} as const;
/** tycho_schema_held, the shared schema lock and tycho_schema_is in one statement: migrations 0025, 0027. */
const guardStatement = (orgId: string, tag: string): Compilable<{ ok: boolean }> => ({
  compile: () => CompiledQuery.raw('select tycho_schema_held($1, $2) as ok', [orgId, tag]),
});

export async function openPostgres(url: string, poolSize: number): Promise<Store> {
  // Pipeline mode: a client sends a statement without waiting for the answers before it (pipeline.ts decides
  // when a transaction waits). `pipeline` is newer than pg's published types.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5000, pipeline: true } as pg.PoolConfig);
  // A client losing its connection must not crash the process: the query in flight fails (503), the pool
  // drops the client, and the next query connects afresh.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    nameStatements(client);
    pipelineTransactions(client);
  });
  const db = new Kysely<Database>({ dialect: new GuardedPostgresDialect({ pool }) });
  const changes = changeSignals(url);
  const engine: Engine = {
    name: 'postgres',
    rowLocks: true,
    writableCtes: true,
    lateralJoins: true,
    exactChangeTokens: false,
    // Advisory locks on 64-bit hashes of the keys: two keys sharing a hash only make one writer wait longer.
    // unnest yields the keys in order, so they are taken in the caller's (sorted) order. Their answer is not
    // read, so pipeline.ts does not wait for them (it recognises exactly these two texts).
    lock: async (trx, keys, mode) => {
      await trx.executeQuery(CompiledQuery.raw(LOCK_TEXT[mode], [keys]));
    },
    readAhead,
    guardSchema: (trx, orgId, tag) => readAhead(trx, guardStatement(orgId, tag)),
    classify: (error) => {
      const code = (error as { code?: unknown })?.code;
      // 23503: a row this write refers to was deleted by a transaction that committed while the statement ran
      // (snapshots are per statement); run again, the write sees it gone and answers for that.
      if (code === '40001' || code === '40P01' || code === '23503') return 'retry';
      if (code === '23505') return 'conflict';
      if (code === 'TY001') return 'stale-schema';
      return undefined;
    },
    changeToken: async (topic) => changes.token(topic),
    announce: (trx, topic) => changes.announce(trx, topic),
    listen: (topic, listener) => changes.listen(topic, listener),
    analyze: async (db) => {
      await sql`analyze`.execute(db);
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    // Kysely's destroy() ends the pool.
    close: () => changes.close(),
  };
  try {
    await migrate(db, POSTGRES_TYPES);
  } catch (error) {
    await db.destroy();
    await changes.close();
    throw error;
  }
  return new SqlStore(db, engine);
}
