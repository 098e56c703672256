// Statements prepared once per shape (store/sql/shapes.ts): built and compiled once, each later call's values
// put where the placeholders were, including a placeholder with a constant after it (a prefix range's end).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { Binder, bindAll, Shapes, slot } from '../../src/store/sql/shapes.ts';
import { writeTogether } from '../../src/store/sql/write-together.ts';

const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });

describe('shapes', () => {
  it('builds a shape once and runs it with each call’s values', () => {
    const shapes = new Shapes('sqlite');
    let builds = 0;
    const build = () => {
      builds++;
      return db.selectFrom('t').select('a').where('a', '>=', slot(0)).where('a', '<', `${slot(0)}\u{10FFFF}`).where('b', '=', slot(1)).where('c', '=', 'fixed');
    };
    const first = shapes.statement('prefix', ['ab', 7], build);
    const second = shapes.statement('prefix', ['xy', 8], build);
    assert.equal(builds, 1);
    assert.equal(second.sql, first.sql);
    assert.deepEqual(first.parameters, ['ab', 'ab\u{10FFFF}', 7, 'fixed']);
    assert.deepEqual(second.parameters, ['xy', 'xy\u{10FFFF}', 8, 'fixed']);
    assert.notEqual(second.queryId, first.queryId);
  });

  it('refuses a shape whose value was written into the SQL text', () => {
    const shapes = new Shapes('sqlite');
    assert.throws(() => shapes.statement('inlined', ['x'], () => db.selectFrom('t').select(sql.lit(slot(0)).as('v'))), /SQL text/);
  });

  it('refuses a shape whose value was changed before it reached a parameter', () => {
    const shapes = new Shapes('sqlite');
    assert.throws(() => shapes.statement('changed', ['x'], () => db.selectFrom('t').select('a').where('a', 'like', `%${slot(0)}%`)), /changed/);
  });

  it('keeps what memo builds per shape', () => {
    const shapes = new Shapes('sqlite');
    const made = shapes.memo('k', () => ({ n: 1 }));
    assert.equal(shapes.memo('k', () => ({ n: 2 })), made);
  });

  it('binds values to slots in order, and refuses an undefined one', () => {
    const { values, bind } = new Binder();
    assert.equal(bind('a'), slot(0));
    assert.equal(bind(null), slot(1));
    assert.deepEqual(bindAll({ x: 3, y: 'b' }, bind), { x: slot(2), y: slot(3) });
    assert.deepEqual(values, ['a', null, 3, 'b']);
    assert.throws(() => bind(undefined), /undefined/);
  });

  it('writes each call’s rows, built once per shape key', async () => {
    const raw = new BetterSqlite3(':memory:');
    raw.exec('create table parent (id text primary key, name text); create table child (parent_id text, n integer)');
    const local = new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) });
    const engine = { name: 'sqlite' as const, writableCtes: false };
    let builds = 0;
    const write = async (id: string, name: string | null, ns: number[]) => {
      const binder = new Binder();
      const { bind } = binder;
      const parent = { id: bind(id), name: bind(name) };
      const children = ns.map((n) => ({ parent_id: parent.id, n: bind(n) }));
      await writeTogether(local as never, engine, `family ${children.length}`, binder, [
        (q: any) => (builds++, q.insertInto('parent').values(parent)),
        (q: any) => q.insertInto('child').values(children),
      ]);
    };
    await write('p1', 'one', [1, 2]);
    await write('p2', null, [3, 4]);
    await write('p3', 'three', [5]);
    // One build per statement of each shape: two shapes, the first met twice.
    assert.equal(builds, 2);
    assert.deepEqual(raw.prepare('select * from parent order by id').all(), [
      { id: 'p1', name: 'one' },
      { id: 'p2', name: null },
      { id: 'p3', name: 'three' },
    ]);
    assert.deepEqual(raw.prepare('select * from child order by n').all(), [
      { parent_id: 'p1', n: 1 },
      { parent_id: 'p1', n: 2 },
      { parent_id: 'p2', n: 3 },
      { parent_id: 'p2', n: 4 },
      { parent_id: 'p3', n: 5 },
    ]);
    await local.destroy();
  });
});
