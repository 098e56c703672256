// Statements prepared once per shape (store/sql/shapes.ts): built and compiled once, each later call's values
// put where the placeholders were, including a placeholder with a constant after it (a prefix range's end).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { Shapes, slot } from '../../src/store/sql/shapes.ts';

const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });

describe('shapes', () => {
  it('builds a shape once and runs it with each call’s values', () => {
    const shapes = new Shapes();
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
    const shapes = new Shapes();
    assert.throws(() => shapes.statement('inlined', ['x'], () => db.selectFrom('t').select(sql.lit(slot(0)).as('v'))), /SQL text/);
  });

  it('refuses a shape whose value was changed before it reached a parameter', () => {
    const shapes = new Shapes();
    assert.throws(() => shapes.statement('changed', ['x'], () => db.selectFrom('t').select('a').where('a', 'like', `%${slot(0)}%`)), /changed/);
  });

  it('keeps what memo builds per shape', () => {
    const shapes = new Shapes();
    const made = shapes.memo('k', () => ({ n: 1 }));
    assert.equal(shapes.memo('k', () => ({ n: 2 })), made);
  });
});
