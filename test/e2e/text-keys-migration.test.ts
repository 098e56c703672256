// Migration 0006: SQLite databases written before it hold long-text index keys joined with U+0000. After the
// migration those keys are in the current form, so equality on a long text finds its item again.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import * as textKeys from '../../src/store/migrations/0006-text-keys.ts';
import { createHarness } from '../helpers/harness.ts';

/** The key a text over 2,000 bytes had before 0006: 1,900 bytes, U+0000, 32 hex digits of SHA-256. */
function oldTextKey(text: string): string {
  let kept = Buffer.from(text).subarray(0, 1900).toString();
  if (kept.endsWith('\uFFFD')) kept = kept.slice(0, -1);
  return `${kept}\u0000${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

describe('migration 0006 rewrites long-text keys that held U+0000 (sqlite)', () => {
  it('an equality search finds a long text stored with an old key once the migration has run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tycho-0006-'));
    const file = join(dir, 'tycho.sqlite');
    const long = `${'x€'.repeat(490)} the end`;
    const search = { filter: { field: 'name', op: 'eq', value: long } };
    try {
      let h = await createHarness('sqlite', { env: { DATABASE_URL: file } });
      const created = await h.post('/v0/collections/organizations/items', { values: { name: { type: 'value/text/single_line', data: long } } });
      assert.equal(created.status, 201, created.text);
      await h.close();

      const db = new BetterSqlite3(file);
      const fieldId = (db.prepare("select id from fields where ref = 'name' and collection_id = (select collection_id from items where id = ?)").get(created.body.id) as { id: string }).id;
      const lower = long.toLowerCase();
      db.prepare('update item_values set key_text = ?, key_rev = ? where item_id = ? and field_id = ?').run(
        oldTextKey(lower),
        oldTextKey([...lower].reverse().join('')),
        created.body.id,
        fieldId,
      );
      db.close();
      // Run 0006 again by hand: forgetting it in kysely_migration would leave later migrations out of order.
      const migrated = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) });
      await textKeys.up(migrated);
      await migrated.destroy();

      h = await createHarness('sqlite', { env: { DATABASE_URL: file } });
      const found = await h.post('/v0/collections/organizations/items/search', search);
      assert.deepEqual(found.body.data.map((r: { data: { id: string } }) => r.data.id), [created.body.id]);
      const ends = await h.post('/v0/collections/organizations/items/search', { filter: { field: 'name', op: 'ends_with', value: '€ the end' } });
      assert.deepEqual(ends.body.data.map((r: { data: { id: string } }) => r.data.id), [created.body.id]);
      await h.close();

      const check = new BetterSqlite3(file, { readonly: true });
      const left = check.prepare("select count(*) as n from item_values where instr(key_text, char(0)) > 0 or instr(key_rev, char(0)) > 0").get() as { n: number };
      check.close();
      assert.equal(left.n, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
