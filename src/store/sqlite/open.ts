// SQLite: one better-sqlite3 connection in WAL mode; write transactions are committed in groups
// (group-commit.ts) and begin IMMEDIATE, so a second process (the CLI next to a running server) waits for the
// lock instead of failing half-way through.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { exclusively, GroupCommitDialect } from './group-commit.ts';
import { SAFETY_NET_PAGES, startCheckpointer, type Checkpointer } from './checkpointer.ts';
import { migrate } from '../migrations/index.ts';
import { SQLITE_TYPES } from '../migrations/column-types.ts';
import { CHANGE_TOPICS, SqlStore, type ChangeTopic, type Engine } from '../sql/sql-store.ts';
import type { Database } from '../sql/schema.ts';
import type { Store } from '../../domain/ports/store.ts';

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query afresh; compiling SQL text into a statement costs more than running most of
 * ours. Reuse prepared statements by their SQL (the same text always compiles to the same plan). The set of
 * query shapes is small, so the oldest entry is the one dropped when the cache is full.
 */
function statementCache(database: BetterSqlite3.Database): (source: string) => BetterSqlite3.Statement {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return (source) => {
    let statement = cache.get(source);
    if (!statement) {
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      statement = database.prepare(source);
      cache.set(source, statement);
    }
    return statement;
  };
}

/**
 * SQLite (as better-sqlite3 builds it) keeps STAT4 samples of each index when it analyses, and then plans a
 * statement again on every execution whose parameters meet a sampled index: a one-row lookup took 25–40 µs
 * instead of 7. The planner keeps the per-index averages of sqlite_stat1, which is all our statements need
 * (measured on the bench's searches, which combine a selective and an unselective condition).
 */
function dropSamples(database: BetterSqlite3.Database): void {
  const sampled = database.prepare("select 1 from sqlite_schema where name = 'sqlite_stat4'").get() && database.prepare('select 1 from sqlite_stat4 limit 1').get();
  if (!sampled) return;
  database.exec('delete from sqlite_stat4');
  reloadStatistics(database);
}

/** This connection reads the statistics again (other connections do so when a commit has changed the schema). */
function reloadStatistics(database: BetterSqlite3.Database): void {
  database.exec('analyze sqlite_schema');
}

export interface SqliteOptions {
  /** Checkpoint from a thread of its own (a server), telling failed checkpoints here; the connection's own otherwise. */
  backgroundCheckpoints?: (message: string) => void;
}

/** Opens (creating when needed) the SQLite database at `path` — or in memory for ':memory:' — and migrates it. */
export async function openSqlite(path: string, options: SqliteOptions = {}): Promise<Store> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new BetterSqlite3(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  // Group commit runs each transaction in a savepoint, and SQLite keeps what a savepoint may have to undo in a
  // sub-journal that spills to a temporary file past 64 KiB: a batch of creates then opened, wrote page by
  // page and unlinked a file in /var/tmp. In memory, that costs a create about a fifth of its CPU less. The
  // temporary b-trees of sorts and DISTINCTs stay in memory too: lists take their order from indexes, or keep
  // one page of it (ORDER BY … LIMIT), and the rest hold a query's matching ids.
  database.pragma('temp_store = MEMORY');
  const checkpointElsewhere = options.backgroundCheckpoints !== undefined && path !== ':memory:';
  if (checkpointElsewhere) database.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
  // Without statistics SQLite may build throw-away indexes for correlated probes instead of using ours.
  database.pragma('automatic_index = off');
  // data_version moves when another connection (the CLI, another process) commits; this connection's own
  // writes are counted here.
  const ownChanges = new Map<ChangeTopic, number>();
  // A batch that failed to commit takes back changes its transactions announced, and values read inside it
  // may have been remembered (a schema tag): every topic moves again.
  const batchLost = () => {
    for (const topic of CHANGE_TOPICS) ownChanges.set(topic, (ownChanges.get(topic) ?? 0) + 1);
  };
  const db = new Kysely<Database>({ dialect: new GroupCommitDialect(database, statementCache(database), batchLost) });
  // Prepared once: `database.pragma()` compiles its statement on every call, and this runs on every request.
  const dataVersionStatement = database.prepare('PRAGMA data_version').pluck();
  // Read once per turn of the event loop: a request asks up to three times (schemas, its key, clocks), and the
  // requests of one turn may share the answer — a commit elsewhere during the turn is concurrent with them all.
  let turnVersion: number | undefined;
  const forgetVersion = () => {
    turnVersion = undefined;
  };
  const dataVersion = () => {
    if (turnVersion === undefined) {
      turnVersion = dataVersionStatement.get() as number;
      setImmediate(forgetVersion);
    }
    return turnVersion;
  };
  // Kysely's destroy() closes the better-sqlite3 handle itself; BEGIN IMMEDIATE already serialises writers,
  // so there is nothing to lock.
  let checkpointer: Checkpointer | undefined;
  const engine: Engine = {
    name: 'sqlite',
    rowLocks: false,
    writableCtes: false,
    lateralJoins: false,
    exactChangeTokens: true,
    lock: async () => {},
    classify: (error) => {
      const code = (error as { code?: unknown })?.code;
      if (typeof code !== 'string') return undefined;
      // Another process held the write lock beyond busy_timeout.
      if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_')) return 'retry';
      if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'conflict';
      return undefined;
    },
    changeToken: async (topic) => `${dataVersion()}:${ownChanges.get(topic) ?? 0}`,
    announce: async (_db, topic) => {
      ownChanges.set(topic, (ownChanges.get(topic) ?? 0) + 1);
    },
    // Other processes on the file (the CLI) cannot wake this one: their writes are found by polling.
    listen: () => () => {},
    analyze: () =>
      exclusively(async () => {
        database.exec('begin immediate');
        try {
          database.exec('analyze');
          database.exec('delete from sqlite_stat4');
          database.exec('commit');
        } finally {
          if (database.inTransaction) database.exec('rollback');
        }
        reloadStatistics(database);
      }),
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    close: async () => {
      await checkpointer?.stop();
    },
  };
  try {
    // Kysely runs SQLite migrations outside a transaction and without a lock, so two processes opening the same
    // new file could both apply a step ("table already exists"). In one immediate transaction (SQLite's DDL is
    // transactional) the second process waits, then finds the steps applied.
    // The steps run through a plain Kysely on the same handle (its close is left to `db`).
    const migrator = new Kysely<Database>({ dialect: new SqliteDialect({ database: { prepare: (source) => database.prepare(source), close: () => {} } }) });
    // Foreign keys are enforced once the steps have run. While they run they are off, as SQLite's procedure for
    // changing a table's definition asks (0021 drops a table and puts a rebuilt one in its place); after steps
    // ran, every reference is checked before they commit.
    await exclusively(async () => {
      database.pragma('foreign_keys = OFF');
      database.exec('begin immediate');
      try {
        const applied = await migrate(migrator, SQLITE_TYPES);
        const broken = applied.length === 0 ? [] : (database.pragma('foreign_key_check') as { table: string; parent: string }[]);
        if (broken.length > 0) throw new Error(`migration left ${broken.length} rows whose references fail, e.g. ${broken[0]!.table} → ${broken[0]!.parent}`);
        database.exec('commit');
      } finally {
        if (database.inTransaction) database.exec('rollback');
        database.pragma('foreign_keys = ON');
      }
      // A database analysed by an earlier version, or by hand.
      dropSamples(database);
    });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  // Started once the file exists and is migrated.
  if (checkpointElsewhere) checkpointer = startCheckpointer(path, options.backgroundCheckpoints!);
  return new SqlStore(db, engine);
}
