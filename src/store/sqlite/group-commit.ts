// Group commit for SQLite's single writer: the write transactions that run during one event-loop turn share
// one SQLite transaction, each inside its own savepoint, and are acknowledged together once it has committed.
//
// Why: a commit appends every page the transaction touched to the WAL, plus a frame header and a checksum per
// page; a dozen upserts of one collection touch the same table and index pages, which one commit then writes
// once instead of a dozen times, and BEGIN/COMMIT are paid once.
//
// What holds:
// - A transaction that fails is rolled back to its savepoint alone; the others in its batch still commit.
// - Nothing is acknowledged before its COMMIT returns: `commitTransaction` waits for it, so an answer sent
//   means the write is in the WAL (kill -9 loses nothing acknowledged, as with one commit per transaction).
//   If the COMMIT fails, every transaction of the batch fails, and `lost` is told (what was remembered of the
//   batch's uncommitted state must go).
// - Nothing reads uncommitted data: a plain read waits for the open batch to commit before it runs (at most
//   one turn); a plain write statement joins the batch like a one-statement transaction.
// - Transactions never interleave: one runs at a time (a FIFO lock), as with Kysely's own SQLite driver; the
//   lock is shared by every connection of the thread, so two of them never wait for each other in SQLite. (A
//   worker thread has its own: the webhook delivery thread's connection meets the API's at SQLite's write lock,
//   and they take turns through write-turns.ts, another process's meets it at SQLite's busy handler.)
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import * as turns from './write-turns.ts';

/** A batch is committed early when it holds this many transactions (a bound on what one failure takes down). */
const MAX_BATCH = 128;
const SAVEPOINT = 'tycho_tx';

/** A strictly first-come, first-served lock. */
class FifoLock {
  private held = false;

  get free(): boolean {
    return !this.held;
  }
  private readonly waiting: (() => void)[] = [];

  async acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

/** One SQLite transaction shared by the write transactions of a turn. */
class Batch {
  /** Transactions (and plain writes) that finished inside it and wait for its COMMIT. */
  size = 0;
  /** SQLite rolled the whole transaction back (a disk or memory error): none of it can commit. */
  broken = false;
  readonly committed: Promise<void>;
  settle!: (error?: unknown) => void;

  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Nobody may be waiting yet (the batch can fail before its first transaction finishes).
    this.committed.catch(() => {});
  }
}

type StatementCache = (sql: string) => BetterSqlite3.Statement;

/**
 * One lock for every connection of this thread. SQLite waits for its write lock by blocking the thread, so
 * two connections of one thread (a test's store and an in-process command on one file) must never wait for
 * each other inside SQLite: they queue here instead, and whoever holds this lock first commits the groups the
 * others left open (no transaction can be inside them while it is held).
 */
const writeLock = new FifoLock();
const drivers = new Set<GroupCommitDriver>();

function commitOpenGroups(): void {
  for (const driver of drivers) driver.commitOpenGroup();
}

/** Runs `work` (which writes through a connection of its own) while no group of this thread is open. */
export async function exclusively<T>(work: () => Promise<T>): Promise<T> {
  await writeLock.acquire();
  try {
    commitOpenGroups();
    return await work();
  } finally {
    writeLock.release();
  }
}

/** Kysely's SQLite dialect (its compiler and introspection) over a group-committing driver. */
export class GroupCommitDialect extends SqliteDialect {
  private readonly driver: GroupCommitDriver;
  /** `lost`: called when a batch could not commit (its transactions had all finished and been rolled back). */
  constructor(database: BetterSqlite3.Database, prepare: StatementCache, lost: () => void = () => {}) {
    super({ database });
    this.driver = new GroupCommitDriver(database, prepare, lost);
  }
  override createDriver(): Driver {
    return this.driver;
  }
}

export class GroupCommitDriver implements Driver {
  private readonly lock = writeLock;
  private batch: Batch | undefined;

