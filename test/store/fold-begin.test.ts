// BEGIN sent together with a transaction's first statement (store/postgres/fold-begin.ts), against a real
// PostgreSQL: parameters written in as literals mean exactly what they meant as parameters, a failing first
// statement leaves a transaction to roll back, statements that cannot be folded still run after a BEGIN of
// their own, and a transaction that sent nothing sends no COMMIT.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { foldBegin, inlineParameters } from '../../src/store/postgres/fold-begin.ts';
import { throwawayPostgres } from '../helpers/harness.ts';

describe('inlineParameters', () => {
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
describe('BEGIN folded into the first statement (postgres)', { skip: url ? false : 'TEST_DATABASE_URL is not set' }, () => {
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
    foldBegin(client);
    await client.query('create table t (id int primary key, note text, tags text[], at timestamptz)');
  });
  after(async () => {
    await client?.end();
    await database?.drop();
  });

  it('sends one round trip for BEGIN and the first statement, with the same values as parameters', async () => {
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

  it('leaves a failed first statement in a transaction that rolls back', async () => {
    await client.query('begin');
    await assert.rejects(client.query('insert into t (id) values ($1)', [1]), /duplicate key/);
    await client.query('rollback');
    const { rows } = await client.query('select count(*)::int as n from t');
    assert.equal(rows[0].n, 1);
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
