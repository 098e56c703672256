// The stand-in toolkit's sandboxes, snapshots and reset through HTTP (issue 16): admin-only sandboxes, empty or
// cloned from a snapshot with every id renamed and files copied; snapshots restored in place with ids and
// cursors as they were; reset to the initial state; deletion removing everything, files' bytes included; and
// who may do what.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_KEY, ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { makeItem, text } from '../helpers/items.ts';
import { downloadBytes, postMultipart } from '../helpers/multipart.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { createApiKey } from '../../src/domain/api-keys.ts';

const admin = { key: ADMIN_KEY };
/** The system collections every new organization has. */
const SYSTEM_REFS = ['deals', 'organizations', 'people', 'tasks'];

async function newSandbox(h: Harness, body: Record<string, unknown> = {}): Promise<{ id: string; key: string; body: any }> {
  const res = await h.post('/v0/tycho/admin/sandboxes', body, admin);
  assert.equal(res.status, 201, res.text);
  return { id: res.body.id, key: res.body.api_key, body: res.body };
}

async function ids(h: Harness, url: string, key: string): Promise<string[]> {
  const res = await h.get(url, { key });
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((x: { id: string }) => x.id);
}

async function upload(h: Harness, key: string, content: string, associations: unknown[] = []): Promise<any> {
  const res = await postMultipart(
    h,
    '/v0/files',
    [
      { name: 'file', filename: 'notes.txt', content, contentType: 'text/plain' },
      { name: 'associations', value: JSON.stringify(associations) },
    ],
    key,
  );
  assert.equal(res.status, 201, res.text);
  return res.body;
}

