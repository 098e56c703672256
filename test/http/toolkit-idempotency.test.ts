// Idempotency-Key on writes through HTTP (issue 16): the first answer replayed for a retry of the same request
// (with Idempotent-Replayed: true), 422 for the same key on another request, 409 while the first is in flight,
// keys per organization and kept 24 hours on the organization clock, racing retries creating one record, and a
// client that drops its connection before the answer and retries over a real socket.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { ADMIN_KEY, ENGINES, TEST_KEY, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { credentialKey, fingerprintOf, NOT_KEPT } from '../../src/domain/idempotency.ts';
import { authenticate, createApiKey } from '../../src/domain/api-keys.ts';
import { BOUNDARY, multipartBody } from '../helpers/multipart.ts';

let counter = 0;
const freshKey = () => `key-${process.pid}-${++counter}`;
const withKey = (key: string, extra: Record<string, string> = {}) => ({ headers: { 'idempotency-key': key, ...extra } });

async function noteCount(h: Harness, body: string, key?: string): Promise<number> {
  const res = await h.get('/v0/notes?limit=100', key ? { key } : {});
  return res.body.data.filter((n: { body: { markdown: string } }) => n.body.markdown === body).length;
}

for (const engine of ENGINES) {
  describe(`toolkit: Idempotency-Key (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('a retry of the same POST replays the first answer and creates nothing', async () => {
      const key = freshKey();
      const first = await h.post('/v0/notes', { body: 'once' }, withKey(key));
      assert.equal(first.status, 201, first.text);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const retry = await h.post('/v0/notes', { body: 'once' }, withKey(key));
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.match(String(retry.headers['content-type']), /application\/json/);
      assert.deepEqual(retry.body, first.body);
      assert.notEqual(retry.headers['x-request-id'], first.headers['x-request-id']);
      assert.equal(await noteCount(h, 'once'), 1);
    });

    it('the same key with another body, path or method is a 422', async () => {
      const key = freshKey();
      assert.equal((await h.post('/v0/notes', { body: 'a' }, withKey(key))).status, 201);
      for (const res of [await h.post('/v0/notes', { body: 'b' }, withKey(key)), await h.post('/v0/tagsets', { name: 'a' }, withKey(key))]) {
        assert.equal(res.status, 422, res.text);
        const error = errorOf(res);
        assert.equal(error.code, 'idempotency_key_reused');
        assert.equal(error.source?.parameter, 'Idempotency-Key');
      }
    });

    it('PATCH and DELETE replay too: a retried DELETE answers 204 again, not 404', async () => {
      const note = (await h.post('/v0/notes', { body: 'to delete' })).body;
      const key = freshKey();
      assert.equal((await h.delete(`/v0/notes/${note.id}`, withKey(key))).status, 204);
      const retry = await h.delete(`/v0/notes/${note.id}`, withKey(key));
      assert.equal(retry.status, 204);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      const other = (await h.post('/v0/tagsets', { name: 'patched' })).body;
      const patchKey = freshKey();
      const patched = await h.patch(`/v0/tagsets/${other.id}`, { name: 'renamed' }, withKey(patchKey));
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual((await h.patch(`/v0/tagsets/${other.id}`, { name: 'renamed' }, withKey(patchKey))).body, patched.body);
    });

    it('error answers are replayed as well', async () => {
      const key = freshKey();
      const first = await h.post('/v0/notes', { body: '' }, withKey(key));
      assert.equal(first.status, 422, first.text);
      const retry = await h.post('/v0/notes', { body: '' }, withKey(key));
      assert.equal(retry.status, 422);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.deepEqual(retry.body, first.body);
    });

    it('a malformed key is a 400 naming the header; GET ignores the header', async () => {
      const res = await h.post('/v0/notes', { body: 'x' }, withKey('has spaces'));
      assert.equal(res.status, 400, res.text);
      assert.equal(errorOf(res).source?.parameter, 'Idempotency-Key');
      assert.equal((await h.post('/v0/notes', { body: 'x' }, withKey('k'.repeat(256)))).status, 400);
      assert.equal((await h.get('/v0/notes', withKey('has spaces'))).status, 200);
    });

    it('a request the schema refuses is answered and kept like any other (was: the key stayed free)', async () => {
      const key = freshKey();
      const first = await h.post('/v0/notes', { body: 5 }, withKey(key));
      assert.equal(first.status, 422, first.text);
      const retry = await h.post('/v0/notes', { body: 5 }, withKey(key));
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.deepEqual(retry.body, first.body);
      assert.equal(errorOf(await h.post('/v0/notes', { body: 'valid now' }, withKey(key))).code, 'idempotency_key_reused');
    });

    it('an upload retried with a new multipart boundary (curl and FormData pick one per send) is the same request', async () => {
      const key = freshKey();
      const upload = (boundary: string) =>
        h.request('POST', '/v0/files', {
          payload: Buffer.from(multipartBody([{ name: 'file', filename: 'retry.txt', content: 'retried' }]).toString('latin1').replaceAll(BOUNDARY, boundary), 'latin1'),
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'idempotency-key': key },
        });
      const first = await upload('A'.repeat(BOUNDARY.length));
      assert.equal(first.status, 201, first.text);
      const retry = await upload('B'.repeat(BOUNDARY.length));
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.body.id, first.body.id);
    });

    it('two different uploads of the same size under one key: the second is a 422, not the first file again', async () => {
      const key = freshKey();
      const upload = (content: string) => h.request('POST', '/v0/files', { payload: multipartBody([{ name: 'file', filename: 'same-size.txt', content }]), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'idempotency-key': key } });
      const first = await upload('AAAA');
      assert.equal(first.status, 201, first.text);
      const other = await upload('BBBB');
      assert.equal(other.status, 422, other.text);
      assert.equal(errorOf(other).source?.parameter, 'Idempotency-Key');
      // The same bytes again are the same request.
      const again = await upload('AAAA');
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body.id, first.body.id);
    });

    it('the same object in another key order is the same request', async () => {
      const key = freshKey();
      const first = await h.post('/v0/tagsets', { name: 'ordered', tags: [{ name: 'a', color: 'red' }] }, withKey(key));
      assert.equal(first.status, 201, first.text);
      const retry = await h.post('/v0/tagsets', { tags: [{ color: 'red', name: 'a' }], name: 'ordered' }, withKey(key));
      assert.equal(retry.headers['idempotent-replayed'], 'true', retry.text);
      assert.equal(retry.body.id, first.body.id);
    });

    it('answers are replayed only to the credential that made the request: another key runs it afresh, and is authorised first', async () => {
      const key = freshKey();
      const sandbox = await h.post('/v0/tycho/admin/sandboxes', {}, { ...withKey(key), key: ADMIN_KEY });
      assert.equal(sandbox.status, 201, sandbox.text);
      // Regression: an ordinary key sending the admin's key got the sandbox and its API key replayed.
      const ordinary = await h.post('/v0/tycho/admin/sandboxes', {}, withKey(key));
      assert.equal(ordinary.status, 403, ordinary.text);
      const sameNote = freshKey();
      const mine = await h.post('/v0/notes', { body: 'per credential' }, withKey(sameNote));
      const otherKey = (await createApiKey(h.store, h.orgId)).token;
      const theirs = await h.post('/v0/notes', { body: 'per credential' }, { ...withKey(sameNote), key: otherKey });
      assert.equal(theirs.status, 201, theirs.text);
      assert.equal(theirs.headers['idempotent-replayed'], undefined);
      assert.notEqual(theirs.body.id, mine.body.id);
    });

    it('a replayed sandbox creation does not show the API key again: keys are kept only as hashes', async () => {
      const key = freshKey();
      const first = await h.post('/v0/tycho/admin/sandboxes', {}, { ...withKey(key), key: ADMIN_KEY });
      assert.equal(first.status, 201, first.text);
      const retry = await h.post('/v0/tycho/admin/sandboxes', {}, { ...withKey(key), key: ADMIN_KEY });
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.equal(retry.body.id, first.body.id);
      assert.equal(retry.body.api_key, NOT_KEPT);
      assert.equal((await h.get('/v0/notes', { key: first.body.api_key })).status, 200, 'the key shown first works');
    });

    it('a restore retried with its key is replayed, not run again over the writes since', async () => {
      const sandbox = (await h.post('/v0/tycho/admin/sandboxes', {}, { key: ADMIN_KEY })).body;
      const key = sandbox.api_key;
      assert.equal((await h.post('/v0/tycho/snapshots', { name: 'base' }, { key })).status, 201);
      const idem = freshKey();
      const restored = await h.post('/v0/tycho/snapshots/base/restore', undefined, { ...withKey(idem), key });
      assert.equal(restored.status, 200, restored.text);
      assert.equal((await h.post('/v0/notes', { body: 'after the restore' }, { key })).status, 201);
      const retry = await h.post('/v0/tycho/snapshots/base/restore', undefined, { ...withKey(idem), key });
      assert.equal(retry.headers['idempotent-replayed'], 'true', retry.text);
      assert.equal(await noteCount(h, 'after the restore', key), 1, 'the note written since the restore is still there');
    });

    it('keys belong to one organization', async () => {
      const other = await h.newOrg();
      const key = freshKey();
      assert.equal((await h.post('/v0/notes', { body: 'mine' }, withKey(key))).status, 201);
      const theirs = await h.post('/v0/notes', { body: 'theirs' }, { ...withKey(key), key: other.key });
      assert.equal(theirs.status, 201, theirs.text);
      assert.equal(theirs.headers['idempotent-replayed'], undefined);
    });

    it('while the first request is in flight a retry gets 409; an abandoned claim is taken over after a minute', async () => {
      const key = freshKey();
      const body = { body: 'in flight' };
      const fingerprint = fingerprintOf({ method: 'POST', url: '/v0/notes', contentType: 'application/json', body });
      const claimedAtMs = Date.now();
      // As a request of the same credential in another process would have claimed it.
      const stored = credentialKey((await authenticate(h.store, TEST_KEY))!, key);
      assert.equal(await h.store.idempotency.claim({ orgId: h.orgId, key: stored, fingerprint, createdAt: new Date().toISOString(), claimedAtMs }), true);
      const busy = await h.post('/v0/notes', body, withKey(key));
      assert.equal(busy.status, 409, busy.text);
      assert.equal(errorOf(busy).code, 'idempotency_key_in_use');
      // Regression: it said "retry" but carried x-should-retry: false, which stops the SDKs' own retries.
      assert.equal(busy.headers['x-should-retry'], 'true');
      // The process that claimed it "died": once the claim is a minute old, the retry runs.
      await h.store.idempotency.release(h.orgId, stored, claimedAtMs);
      assert.equal(await h.store.idempotency.claim({ orgId: h.orgId, key: stored, fingerprint, createdAt: new Date().toISOString(), claimedAtMs: Date.now() - 61_000 }), true);
      const taken = await h.post('/v0/notes', body, withKey(key));
      assert.equal(taken.status, 201, taken.text);
      assert.equal(await noteCount(h, 'in flight'), 1);
    });

    it('a claim notes, in the commit of each write of its request, that it wrote: one left by a process that died after writing is not run again', async () => {
      const principal = (await authenticate(h.store, TEST_KEY))!;
      const wrote = async (key: string) => (await h.store.idempotency.find(h.orgId, credentialKey(principal, key)))?.wrote;
      const written = freshKey();
      assert.equal((await h.post('/v0/notes', { body: 'noted' }, withKey(written))).status, 201);
      assert.equal(await wrote(written), true, 'the note and the mark committed together');
      const refused = freshKey();
      assert.equal((await h.post('/v0/notes', { body: '' }, withKey(refused))).status, 422);
      assert.equal(await wrote(refused), false, 'nothing was written');

      // A process that wrote and died before keeping its answer (as its write transaction would have marked it).
      const key = freshKey();
      const body = { body: 'written then lost' };
      const stored = credentialKey(principal, key);
      const fingerprint = fingerprintOf({ method: 'POST', url: '/v0/notes', contentType: 'application/json', body });
      const claimedAtMs = Date.now() - 61_000;
      assert.equal(await h.store.idempotency.claim({ orgId: h.orgId, key: stored, fingerprint, createdAt: new Date().toISOString(), claimedAtMs }), true);
      await h.store.transaction((tx) => tx.idempotency.markWritten(h.orgId, stored, claimedAtMs));
      const retry = await h.post('/v0/notes', body, withKey(key));
      // Regression: the retry took the claim over and ran the request again, writing twice.
      assert.equal(retry.status, 409, retry.text);
      assert.equal(errorOf(retry).code, 'idempotency_answer_lost');
      assert.equal(retry.headers['x-should-retry'], 'false');
      assert.equal(await noteCount(h, 'written then lost'), 0, 'not run here');
    });

    it('reads sent as POST (item search, global search) ignore the key, as GET does: nothing is kept', async () => {
      const principal = (await authenticate(h.store, TEST_KEY))!;
      const key = freshKey();
      for (const path of ['/v0/collections/people/items/search', '/v0/search?query=ada']) {
        const first = await h.post(path, {}, withKey(key));
        const again = await h.post(path, {}, withKey(key));
        assert.equal(first.status, 200, first.text);
        assert.equal(again.status, 200, again.text);
        assert.equal(again.headers['idempotent-replayed'], undefined, path);
      }
      // Regression: each search's whole answer was kept for a day under its key, by read-only keys too.
      assert.equal(await h.store.idempotency.find(h.orgId, credentialKey(principal, key)), undefined);
    });

    it('racing retries of one request create one record', async () => {
      const key = freshKey();
      const answers = await Promise.all(Array.from({ length: 8 }, () => h.post('/v0/notes', { body: 'raced' }, withKey(key))));
      const statuses = answers.map((a) => a.status);
      assert.ok(statuses.every((s) => s === 201 || s === 409), statuses.join(','));
      assert.ok(statuses.includes(201));
      assert.equal(await noteCount(h, 'raced'), 1);
      const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id));
      assert.equal(ids.size, 1);
    });

    it('keys are kept 24 hours on the organization clock', async () => {
      const sandbox = await h.post('/v0/tycho/admin/sandboxes', {}, { key: ADMIN_KEY });
      const key = sandbox.body.api_key;
      assert.equal((await h.post('/v0/tycho/clock/freeze', { at: '2030-01-01T00:00:00Z' }, { key })).status, 200);
      const idem = freshKey();
      const first = await h.post('/v0/notes', { body: 'daily' }, { ...withKey(idem), key });
      await h.post('/v0/tycho/clock/advance', { hours: 23 }, { key });
      assert.equal((await h.post('/v0/notes', { body: 'daily' }, { ...withKey(idem), key })).headers['idempotent-replayed'], 'true');
      await h.post('/v0/tycho/clock/advance', { hours: 2 }, { key });
      const later = await h.post('/v0/notes', { body: 'daily' }, { ...withKey(idem), key });
      assert.equal(later.status, 201);
      assert.equal(later.headers['idempotent-replayed'], undefined);
      assert.notEqual(later.body.id, first.body.id);
    });
  });

  describe(`toolkit: Idempotency-Key over a real socket (${engine})`, () => {
    let h: Harness;
    let base: string;
    before(async () => {
      h = await createHarness(engine);
      base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(() => h.close());

    it('an upload cut off mid-body leaves its key free: the retry uploads the file (was: the 400 replayed for a day)', async () => {
      const key = freshKey();
      const body = multipartBody([{ name: 'file', filename: 'cut.bin', content: Buffer.alloc(64 * 1024, 7) }]);
      const { port } = new URL(base);
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        `POST /v0/files HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_KEY}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
          `Idempotency-Key: ${key}\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body.subarray(0, body.length / 2));
      const stored = credentialKey((await authenticate(h.store, TEST_KEY))!, key);
      for (let i = 0; i < 1000 && !(await h.store.idempotency.find(h.orgId, stored)); i++) await new Promise((resolve) => setTimeout(resolve, 2));
      assert.ok(await h.store.idempotency.find(h.orgId, stored), 'the upload claimed its key');
      socket.destroy();
      // Once the server has given up on the cut-off upload, its claim is gone, not settled with the 400.
      let left = await h.store.idempotency.find(h.orgId, stored);
      for (let i = 0; i < 1000 && left && !left.response; i++) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        left = await h.store.idempotency.find(h.orgId, stored);
      }
      assert.equal(left, undefined);
      const retry = await fetch(`${base}/v0/files`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'idempotency-key': key }, body: new Uint8Array(body) });
      assert.equal(retry.status, 201, await retry.clone().text());
      assert.equal(retry.headers.get('idempotent-replayed'), null);
      const file = (await retry.json()) as { id: string; size: number };
      assert.equal(file.size, 64 * 1024);
      // And it is kept: the same upload again is replayed.
      const again = await fetch(`${base}/v0/files`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'idempotency-key': key }, body: new Uint8Array(body) });
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(((await again.json()) as { id: string }).id, file.id);
    });

    it('a client that drops the connection before the answer and retries gets the first answer, and one note exists', async () => {
      const key = freshKey();
      const payload = JSON.stringify({ body: 'dropped' });
      const { port } = new URL(base);
      // Send the whole request and, once the server is working on it (its key is claimed), hang up without
      // reading the answer, as a client timing out does.
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        `POST /v0/notes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\n` +
          `Idempotency-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
      );
      const stored = credentialKey((await authenticate(h.store, TEST_KEY))!, key);
      for (let i = 0; i < 1000 && !(await h.store.idempotency.find(h.orgId, stored)); i++) await new Promise((resolve) => setTimeout(resolve, 2));
      socket.destroy();
      // Retry as the SDKs do: a 409 means the first is still being answered; retry again.
      let res: Response | undefined;
      for (let attempt = 0; attempt < 200; attempt++) {
        res = await fetch(`${base}/v0/notes`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', 'idempotency-key': key }, body: payload });
        if (res.status !== 409) break;
        await res.text();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.equal(res!.status, 201);
      assert.equal(res!.headers.get('idempotent-replayed'), 'true');
      const note = (await res!.json()) as { id: string; body: { markdown: string } };
      assert.equal(note.body.markdown, 'dropped');
      assert.equal(await noteCount(h, 'dropped'), 1);
    });
  });
}
