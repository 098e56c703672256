// A transaction's statements not waited for until one needs an answer (store/postgres/pipeline.ts, pg's
// pipeline mode), against a real PostgreSQL: BEGIN and unread inserts and locks go on the wire at once and
// are answered with the next statement waited for or with COMMIT; parameters stay parameters; a statement
// not waited for that fails fails the transaction with its own error, and nothing of it is kept.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { isHeldBack, pipelineTransactions } from '../../src/store/postgres/pipeline.ts';
import { throwawayPostgres } from '../helpers/harness.ts';
import { UNREAD_MARK } from '../../src/store/sql/statement-marks.ts';

describe('isHeldBack', () => {
  it('holds back only inserts and marked writes whose answer nobody reads', () => {
    assert.equal(isHeldBack('insert into "notes" ("id") values ($1)'), true);
    assert.equal(isHeldBack('with "parent_row" as (update "items" set "doc" = $1) insert into "item_values" values ($2) on conflict ("a") do update set "b" = $3'), true);
    assert.equal(isHeldBack('insert into "keys" ("id") values ($1) on conflict ("id") do nothing'), false);
    assert.equal(isHeldBack('insert into "notes" ("id") values ($1) returning "id"'), false);
    assert.equal(isHeldBack('update "notes" set "body" = $1'), false);
    // Unless marked as a write whose answer its caller does not read (store/sql/statement-marks.ts).
    assert.equal(isHeldBack(`${UNREAD_MARK}update "notes" set "body" = $1`), true);
    assert.equal(isHeldBack(`${UNREAD_MARK}delete from "links" where "org_id" = $1`), true);
    assert.equal(isHeldBack('select 1'), false);
    assert.equal(isHeldBack('select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest($1::text[]) as k'), true);
    assert.equal(isHeldBack('select pg_advisory_xact_lock_shared(hashtextextended(k, 0)) from unnest($1::text[]) as k'), true);
    assert.equal(isHeldBack('select pg_notify($1, $2)'), true);
    assert.equal(isHeldBack('select pg_notify($1, $2), 1'), false);
  });
});