for (const engine of ENGINES) {
  describe(`toolkit: sandboxes, snapshots, reset (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('only admin keys manage sandboxes: an ordinary key gets 403 with the envelope', async () => {
      for (const [method, url] of [
        ['POST', '/v0/tycho/admin/sandboxes'],
        ['GET', '/v0/tycho/admin/sandboxes'],
        ['DELETE', '/v0/tycho/admin/sandboxes/1ChFLYDsNehG6QDPrqx815'],
      ] as const) {
        const res = await h.request(method, url, method === 'POST' ? { body: {} } : {});
        assert.equal(res.status, 403, `${method} ${url}: ${res.text}`);
        errorOf(res);
      }
    });

    it("a sandbox belongs to the organization whose admin key made it: another organization's admin key neither sees, deletes nor clones from it", async () => {
      const { organization } = await ensureOrganization(h.store, `other-admins-${engine}`);
      const other = { key: (await createApiKey(h.store, organization.id, { admin: true })).token };
      const mine = await newSandbox(h);
      assert.equal((await h.post('/v0/tycho/snapshots', { name: 'mine' }, { key: mine.key })).status, 201);
      assert.equal((await h.post('/v0/tycho/snapshots', { name: 'home' }, admin)).status, 201);
      // Regression: any admin key listed, deleted and cloned every organization's sandboxes and snapshots.
      const listed = await h.get('/v0/tycho/admin/sandboxes', other);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.data, []);
      assert.equal((await h.delete(`/v0/tycho/admin/sandboxes/${mine.id}`, other)).status, 404);
      for (const [organization_id, snapshot] of [[h.orgId, 'home'], [mine.id, 'mine']]) {
        const stolen = await h.post('/v0/tycho/admin/sandboxes', { snapshot, organization_id }, other);
        assert.equal(stolen.status, 422, stolen.text);
        assert.equal(errorOf(stolen).source?.pointer, '/organization_id');
      }
      // Without a snapshot too (was: 201, an empty sandbox, the organization_id ignored).
      for (const organization_id of [h.orgId, 'xyz']) {
        const refused = await h.post('/v0/tycho/admin/sandboxes', { organization_id }, other);
        assert.equal(refused.status, 422, refused.text);
        assert.equal(errorOf(refused).source?.pointer, '/organization_id');
      }
      assert.equal((await h.get('/v0/collections', { key: mine.key })).status, 200, 'the sandbox is intact');
      // Its own organization's admin key manages it, and clones from its own snapshots or its sandboxes'.
      assert.ok((await h.get('/v0/tycho/admin/sandboxes', admin)).body.data.some((x: { id: string }) => x.id === mine.id));
      assert.equal((await newSandbox(h, { snapshot: 'home' })).body.snapshot, 'home');
      assert.equal((await newSandbox(h, { snapshot: 'mine', organization_id: mine.id })).body.snapshot, 'mine');
      // A sandbox's own key is no admin key: it cannot make sandboxes of the sandbox either.
      assert.equal((await h.post('/v0/tycho/admin/sandboxes', {}, { key: mine.key })).status, 403);
    });

    it('a clone lists the snapshot it came from, and its copied webhook endpoints are disabled', async () => {
      const source = await newSandbox(h);
      const endpoint = await h.post('/v0/webhook_endpoints', { url: 'https://127.0.0.1:9/hook', subscriptions: [{ event_type: 'activity/item_created' }] }, { key: source.key });
      assert.equal(endpoint.status, 201, endpoint.text);
      assert.equal((await h.post('/v0/tycho/snapshots', { name: 'with-hook' }, { key: source.key })).status, 201);
      const clone = await newSandbox(h, { snapshot: 'with-hook', organization_id: source.id });
      const listed = (await h.get('/v0/tycho/admin/sandboxes', admin)).body.data.find((x: { id: string }) => x.id === clone.id);
      assert.equal(listed.snapshot, 'with-hook');
      const copies = (await h.get('/v0/webhook_endpoints', { key: clone.key })).body.data;
      assert.equal(copies.length, 1);
      assert.equal(copies[0].url, 'https://127.0.0.1:9/hook');
      assert.equal(copies[0].status, 'disabled', "a test's events must not reach the source's receiver");
      assert.equal((await h.get(`/v0/webhook_endpoints/${endpoint.body.id}`, { key: source.key })).body.status, 'enabled');
    });

    it('ordinary organizations cannot be snapshot, reset or have their clock set by their own keys', async () => {
      for (const [url, body] of [
        ['/v0/tycho/snapshots', { name: 'x' }],
        ['/v0/tycho/reset', undefined],
        ['/v0/tycho/clock/freeze', {}],
      ] as const) {
        const res = await h.post(url, body);
        assert.equal(res.status, 403, `${url}: ${res.text}`);
        errorOf(res);
      }
    });

    it('an empty sandbox has the system collections and nothing else, and its own key', async () => {
      const sandbox = await newSandbox(h, { name: `empty-${engine}` });
      assert.equal(sandbox.body.type, 'tycho_sandbox');
      assert.equal(sandbox.body.name, `empty-${engine}`);
      assert.match(sandbox.key, /^tycho_/);
      const refs = (await h.get('/v0/collections', { key: sandbox.key })).body.data.map((c: { ref: string }) => c.ref).sort();
      assert.deepEqual(refs, SYSTEM_REFS);
      assert.deepEqual(await ids(h, '/v0/notes', sandbox.key), []);
      // Isolated: the harness organization's data is invisible.
      await makeItem(h, 'people', { name: text('Outside') });
      assert.deepEqual(await ids(h, '/v0/collections/people/items', sandbox.key), []);
      const list = await h.get('/v0/tycho/admin/sandboxes', admin);
      assert.ok(list.body.data.some((s: { id: string }) => s.id === sandbox.id));
    });

    it('a name in use is a 409; an unknown snapshot is a 422 at /snapshot, a blank or long name at /name', async () => {
      await newSandbox(h, { name: `taken-${engine}` });
      const taken = await h.post('/v0/tycho/admin/sandboxes', { name: `taken-${engine}` }, admin);
      assert.equal(taken.status, 409, taken.text);
      const missing = await h.post('/v0/tycho/admin/sandboxes', { snapshot: 'nope' }, admin);
      assert.equal(missing.status, 422, missing.text);
      assert.equal(errorOf(missing).source?.pointer, '/snapshot');
      for (const name of ['', '   ', 'x'.repeat(300)]) {
        const bad = await h.post('/v0/tycho/admin/sandboxes', { name }, admin);
        assert.equal(bad.status, 422, bad.text);
        assert.equal(errorOf(bad).source?.pointer, '/name');
      }
    });

    it('a sandbox cloned from a snapshot has the same data under new ids, links and files included, and is independent', async () => {
      const source = await newSandbox(h);
      const ada = await makeItem(h, 'people', { name: text('Ada') }, { key: source.key });
      const acme = await makeItem(h, 'organizations', { name: text('Acme') }, { key: source.key });
      const note = await h.post('/v0/notes', { body: 'Met Ada', associations: [{ type: 'item', id: ada.id }] }, { key: source.key });
      assert.equal(note.status, 201, note.text);
      const file = await upload(h, source.key, 'file bytes', [{ type: 'item', id: acme.id }]);
      const saved = await h.post('/v0/tycho/snapshots', { name: 'baseline' }, { key: source.key });
      assert.equal(saved.status, 201, saved.text);
      assert.equal(saved.body.name, 'baseline');
      assert.ok(saved.body.rows > 0);

      const clone = await newSandbox(h, { snapshot: 'baseline', organization_id: source.id });
      assert.equal(clone.body.snapshot, 'baseline');
      const people = (await h.get('/v0/collections/people/items', { key: clone.key })).body.data;
      assert.equal(people.length, 1);
      assert.notEqual(people[0].id, ada.id);
      assert.equal(people[0].values.name.data, 'Ada');
      const notes = (await h.get('/v0/notes', { key: clone.key })).body.data;
      assert.equal(notes.length, 1);
      assert.notEqual(notes[0].id, note.body.id);
      assert.equal(notes[0].associations[0].id, people[0].id, 'the association points at the copy');
      const files = (await h.get('/v0/files', { key: clone.key })).body.data;
      assert.equal(files.length, 1);
      assert.notEqual(files[0].id, file.id);
      const bytes = await downloadBytes(h, files[0].download_url);
      assert.equal(bytes.status, 200);
      assert.equal(bytes.bytes.toString(), 'file bytes');
      // The source's ids mean nothing in the clone, and writes in one do not show in the other.
      assert.equal((await h.get(`/v0/notes/${note.body.id}`, { key: clone.key })).status, 404);
      await makeItem(h, 'people', { name: text('Only in clone') }, { key: clone.key });
      assert.equal((await ids(h, '/v0/collections/people/items', source.key)).length, 1);
      // New records sort after the cloned ones (ids keep creation order).
      const after = await ids(h, '/v0/collections/people/items', clone.key);
      assert.equal(after.length, 2);
      assert.ok(after[0]! < after[1]!);
    });

    it('restoring a snapshot brings back the same ids and cursors; later records are gone', async () => {
      const sandbox = await newSandbox(h);
      const key = sandbox.key;
      const kept: string[] = [];
      for (const name of ['A', 'B', 'C']) kept.push((await makeItem(h, 'people', { name: text(name) }, { key })).id);
      const page = await h.get('/v0/collections/people/items?limit=1', { key });
      const cursor = page.body.meta.cursors.next;
      assert.ok(cursor);
      assert.equal((await h.post('/v0/tycho/snapshots', { name: 'three' }, { key })).status, 201);

      const later = await makeItem(h, 'people', { name: text('D') }, { key });
      assert.equal((await h.delete(`/v0/collections/people/items/${kept[0]}`, { key })).status, 204);
      const restored = await h.post('/v0/tycho/snapshots/three/restore', undefined, { key });
      assert.equal(restored.status, 200, restored.text);

      assert.deepEqual(await ids(h, '/v0/collections/people/items', key), kept);
      assert.equal((await h.get(`/v0/collections/people/items/${later.id}`, { key })).status, 404);
      const next = await h.get(`/v0/collections/people/items?limit=1&after=${encodeURIComponent(cursor)}`, { key });
      assert.equal(next.status, 200, next.text);
      assert.deepEqual(next.body.data.map((i: { id: string }) => i.id), [kept[1]]);
      // The snapshot stays and can be listed, restored again and deleted.
      const listed = await h.get('/v0/tycho/snapshots', { key });
      assert.deepEqual(listed.body.data.map((s: { name: string }) => s.name), ['three']);
      assert.equal((await h.delete('/v0/tycho/snapshots/three', { key })).status, 204);
      assert.equal((await h.post('/v0/tycho/snapshots/three/restore', undefined, { key })).status, 404);
    });

    it('restoring puts back deleted files and removes the bytes of files made after the snapshot', async () => {
      const sandbox = await newSandbox(h);
      const key = sandbox.key;
      const early = await upload(h, key, 'early');
      assert.equal((await h.post('/v0/tycho/snapshots', { name: 'files' }, { key })).status, 201);
      assert.equal((await h.delete(`/v0/files/${early.id}`, { key })).status, 204);
      const late = await upload(h, key, 'late');
      assert.equal((await h.post('/v0/tycho/snapshots/files/restore', undefined, { key })).status, 200);
      const restored = await h.blobs.get(`${sandbox.id}/${early.id}`);
      assert.equal(Buffer.concat(await restored!.stream.toArray()).toString(), 'early');
      assert.equal(await h.blobs.get(`${sandbox.id}/${late.id}`), undefined);
      const fetched = (await h.get(`/v0/files/${early.id}`, { key })).body;
      assert.equal((await downloadBytes(h, fetched.download_url)).bytes.toString(), 'early');
    });

    it('reset empties the organization back to its system collections, files included', async () => {
      const sandbox = await newSandbox(h);
      const key = sandbox.key;
      await makeItem(h, 'people', { name: text('Gone') }, { key });
      const made = await h.post('/v0/collections', { name: 'Projects', ref: 'projects' }, { key });
      assert.equal(made.status, 201, made.text);
      const file = await upload(h, key, 'gone');
      const reset = await h.post('/v0/tycho/reset', undefined, { key });
      assert.equal(reset.status, 204, reset.text);
      const refs = (await h.get('/v0/collections', { key })).body.data.map((c: { ref: string }) => c.ref).sort();
      assert.deepEqual(refs, SYSTEM_REFS);
      assert.deepEqual(await ids(h, '/v0/collections/people/items', key), []);
      assert.deepEqual(await ids(h, '/v0/files', key), []);
      assert.equal(await h.blobs.get(`${sandbox.id}/${file.id}`), undefined);
      // The collection ref is free again: re-running a setup script does not pile up projects_2.
      const again = await h.post('/v0/collections', { name: 'Projects', ref: 'projects' }, { key });
      assert.equal(again.status, 201, again.text);
      assert.equal(again.body.ref, 'projects');
    });

    it('deleting a sandbox removes its data, keys, snapshots and files', async () => {
      const sandbox = await newSandbox(h);
      const file = await upload(h, sandbox.key, 'bytes');
      assert.equal((await h.post('/v0/tycho/snapshots', { name: 'before-delete' }, { key: sandbox.key })).status, 201);
      const snapshotId = (await h.get('/v0/tycho/snapshots', { key: sandbox.key })).body.data[0].id;
      const res = await h.delete(`/v0/tycho/admin/sandboxes/${sandbox.id}`, admin);
      assert.equal(res.status, 204, res.text);
      assert.equal((await h.get('/v0/notes', { key: sandbox.key })).status, 401);
      assert.equal(await h.blobs.get(`${sandbox.id}/${file.id}`), undefined);
      assert.equal(await h.blobs.get(`snapshots/${snapshotId}/${sandbox.id}/${file.id}`), undefined);
      assert.equal((await h.delete(`/v0/tycho/admin/sandboxes/${sandbox.id}`, admin)).status, 404);
      // Only the organization's sandboxes are there to delete: the organization itself is not one of them.
      const own = await h.delete(`/v0/tycho/admin/sandboxes/${h.orgId}`, admin);
      assert.equal(own.status, 404, own.text);
    });

    it('deleting a sandbox removes every row, more items than one delete statement takes included', async () => {
      const sandbox = await newSandbox(h);
      // 1,001 items with a value row each: the items and their value rows go by id, 1,000 per statement.
      for (let i = 0; i <= 1000; i++) {
        const res = await h.post('/v0/collections/people/items', { values: { name: text(`Bulk ${i}`) } }, { key: sandbox.key });
        assert.equal(res.status, 201, res.text);
      }
      assert.ok((await h.store.orgState.read(sandbox.id)).rows > 2000);
      const mine = await ids(h, '/v0/collections/people/items?limit=100', h.key);
      assert.equal((await h.delete(`/v0/tycho/admin/sandboxes/${sandbox.id}`, admin)).status, 204);
      assert.deepEqual(await h.store.orgState.read(sandbox.id), { tables: {}, rows: 0 });
      assert.deepEqual(await ids(h, '/v0/collections/people/items?limit=100', h.key), mine);
    });

    it('a snapshot name is checked and names its pointer', async () => {
      const sandbox = await newSandbox(h);
      const res = await h.post('/v0/tycho/snapshots', { name: 'no spaces' }, { key: sandbox.key });
      assert.equal(res.status, 422, res.text);
      assert.equal(errorOf(res).source?.pointer, '/name');
    });
  });
}