  constructor(
    private readonly database: BetterSqlite3.Database,
    readonly prepare: StatementCache,
    private readonly lost: () => void = () => {},
  ) {
    drivers.add(this);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new GroupConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as GroupConnection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as GroupConnection).commit();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as GroupConnection).rollback();
  }

  async releaseConnection(): Promise<void> {}

  /** Commits the open group (the caller holds the process's write lock, so no transaction is inside it). */
  commitOpenGroup(): void {
    if (this.batch && !this.batch.broken) this.commit(this.batch);
  }

  async destroy(): Promise<void> {
    drivers.delete(this);
    // Let a batch still open commit before the handle closes.
    await this.lock.acquire();
    try {
      this.commitOpenGroup();
    } finally {
      this.lock.release();
    }
    this.database.close();
  }

  execute(compiled: CompiledQuery): QueryResult<unknown> {
    return this.run(this.prepare(compiled.sql), compiled.parameters as unknown[]);
  }

  run(statement: BetterSqlite3.Statement, parameters: unknown[]): QueryResult<unknown> {
    if (statement.reader) return { rows: statement.all(parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  /** A plain read: at once when the connection is idle (it runs to completion before anything else can start). */
  read(statement: BetterSqlite3.Statement, parameters: unknown[]): QueryResult<unknown> | Promise<QueryResult<unknown>> {
    if (this.lock.free && (this.batch === undefined || this.batch.broken)) return this.run(statement, parameters);
    return this.whenCommitted(() => this.run(statement, parameters));
  }

  /** Takes the connection for a transaction or a plain write: the open batch, or a new one. */
  async join(): Promise<Batch> {
    // Before queueing for this thread's lock, so that the thread's reads are not held up meanwhile.
    if (this.batch === undefined && turns.mustWait()) await turns.awaitTurn();
    await this.lock.acquire();
    try {
      const open = this.batch;
      if (open && !open.broken && open.size < MAX_BATCH) return open;
      // A full group (this one's) and any other connection's open group commit first; then BEGIN IMMEDIATE takes
      // the write lock now, so a second process (the CLI) waits here, not half-way through.
      commitOpenGroups();
      this.database.exec('begin immediate');
      turns.began();
      const batch = new Batch();
      this.batch = batch;
      setImmediate(() => void this.flush(batch));
      return batch;
    } catch (error) {
      this.lock.release();
      throw error;
    }
  }

  /** Hands the connection on after a transaction or plain write ended inside `batch`. */
  leave(batch: Batch, finished: boolean): void {
    if (finished) batch.size++;
    // SQLite ends the whole transaction on some errors (disk full, out of memory): what the batch held is gone.
    if (!this.database.inTransaction && this.batch === batch) batch.broken = true;
    this.lock.release();
  }

  /** Runs `read` once no batch is open on the connection, so it sees only committed data. */
  async whenCommitted<T>(read: () => T): Promise<T> {
    for (;;) {
      const open = this.batch;
      if (open && !open.broken) await open.committed.catch(() => {});
      await this.lock.acquire();
      if (this.batch === undefined || this.batch.broken) break;
      // A new batch opened while this read waited for the lock: wait for that one too.
      this.lock.release();
    }
    try {
      return read();
    } finally {
      this.lock.release();
    }
  }

  private async flush(batch: Batch): Promise<void> {
    await this.lock.acquire();
    try {
      if (this.batch === batch) this.commit(batch);
      else if (batch.broken) this.fail(batch, new Error('SQLite rolled the transaction back'));
    } finally {
      this.lock.release();
    }
  }

  /** COMMITs `batch` (the caller holds the lock) and settles everyone waiting for it. */
  private commit(batch: Batch): void {
    this.batch = undefined;
    try {
      if (batch.broken || !this.database.inTransaction) {
        this.fail(batch, new Error('SQLite rolled the transaction back'));
        return;
      }
      try {
        this.database.exec('commit');
        batch.settle();
      } catch (error) {
        if (this.database.inTransaction) this.database.exec('rollback');
        this.fail(batch, error);
      }
    } finally {
      turns.ended();
    }
  }

  private fail(batch: Batch, error: unknown): void {
    this.lost();
    batch.settle(error);
  }
}

/** What Kysely holds for one query or transaction: a view of the driver's single connection. */
class GroupConnection implements DatabaseConnection {
  private batch: Batch | undefined;
  /** Inside a transaction and holding the lock (between begin and commit/rollback). */
  private holding = false;

  constructor(private readonly driver: GroupCommitDriver) {}

  async begin(): Promise<void> {
    this.batch = await this.driver.join();
    try {
      this.driver.execute(CompiledQuery.raw(`savepoint ${SAVEPOINT}`));
    } catch (error) {
      this.driver.leave(this.batch, false);
      throw error;
    }
    this.holding = true;
  }

  async commit(): Promise<void> {
    const batch = this.batch!;
    this.driver.execute(CompiledQuery.raw(`release ${SAVEPOINT}`));
    this.holding = false;
    this.driver.leave(batch, true);
    await batch.committed;
  }

  rollback(): void {
    // After a failed COMMIT of the batch there is nothing left to undo (and the lock is no longer held).
    if (!this.holding) return;
    this.holding = false;
    try {
      this.driver.execute(CompiledQuery.raw(`rollback to ${SAVEPOINT}`));
      this.driver.execute(CompiledQuery.raw(`release ${SAVEPOINT}`));
    } catch {
      // The savepoint is gone with the whole transaction: `leave` marks the batch broken.
    }
    this.driver.leave(this.batch!, false);
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.driver.prepare(compiled.sql);
    const parameters = compiled.parameters as unknown[];
    if (this.holding) return this.driver.run(statement, parameters) as QueryResult<R>;
    if (statement.readonly) return (await this.driver.read(statement, parameters)) as QueryResult<R>;
    // A plain write is a transaction of one statement: it joins the batch and is answered after its COMMIT.
    const batch = await this.driver.join();
    let result: QueryResult<R>;
    try {
      result = this.driver.run(statement, parameters) as QueryResult<R>;
    } catch (error) {
      this.driver.leave(batch, false);
      throw error;
    }
    this.driver.leave(batch, true);
    await batch.committed;
    return result;
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // Only reads stream; they are few and short, so they run whole, as one result.
    yield await this.executeQuery<R>(compiled);
  }
}
