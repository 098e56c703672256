// A transaction's statements held back until one needs an answer (store/postgres/pipeline.ts), against a
// real PostgreSQL: parameters written in as literals mean exactly what they meant as parameters; BEGIN goes
// with the first statement and unread inserts with the next statement or COMMIT; a held-back insert that
// fails fails the transaction, which rolls back whole; statements that cannot be inlined still run in order;
// a transaction that sent nothing sends nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { inlineParameters, isHeldBack, pipelineTransactions } from '../../src/store/postgres/pipeline.ts';
import { throwawayPostgres } from '../helpers/harness.ts';

describe('inlineParameters and isHeldBack', () => {
  it('holds back only inserts whose answer nobody reads', () => {
    assert.equal(isHeldBack('insert into "notes" ("id") values ($1)'), true);
    assert.equal(isHeldBack('with "parent_row" as (update "items" set "doc" = $1) insert into "item_values" values ($2) on conflict ("a") do update set "b" = $3'), true);
    assert.equal(isHeldBack('insert into "keys" ("id") values ($1) on conflict ("id") do nothing'), false);
    assert.equal(isHeldBack('insert into "notes" ("id") values ($1) returning "id"'), false);
    assert.equal(isHeldBack('update "notes" set "body" = $1'), false);
    assert.equal(isHeldBack('select 1'), false);
    assert.equal(isHeldBack('select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest($1::text[]) as k'), true);
    assert.equal(isHeldBack('select pg_advisory_xact_lock_shared(hashtextextended(k, 0)) from unnest($1::text[]) as k'), true);
    assert.equal(isHeldBack('select pg_notify($1, $2)'), true);
    assert.equal(isHeldBack('select pg_notify($1, $2), 1'), false);
  });

  it('writes each parameter as pg would send it, quoted', () => {
    assert.equal(inlineParameters('select $1, $2, $3, $10', [1, 'it\'s', null, 'x', 'x', 'x', 'x', 'x', 'x', true]), "select '1', 'it''s', null, 'true'");
    // Backslashes make pg's literal an escape string (E'…'), with each backslash doubled.
    assert.equal(inlineParameters('select $1::text[]', [['a', 'b"c']]), `select  E'{"a","b\\\\"c"}'::text[]`);
  });

  it('gives up where a placeholder could hide or a value cannot be text', () => {
    assert.equal(inlineParameters("select 'a$1', $1", ['x']), undefined);
    assert.equal(inlineParameters('select $1 -- $2', ['x']), undefined);
    assert.equal(inlineParameters('select $2', ['x']), undefined);
    assert.equal(inlineParameters('select $1', [Buffer.from('x')]), undefined);
    assert.equal(inlineParameters('select $1', ['a\0b']), undefined);
  });
});

