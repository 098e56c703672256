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
import { ADMIN_KEY, createHarness, type Harness } from '../helpers/harness.ts';
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

    const organizationWide = statements.filter((s) => /^(select|delete)\b/i.test(s) && /\borg_id\b/.test(s));
    assert.ok(organizationWide.some((s) => /^delete from "items"/.test(s)), 'the deletion of the items was recorded');
    const file = join(dir, 'tycho.sqlite');
    assert.deepEqual(scans(file, organizationWide), []);
  });
});
