// Saving, cloning, resetting and deleting an organization (snapshots and sandboxes) read and delete its rows in
// every table. Each of those statements must find the organization's rows through an index: a scan would read
// every organization's rows, holding SQLite's one writer for a time that grows with the whole database
// (deleting a sandbox beside 100,000 items read them all three times). Checked on the query plans SQLite
// chooses without statistics, as every server has them (Tycho runs no ANALYZE of its own).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ADMIN_KEY, createHarness, ENGINES, type Harness } from '../helpers/harness.ts';
import { rawPool } from '../helpers/raw-store.ts';
import { plansOf, recordStatements, type StatementRecorder } from '../helpers/sqlite-plans.ts';
import { email, makeItem, text } from '../helpers/items.ts';

const admin = { key: ADMIN_KEY };

/** The full-table scans SQLite plans for `statements`. */
function scans(file: string, statements: string[]): string[] {
  return plansOf(file, statements).flatMap(({ statement, steps }) => steps.filter((step) => /^SCAN (?!json_each)/.test(step)).map((step) => `${step} in: ${statement}`));
}

describe('an organization is saved, cloned, reset and deleted by index, never by scanning (sqlite)', () => {
  let h: Harness;
  let dir: string;
  let recorder: StatementRecorder;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tycho-plans-'));
    recorder = recordStatements();
    h = await createHarness('sqlite', { env: { DATABASE_URL: join(dir, 'tycho.sqlite') } });
  });
  after(async () => {
    recorder.restore();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('plans every read and delete of the organization as index searches', async () => {
    const source = await h.post('/v0/tycho/admin/sandboxes', {}, admin);
    assert.equal(source.status, 201, source.text);
    const key = source.body.api_key as string;
    const ada = await makeItem(h, 'people', { name: text('Ada'), email: [email('ada@example.com')] }, { key });
    assert.equal((await h.post('/v0/notes', { body: 'Met Ada', associations: [{ type: 'item', id: ada.id }] }, { key })).status, 201);

    recorder.start();
    assert.equal((await h.post('/v0/tycho/snapshots', { name: 'baseline' }, { key })).status, 201);
    const clone = await h.post('/v0/tycho/admin/sandboxes', { snapshot: 'baseline', organization_id: source.body.id }, admin);
    assert.equal(clone.status, 201, clone.text);
    assert.equal((await h.post('/v0/tycho/reset', {}, { key: clone.body.api_key })).status, 204);
    assert.equal((await h.delete(`/v0/tycho/admin/sandboxes/${clone.body.id}`, admin)).status, 204);
    const statements = recorder.stop();

    const organizationWide = statements.filter((s) => /^(select|delete)\b/i.test(s) && /\borg_id\b|json_each/.test(s));
    assert.ok(organizationWide.some((s) => /^delete from "items"/.test(s)), 'the deletion of the items was recorded');
    const file = join(dir, 'tycho.sqlite');
    assert.deepEqual(scans(file, organizationWide), []);
  });
});

// PostgreSQL, with statistics: beside another organization's 5,000 items, deleting a sandbox of one item
// planned `item_id in (select … its items)` as a hash over a scan of every organization's value rows, and
// reading its items through its collections (a snapshot, the ids to delete) scanned every organization's items.
for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`an organization is read and deleted by index, never by scanning (${engine})`, () => {
    let h: Harness;
    let raw: pg.Pool;
    const query = pg.Client.prototype.query;
    const sent: { text: string; values: unknown[] }[] = [];
    let recording = false;
    before(async () => {
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const [first, values] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
        const text = typeof first === 'string' ? first : first?.text;
        if (recording && typeof text === 'string' && /^(\/\*[^*]*\*\/ )*(select|delete)\b/i.test(text) && /\bitem(s|_values)\b/.test(text)) sent.push({ text, values: (typeof first === 'string' ? values : first.values) ?? [] });
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      h = await createHarness(engine);
      raw = rawPool(h.databaseUrl!);
      // The default organization's people: 5,000 items of four index rows each, written directly.
      await raw.query(`insert into items (id, org_id, collection_id, doc, wire, wire_tag, created_at, updated_at)
        select 'bulk' || lpad(n::text, 6, '0'), org_id, id, '{}', null, '', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'
        from collections, generate_series(1, 5000) as n where org_id = $1 and ref = 'people'`, [h.orgId]);
      await raw.query(`insert into item_values (item_id, field_id, position, key_text) select i.id, 'f' || k, 0, i.id from items i, generate_series(1, 4) as k where i.id like 'bulk%'`);
      await raw.query('analyze');
    });
    after(async () => {
      pg.Client.prototype.query = query;
      await raw?.end();
      await h?.close();
    });

    it('plans every read and delete of a sandbox as index searches', async () => {
      const sandbox = await h.post('/v0/tycho/admin/sandboxes', {}, admin);
      assert.equal(sandbox.status, 201, sandbox.text);
      const key = sandbox.body.api_key as string;
      await makeItem(h, 'people', { name: text('Ada'), email: [email('ada@example.com')] }, { key });
      recording = true;
      assert.equal((await h.post('/v0/tycho/snapshots', { name: 'baseline' }, { key })).status, 201);
      assert.equal((await h.delete(`/v0/tycho/admin/sandboxes/${sandbox.body.id}`, admin)).status, 204);
      recording = false;
      const valueRows = sent.filter((s) => /\bdelete from "item_values"/.test(s.text));
      assert.ok(valueRows.length > 0, 'the deletion of the value rows was recorded');
      assert.ok(sent.some((s) => /\bselect c\.\* from "items"/.test(s.text)), 'the read of the items was recorded');
      for (const statement of sent) {
        const client = await raw.connect();
        try {
          await client.query('begin');
          const plan = (await client.query(`explain ${statement.text}`, statement.values)).rows.map((r) => r['QUERY PLAN']).join('\n');
          assert.doesNotMatch(plan, /Seq Scan on (items|item_values)\b/, `${statement.text}\n${plan}`);
        } finally {
          await client.query('rollback');
          client.release();
        }
      }
      assert.equal(Number((await raw.query(`select count(*) from items where id like 'bulk%'`)).rows[0].count), 5000);
    });
  });
}