const url = process.env.TEST_DATABASE_URL;
describe('statements not waited for in a transaction (postgres)', { skip: url ? false : 'TEST_DATABASE_URL is not set' }, () => {
  let database: Awaited<ReturnType<typeof throwawayPostgres>>;
  let client: pg.Client;
  /** Each statement put on the wire, and how many put there before it were still unanswered then. */
  const sent: { text: string; unanswered: number }[] = [];
  /** Round trips: statements put on the wire while nothing was waiting for an answer. */
  const roundTrips = () => sent.filter((s) => s.unanswered === 0).length;

  before(async () => {
    database = await throwawayPostgres();
    client = new pg.Client({ connectionString: database.url, pipeline: true } as pg.ClientConfig);
    await client.connect();
    // pg calls a query's submit() when it writes it to the socket, and handleReadyForQuery() or handleError()
    // when its answer has come.
    const query = (pg as unknown as { Query: { prototype: Record<string, (...args: unknown[]) => unknown> } }).Query.prototype;
    const { submit, handleReadyForQuery, handleError } = query;
    let unanswered = 0;
    query.submit = function (this: { text: string }, ...args: unknown[]) {
      sent.push({ text: this.text, unanswered: unanswered++ });
      return submit!.apply(this, args);
    };
    query.handleReadyForQuery = function (this: unknown, ...args: unknown[]) {
      unanswered--;
      return handleReadyForQuery!.apply(this, args);
    };
    query.handleError = function (this: unknown, ...args: unknown[]) {
      unanswered--;
      return handleError!.apply(this, args);
    };
    pipelineTransactions(client);
    await client.query('create table t (id int primary key, note text, tags text[], at timestamptz)');
  });
  after(async () => {
    await client?.end();
    await database?.drop();
  });

  it('sends BEGIN and the first statement in one round trip, parameters as parameters', async () => {
    sent.length = 0;
    const awkward = "O'Brien \\ \"quoted\" $1 -- ünïcödé ✓";
    await client.query('begin');
    const first = (await client.query('insert into t (id, note, tags, at) values ($1, $2, $3, $4) returning *', [1, awkward, ['x', "y'z", 'b"c\\d'], new Date('2025-02-17T15:01:00Z')])) as pg.QueryResult;
    await client.query('commit');
    assert.deepEqual(first.rows, [{ id: 1, note: awkward, tags: ['x', "y'z", 'b"c\\d'], at: new Date('2025-02-17T15:01:00Z') }]);
    assert.deepEqual(
      sent.map((s) => s.unanswered),
      [0, 1, 0],
    );
    assert.equal(roundTrips(), 2);
  });

  it('writes the statements of one round trip to the socket in one write', async () => {
    const socket = (client as unknown as { connection: { stream: { _write: Function; _writev: Function } } }).connection.stream;
    const { _write, _writev } = socket;
    let writes = 0;
    socket._write = function (this: unknown, ...args: unknown[]) {
      writes++;
      return _write.apply(this, args);
    };
    socket._writev = function (this: unknown, ...args: unknown[]) {
      writes++;
      return _writev.apply(this, args);
    };
    try {
      await client.query('begin');
      await client.query('insert into t (id, note) values ($1, $2)', [7, 'seven']);
      await client.query('select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest($1::text[]) as k', [['key c']]);
      const seen = (await client.query('select count(*)::int as n from t where id = $1', [7])) as pg.QueryResult;
      assert.equal(seen.rows[0].n, 1);
      assert.equal(writes, 1, 'begin, insert, lock and select in one write');
      await client.query('insert into t (id, note) values ($1, $2)', [8, 'eight']);
      await client.query('commit');
      assert.equal(writes, 2, 'the insert and commit in one more');
    } finally {
      socket._write = _write;
      socket._writev = _writev;
    }
  });

  it('answers unread inserts with the next statement waited for, and with COMMIT', async () => {
    sent.length = 0;
    await client.query('begin');
    await client.query('select id from t where id = $1 for update', [1]);
    await client.query('insert into t (id, note) values ($1, $2)', [10, 'ten']);
    const seen = (await client.query('select count(*)::int as n from t where id = $1', [10])) as pg.QueryResult;
    assert.equal(seen.rows[0].n, 1, 'a later statement sees the insert not waited for');
    await client.query('insert into t (id, note) values ($1, $2)', [11, 'eleven']);
    await client.query('insert into t (id, note) values ($1, $2)', [12, 'twelve']);
    await client.query('commit');
    assert.equal(roundTrips(), 3, JSON.stringify(sent));
    const { rows } = await client.query('select id from t where id >= 10 order by id');
    assert.deepEqual(
      rows.map((r) => r.id),
      [10, 11, 12],
    );
  });

  it('takes a lock not waited for before the statement after it runs', async () => {
    sent.length = 0;
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest($1::text[]) as k', [['key a', "key 'b'"]]);
    const held = (await client.query('select count(*)::int as n from pg_locks where locktype = $1 and pid = pg_backend_pid()', ['advisory'])) as pg.QueryResult;
    await client.query('commit');
    assert.equal(held.rows[0].n, 2);
    assert.equal(roundTrips(), 2);
  });

  it('fails COMMIT with the error of an insert not waited for, and keeps none of the transaction', async () => {
    await client.query('begin');
    await client.query('select 1 where $1::int > 0', [1]);
    await client.query('insert into t (id, note) values ($1, $2)', [20, 'kept?']);
    await client.query('insert into t (id, note) values ($1, $2)', [1, 'duplicate']);
    await assert.rejects(client.query('commit'), /duplicate key/);
    const { rows } = await client.query('select count(*)::int as n from t where id = 20');
    assert.equal(rows[0].n, 0);
    await client.query('begin');
    await client.query('insert into t (id, note) values ($1, $2)', [21, 'after']);
    await client.query('commit');
    assert.equal((await client.query('select count(*)::int as n from t where id = 21')).rows[0].n, 1, 'the connection is usable again');
  });

  it('fails the next statement waited for with the first error, not with "transaction aborted"', async () => {
    await client.query('begin');
    await client.query('insert into t (id, note) values ($1, $2)', [1, 'duplicate']);
    await assert.rejects(client.query('select count(*)::int as n from t where id > $1', [0]), /duplicate key/);
    await client.query('rollback');
    assert.equal((await client.query('select count(*)::int as n from t where id = 1')).rows[0].n, 1);
  });

  it('rolls back what was not waited for', async () => {
    await client.query('begin');
    await client.query('insert into t (id, note) values ($1, $2)', [30, 'never']);
    await client.query('rollback');
    assert.equal((await client.query('select count(*)::int as n from t where id = 30')).rows[0].n, 0);
  });

  it('leaves a failed first statement in a transaction that rolls back', async () => {
    const count = async () => ((await client.query('select count(*)::int as n from t')) as pg.QueryResult).rows[0].n as number;
    const before = await count();
    await client.query('begin');
    await assert.rejects(client.query('insert into t (id) values ($1) returning id', [1]), /duplicate key/);
    await client.query('rollback');
    assert.equal(await count(), before);
  });

  it('waits for every statement outside a transaction', async () => {
    sent.length = 0;
    await client.query('insert into t (id, note) values ($1, $2)', [40, 'alone']);
    await client.query('insert into t (id, note) values ($1, $2)', [41, 'alone']);
    assert.equal(roundTrips(), 2);
  });
});
