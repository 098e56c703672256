// SQLite group commit (src/store/sqlite/group-commit.ts): the transactions of one turn share a COMMIT, each
// fails alone, nothing is answered before its COMMIT, and plain reads never run inside an open batch.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { GroupCommitDialect } from '../../src/store/sqlite/group-commit.ts';

interface Db {
  t: { id: number; v: string };
}

let dir: string;
let database: BetterSqlite3.Database;
let other: BetterSqlite3.Database;
let db: Kysely<Db>;
let commits: number;
/** Batches the driver reported lost (a COMMIT that failed). */
let lost: number;
/** Whether the connection was inside a transaction when each `select` ran. */
let selectsInTransaction: boolean[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tycho-group-commit-'));
  database = new BetterSqlite3(join(dir, 'db.sqlite'));
  database.pragma('journal_mode = WAL');
  database.exec('create table t (id integer primary key, v text not null unique)');
  other = new BetterSqlite3(join(dir, 'db.sqlite'));
  commits = 0;
  lost = 0;
  selectsInTransaction = [];
  const exec = database.exec.bind(database);
  database.exec = (source: string) => {
    if (source === 'commit') commits++;
    return exec(source);
  };
  const prepare = (source: string) => {
    const statement = database.prepare(source);
    if (!source.startsWith('select')) return statement;
    const all = statement.all.bind(statement);
    return Object.assign(statement, {
      all: (...parameters: unknown[]) => {
        selectsInTransaction.push(database.inTransaction);
        return all(...parameters);
      },
    });
  };
  db = new Kysely<Db>({ dialect: new GroupCommitDialect(database, prepare, () => lost++) });
});

afterEach(async () => {
  await db.destroy();
  other.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (id: number, v = `v${id}`) => db.transaction().execute((trx) => trx.insertInto('t').values({ id, v }).execute());
const committedIds = () => (other.prepare('select id from t order by id').all() as { id: number }[]).map((r) => r.id);

test('transactions started in one turn share one COMMIT, and each is answered only once it is committed', async () => {
  const seenWhenAnswered: number[][] = [];
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      insert(i + 1).then(() => {
        seenWhenAnswered.push(committedIds());
      }),
    ),
  );
  assert.equal(commits, 1);
  // Another connection already sees every row of the batch when the first answer arrives.
  for (const seen of seenWhenAnswered) assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
});

test('a group is committed early once it holds 128 transactions', async () => {
  await Promise.all(Array.from({ length: 200 }, (_, i) => insert(i + 1)));
  assert.equal(commits, 2);
  assert.equal(committedIds().length, 200);
});

test('transactions of later turns commit in later batches', async () => {
  await insert(1);
  await insert(2);
  assert.equal(commits, 2);
  assert.deepEqual(committedIds(), [1, 2]);
});

test('a failing transaction is rolled back alone; the rest of its batch commits', async () => {
  const results = await Promise.allSettled([
    insert(1),
    db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ id: 2, v: 'two' }).execute();
      await trx.insertInto('t').values({ id: 3, v: 'v1' }).execute(); // unique violation on v
    }),
    insert(4),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.match(String((results[1] as PromiseRejectedResult).reason), /UNIQUE/);
  assert.deepEqual(committedIds(), [1, 4]);
  assert.equal(commits, 1);
});

test('a failed COMMIT fails every transaction of the batch, is reported once, and the next batch works', async () => {
  const exec = database.exec.bind(database);
  database.exec = (source: string) => {
    if (source === 'commit') {
      database.exec = exec;
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    }
    return exec(source);
  };
  const results = await Promise.allSettled([insert(1), insert(2)]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  assert.deepEqual(committedIds(), []);
  assert.equal(database.inTransaction, false);
  assert.equal(lost, 1);
  await insert(3);
  assert.deepEqual(committedIds(), [3]);
  assert.equal(lost, 1);
});

test('a plain read waits for the open batch to commit instead of reading inside it', async () => {
  const order: string[] = [];
  const write = insert(1).then(() => order.push('write'));
  const read = db
    .selectFrom('t')
    .select('id')
    .execute()
    .then((rows) => order.push(`read ${rows.length}`));
  await Promise.all([write, read]);
  assert.deepEqual(selectsInTransaction, [false]);
  assert.deepEqual(order, ['write', 'read 1']);
});

test('a plain write joins the batch and is answered after its COMMIT', async () => {
  let seen: number[] = [];
  await Promise.all([
    insert(1),
    sql`insert into t (id, v) values (2, 'two')`.execute(db).then(() => {
      seen = committedIds();
    }),
  ]);
  assert.deepEqual(seen, [1, 2]);
  assert.equal(commits, 1);
});

test('a failing plain write does not disturb the batch it ran in', async () => {
  const results = await Promise.allSettled([insert(1), sql`insert into t (id, v) values (2, 'v1')`.execute(db), insert(3)]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.deepEqual(committedIds(), [1, 3]);
});

test('a transaction that waits on I/O keeps others out until it ends, and they still commit', async () => {
  const events: string[] = [];
  const slow = db.transaction().execute(async (trx) => {
    await trx.insertInto('t').values({ id: 1, v: 'slow' }).execute();
    await new Promise((resolve) => setTimeout(resolve, 20));
    events.push('slow done');
  });
  const quick = insert(2).then(() => events.push('quick answered'));
  await Promise.all([slow, quick]);
  assert.deepEqual(events, ['slow done', 'quick answered']);
  assert.deepEqual(committedIds(), [1, 2]);
});

test('two connections of one process on one file never wait for each other inside SQLite', async () => {
  // No busy timeout: a write that found the other connection holding SQLite's lock would fail at once.
  database.pragma('busy_timeout = 0');
  const second = new BetterSqlite3(join(dir, 'db.sqlite'));
  second.pragma('busy_timeout = 0');
  const db2 = new Kysely<Db>({ dialect: new GroupCommitDialect(second, (source) => second.prepare(source)) });
  try {
    const writes = Array.from({ length: 40 }, (_, i) =>
      (i % 2 === 0 ? db : db2).transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ id: i + 1, v: `v${i + 1}` }).execute();
        // Yield between statements, so the two connections' transactions interleave.
        await new Promise((resolve) => setImmediate(resolve));
        await trx.selectFrom('t').select('id').where('id', '=', i + 1).execute();
      }),
    );
    await Promise.all(writes);
    assert.equal(committedIds().length, 40);
  } finally {
    await db2.destroy();
  }
});