const url = process.env.TEST_DATABASE_URL;
describe('statements held back in a transaction (postgres)', { skip: url ? false : 'TEST_DATABASE_URL is not set' }, () => {
  let database: Awaited<ReturnType<typeof throwawayPostgres>>;
  let client: pg.Client;
  const sent: string[] = [];

  before(async () => {
    database = await throwawayPostgres();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const send = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as { query: unknown }).query = (text: unknown, ...rest: unknown[]) => {
      sent.push(String(text));
      return send(text, ...rest);
    };
    pipelineTransactions(client);
    await client.query('create table t (id int primary key, note text, tags text[], at timestamptz)');
  });
  after(async () => {
    await client?.end();
    await database?.drop();
  });

  it('sends BEGIN with the first statement, with the same values as parameters', async () => {
    sent.length = 0;
    const awkward = "O'Brien \\ \"quoted\" ünïcödé ✓";
    await client.query('begin');
    const first = (await client.query('insert into t (id, note, tags, at) values ($1, $2, $3, $4) returning *', [1, awkward, ['x', "y'z", 'b"c\\d'], new Date('2025-02-17T15:01:00Z')])) as pg.QueryResult;
    await client.query('commit');
    assert.deepEqual(first.rows, [{ id: 1, note: awkward, tags: ['x', "y'z", 'b"c\\d'], at: new Date('2025-02-17T15:01:00Z') }]);
    assert.equal(sent.length, 2, sent.join('\n'));
    assert.match(sent[0]!, /^begin; insert into t/);
    assert.equal(sent[1], 'commit');
    const { rows } = await client.query('select note from t where id = 1');
    assert.equal(rows[0].note, awkward);
  });

  it('sends unread inserts with the next statement that needs an answer, and with COMMIT', async () => {
    sent.length = 0;
    await client.query('begin');
    await client.query('select id from t where id = $1 for update', [1]);
    await client.query('insert into t (id, note) values ($1, $2)', [10, 'ten']);
    const seen = (await client.query('select count(*)::int as n from t where id = $1', [10])) as pg.QueryResult;
    assert.equal(seen.rows[0].n, 1, 'a later statement sees the held-back insert');
    await client.query('insert into t (id, note) values ($1, $2)', [11, 'eleven']);
    await client.query('insert into t (id, note) values ($1, $2)', [12, 'twelve']);
    await client.query('commit');
    assert.equal(sent.length, 3, sent.join('\n'));
    assert.match(sent[1]!, /^insert into t .*'ten'.*; select count/);
    assert.match(sent[2]!, /'eleven'.*; insert into t .*'twelve'.*; commit$/);
    const { rows } = await client.query('select id from t where id >= 10 order by id');
    assert.deepEqual(rows.map((r) => r.id), [10, 11, 12]);
  });

  it('takes a held-back lock before the statement it travels with runs', async () => {
    sent.length = 0;
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest($1::text[]) as k', [['key a', "key 'b'"]]);
    const held = (await client.query('select count(*)::int as n from pg_locks where locktype = $1 and pid = pg_backend_pid()', ['advisory'])) as pg.QueryResult;
    await client.query('commit');
    assert.equal(held.rows[0].n, 2);
    assert.equal(sent.length, 2, sent.join('\n'));
  });

  it('fails the transaction when a held-back insert fails, and keeps none of it', async () => {
    await client.query('begin');
    await client.query('select 1 where $1::int > 0', [1]);
    await client.query('insert into t (id, note) values ($1, $2)', [20, 'kept?']);
    await client.query('insert into t (id, note) values ($1, $2)', [1, 'duplicate']);
    await assert.rejects(client.query('commit'), /duplicate key/);
    await client.query('rollback');
    const { rows } = await client.query('select count(*)::int as n from t where id = 20');
    assert.equal(rows[0].n, 0);
    await client.query('begin');
    await client.query('insert into t (id, note) values ($1, $2)', [21, 'after']);
    await client.query('commit');
    assert.equal((await client.query('select count(*)::int as n from t where id = 21')).rows[0].n, 1, 'the connection is usable again');
  });

  it('sends nothing of a transaction that rolls back before anything was sent', async () => {
    sent.length = 0;
    await client.query('begin');
    await client.query('insert into t (id, note) values ($1, $2)', [30, 'never']);
    await client.query('rollback');
    assert.deepEqual(sent, []);
  });

  it('leaves a failed first statement in a transaction that rolls back', async () => {
    const count = async () => ((await client.query('select count(*)::int as n from t')) as pg.QueryResult).rows[0].n as number;
    const before = await count();
    await client.query('begin');
    await assert.rejects(client.query('insert into t (id) values ($1) returning id', [1]), /duplicate key/);
    await client.query('rollback');
    assert.equal(await count(), before);
  });

  it('sends BEGIN on its own before a statement it cannot fold, inside the same transaction', async () => {
    sent.length = 0;
    await client.query('begin');
    await client.query("insert into t (id, note) values ($1, 'literal')", [2]);
    await client.query('rollback');
    assert.deepEqual(sent, ['begin', "insert into t (id, note) values ($1, 'literal')", 'rollback']);
    const { rows } = await client.query('select count(*)::int as n from t where id = 2');
    assert.equal(rows[0].n, 0, 'the insert was rolled back with its transaction');
  });

  it('sends nothing for a transaction that ran no statement', async () => {
    sent.length = 0;
    await client.query('begin');
    await client.query('commit');
    assert.deepEqual(sent, []);
  });
});
