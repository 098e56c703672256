// Files through HTTP (reference §5.15; issue 5): multipart upload with a display name and item associations
// in both SDK encodings, validation (422, 415, 413), signed download URLs (Tycho extension /tycho/downloads:
// exact bytes, no bearer token, forged or expired links 404), list / retrieve / delete, organization
// isolation, the file_created activity, and read-only keys.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertBareNotFound, BLOB_STORES, ENGINES, TEST_KEY, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { assertInvalid, makeItem, text, collectionPointer, type CollectionPointer } from '../helpers/items.ts';
import { download, downloadBytes, postMultipart, referencedKeys, storedKeys, type Part } from '../helpers/multipart.ts';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { multipartBodyLimit } from '../../src/http/uploads.ts';
import { activitiesOfType, listIds } from '../helpers/activities.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ID = /^[1-9A-HJ-NP-Za-km-z]{22}$/;
const UNKNOWN_ID = '1111111111111111111111';
const HOUR = 3600 * 1000;

const filePart = (filename: string, content: string | Buffer, contentType = 'text/plain'): Part => ({ name: 'file', filename, content, contentType });

async function upload(h: Harness, parts: Part[], key?: string): Promise<any> {
  const res = await postMultipart(h, '/v0/files', parts, key);
  assert.equal(res.status, 201, res.text);
  return res.body;
}


const fileIds = (h: Harness, key?: string) => listIds(h, '/v0/files?limit=100', key);
const fileCreatedActivities = (h: Harness) => activitiesOfType(h, 'activity/file_created');

/** A signed URL with one query parameter replaced. */
function withParam(downloadUrl: string, name: string, value: string): string {
  const url = new URL(downloadUrl);
  url.searchParams.set(name, value);
  return url.toString();
}

for (const engine of ENGINES) for (const blobs of BLOB_STORES) {
  describe(`files: upload, validation, activity (${engine}, ${blobs} store)`, () => {
    let h: Harness;
    let people: CollectionPointer;
    let companies: CollectionPointer;
    let ada: any;
    let acme: any;
    before(async () => {
      h = await createHarness(engine, { blobs });
      ada = await makeItem(h, 'people', { name: text('Ada Lovelace') });
      acme = await makeItem(h, 'organizations', { name: text('Acme') });
      people = await collectionPointer(h, 'people');
      companies = await collectionPointer(h, 'organizations');
    });
    after(() => h.close());

    it('uploads a file: 201 with the file shape; name defaults to the filename', async () => {
      const res = await postMultipart(h, '/v0/files', [filePart('report.txt', 'hello world')]);
      assert.equal(res.status, 201, res.text);
      const f = res.body;
      assert.match(f.id, ID);
      assert.equal(f.type, 'file');
      assert.equal(f.name, 'report.txt');
      assert.equal(f.filename, 'report.txt');
      assert.equal(f.size, 11);
      assert.deepEqual(f.associations, []);
      assert.match(f.created_at, ISO_MS);
      assert.equal(f.updated_at, f.created_at);
      assert.equal(typeof f.download_url, 'string');
      assert.ok(f.download_url.startsWith('http://localhost:80/tycho/downloads/'), f.download_url);
      assert.deepEqual(Object.keys(f).sort(), ['associations', 'created_at', 'download_url', 'filename', 'id', 'name', 'size', 'type', 'updated_at']);
    });

    it('a `name` field sets the display name; the filename stays the original', async () => {
      const f = await upload(h, [{ name: 'name', value: 'Quarterly report' }, filePart('q3.pdf', '%PDF-1.4', 'application/pdf')]);
      assert.equal(f.name, 'Quarterly report');
      assert.equal(f.filename, 'q3.pdf');
      assert.equal(f.size, 8);
      assert.equal((await h.get(`/v0/files/${f.id}`)).body.name, 'Quarterly report');
    });

    it('associations as form fields associations[][id] / associations[][type] (TypeScript SDK) are expanded with the collection', async () => {
      const f = await upload(h, [
        filePart('ts.txt', 'ts'),
        { name: 'associations[][id]', value: ada.id },
        { name: 'associations[][type]', value: 'item' },
        { name: 'associations[][id]', value: acme.id },
        { name: 'associations[][type]', value: 'item' },
      ]);
      assert.deepEqual(f.associations, [
        { id: ada.id, type: 'item', collection: people },
        { id: acme.id, type: 'item', collection: companies },
      ]);
      assert.deepEqual((await h.get(`/v0/files/${f.id}`)).body.associations, f.associations);
    });

    it('associations as indexed form fields associations[N][id] / associations[N][type] are read in index order; other associations… fields → 422', async () => {
      const f = await upload(h, [
        filePart('indexed.txt', 'indexed'),
        { name: 'associations[1][id]', value: ada.id },
        { name: 'associations[0][id]', value: acme.id },
        { name: 'associations[0][type]', value: 'item' },
      ]);
      assert.deepEqual(f.associations, [
        { id: acme.id, type: 'item', collection: companies },
        { id: ada.id, type: 'item', collection: people },
      ]);
      // Regression: these were ignored, and the file created without its links.
      const before = await fileIds(h);
      assertInvalid(await postMultipart(h, '/v0/files', [filePart('x.txt', 'x'), { name: 'associations[id]', value: ada.id }]), '/associations');
      assertInvalid(await postMultipart(h, '/v0/files', [filePart('x.txt', 'x'), { name: 'associations[0][type]', value: 'item' }]), '/associations');
      // A JSON escape of U+0000 in an id: 422 at the id on both engines (was a 500 on PostgreSQL).
      const nul = await postMultipart(h, '/v0/files', [filePart('x.txt', 'x'), { name: 'associations', value: '[{"type":"item","id":"\\u0000"}]' }]);
      assertInvalid(nul, '/associations/0/id');
      assert.deepEqual(await fileIds(h), before);
    });

    it('deleting an item removes it from the associations of its files; the file and its other associations stay', async () => {
      const doomed = await makeItem(h, 'people', { name: text('Doomed') });
      const f = await upload(h, [filePart('both.txt', 'both'), { name: 'associations', value: JSON.stringify([{ type: 'item', id: doomed.id }, { type: 'item', id: acme.id }]) }]);
      assert.equal((await h.delete(`/v0/collections/people/items/${doomed.id}`)).status, 204);
      assert.deepEqual((await h.get(`/v0/files/${f.id}`)).body.associations, [{ id: acme.id, type: 'item', collection: companies }]);
      const listed = (await h.get('/v0/files?limit=100')).body.data.find((r: { id: string }) => r.id === f.id);
      assert.deepEqual(listed.associations, [{ id: acme.id, type: 'item', collection: companies }]);
    });

    it('associations as one JSON text part are expanded with the collection', async () => {
      const f = await upload(h, [filePart('json.txt', 'json'), { name: 'associations', value: JSON.stringify([{ type: 'item', id: acme.id }]) }]);
      assert.deepEqual(f.associations, [{ id: acme.id, type: 'item', collection: companies }]);
    });

    it(
      'associations as one JSON part with Content-Type: application/json (Ruby SDK) are expanded with the collection',
      async () => {
        const f = await upload(h, [
          filePart('rb.txt', 'rb'),
          { name: 'associations', value: JSON.stringify([{ type: 'item', id: acme.id }]), contentType: 'application/json' },
        ]);
        assert.deepEqual(f.associations, [{ id: acme.id, type: 'item', collection: companies }]);
        const unknown = await postMultipart(h, '/v0/files', [
          filePart('x.txt', 'x'),
          { name: 'associations', value: JSON.stringify([{ type: 'item', id: ada.id }, { type: 'item', id: UNKNOWN_ID }]), contentType: 'application/json' },
        ]);
        assertInvalid(unknown, '/associations/1/id');
        // Nested deeper than JSON.stringify's stack: a 422 at the field (was a 400 naming the stack overflow).
        const deep = await postMultipart(h, '/v0/files', [filePart('d.txt', 'd'), { name: 'associations', value: '['.repeat(5000) + ']'.repeat(5000), contentType: 'application/json' }]);
        assertInvalid(deep, '/associations');
        assert.doesNotMatch(errorOf(deep).detail!, /call stack/);
      },
    );

    it('an unknown item in associations → 422 at /associations/<i>/id, and no file is created', async () => {
      const before = await fileIds(h);
      const res = await postMultipart(h, '/v0/files', [
        filePart('x.txt', 'x'),
        { name: 'associations', value: JSON.stringify([{ type: 'item', id: ada.id }, { type: 'item', id: UNKNOWN_ID }]) },
      ]);
      assertInvalid(res, '/associations/1/id');
      const formFields = await postMultipart(h, '/v0/files', [
        filePart('x.txt', 'x'),
        { name: 'associations[][id]', value: UNKNOWN_ID },
        { name: 'associations[][type]', value: 'item' },
      ]);
      assertInvalid(formFields, '/associations/0/id');
      assert.deepEqual(await fileIds(h), before);
    });

    it('no `file` part → 422 pointing at /file', async () => {
      const res = await postMultipart(h, '/v0/files', [{ name: 'name', value: 'Nothing' }]);
      assertInvalid(res, '/file');
    });

    it('a JSON body → 415', async () => {
      const res = await h.post('/v0/files', { name: 'x', file: 'aGVsbG8=' });
      assert.equal(res.status, 415, res.text);
      errorOf(res);
    });

    it('records exactly one activity/file_created: no actor (a key is no entity), object the file, a target per associated item', async () => {
      const beforeCount = (await fileCreatedActivities(h)).length;
      const f = await upload(h, [
        filePart('act.txt', 'activity'),
        { name: 'associations[][id]', value: ada.id },
        { name: 'associations[][type]', value: 'item' },
      ]);
      const all = await fileCreatedActivities(h);
      assert.equal(all.length, beforeCount + 1);
      const mine = all.filter((a) => a.constituents.some((c: any) => c.relation === 'object' && c.entity.id === f.id));
      assert.equal(mine.length, 1, JSON.stringify(all));
      const [activity] = mine;
      assert.equal(activity.type, 'activity/file_created');
      assert.equal(activity.occurred_at, f.created_at);
      assert.deepEqual(activity.constituents, [
        { type: 'constituent', relation: 'object', entity: { id: f.id, type: 'file' } },
        { type: 'constituent', relation: 'target', entity: { id: ada.id, type: 'item', collection: people } },
      ]);
    });

    it('a refused upload records no file_created activity', async () => {
      const beforeCount = (await fileCreatedActivities(h)).length;
      await postMultipart(h, '/v0/files', [{ name: 'name', value: 'Nothing' }]);
      await postMultipart(h, '/v0/files', [filePart('x.txt', 'x'), { name: 'associations[][id]', value: UNKNOWN_ID }]);
      assert.equal((await fileCreatedActivities(h)).length, beforeCount);
    });

    it('a read-only key cannot upload (403) but can list', async () => {
      const key = await h.readOnlyKey();
      const before = await fileIds(h);
      const res = await postMultipart(h, '/v0/files', [filePart('ro.txt', 'ro')], key);
      assert.equal(res.status, 403, res.text);
      assert.equal(errorOf(res).title, 'Forbidden');
      assert.deepEqual(await fileIds(h, key), before);
    });

    it('the store holds the contents of exactly the files that exist: refused uploads left nothing behind', async () => {
      const keys = await storedKeys(h);
      assert.ok(keys.length > 0);
      assert.deepEqual(keys, await referencedKeys(h));
    });
  });

  describe(`files: downloads, list, retrieve, delete, isolation (${engine}, ${blobs} store)`, () => {
    let h: Harness;
    let offset = 0;
    before(async () => {
      h = await createHarness(engine, { blobs, clock: () => new Date(Date.now() + offset) });
    });
    after(() => h.close());

    it('the download URL returns the exact bytes with a content-disposition naming the file, without a bearer token', async () => {
      const bytes = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 0x0d, 0x0a, 0x7f, 0x41, 0x00, 0xc3]);
      const f = await upload(h, [filePart('blob.bin', bytes, 'application/octet-stream')]);
      assert.equal(f.size, bytes.length);
      const res = await downloadBytes(h, f.download_url);
      assert.equal(res.status, 200);
      assert.ok(res.bytes.equals(bytes), res.bytes.toString('hex'));
      assert.match(String(res.headers['content-disposition']), /blob\.bin/);
      assert.match(String(res.headers['content-type']), /application\/octet-stream/);
      // Text too, with its content type.
      const t = await upload(h, [filePart('notes.txt', 'plain text\r\nline two')]);
      const got = await download(h, t.download_url);
      assert.equal(got.status, 200);
      assert.equal(got.text, 'plain text\r\nline two');
      assert.match(String(got.headers['content-disposition']), /notes\.txt/);
      assert.match(String(got.headers['content-type']), /text\/plain/);
    });

    it('a tampered signature, a swapped file id or a changed expiry → 404', async () => {
      const f = await upload(h, [filePart('secret.txt', 'secret')]);
      const g = await upload(h, [filePart('other.txt', 'other')]);
      const signature = new URL(f.download_url).searchParams.get('signature')!;
      const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
      assertBareNotFound(await download(h, withParam(f.download_url, 'signature', flipped)));
      assertBareNotFound(await download(h, withParam(f.download_url, 'signature', '')));
      // g's path with f's signature and expiry.
      const swapped = new URL(f.download_url);
      swapped.pathname = new URL(g.download_url).pathname;
      assertBareNotFound(await download(h, swapped.toString()));
      const expires = Number(new URL(f.download_url).searchParams.get('expires'));
      assertBareNotFound(await download(h, withParam(f.download_url, 'expires', String(expires + 3600))));
      // The genuine URL still works.
      assert.equal((await download(h, f.download_url)).status, 200);
    });

    it('an expired link → 404; a fresh GET gives a new URL that works', async () => {
      const f = await upload(h, [filePart('old.txt', 'aged')]);
      offset = 2 * HOUR;
      try {
        assertBareNotFound(await download(h, f.download_url));
        const fresh = await h.get(`/v0/files/${f.id}`);
        assert.equal(fresh.status, 200);
        assert.notEqual(fresh.body.download_url, f.download_url);
        const res = await download(h, fresh.body.download_url);
        assert.equal(res.status, 200);
        assert.equal(res.text, 'aged');
        // The list's URL is fresh too.
        const listed = (await h.get('/v0/files?limit=100')).body.data.find((x: any) => x.id === f.id);
        assert.equal((await download(h, listed.download_url)).status, 200);
      } finally {
        offset = 0;
      }
    });

    it('GET /v0/files lists full files; GET /v0/files/{id} returns one with a working download_url', async () => {
      const f = await upload(h, [{ name: 'name', value: 'Listed' }, filePart('listed.txt', 'listed')]);
      const list = await h.get('/v0/files?limit=100');
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.type, 'list');
      const listed = list.body.data.find((x: any) => x.id === f.id);
      assert.ok(listed);
      const { download_url: _a, ...restListed } = listed;
      const { download_url: _b, ...restCreated } = f;
      assert.deepEqual(restListed, restCreated);
      const one = await h.get(`/v0/files/${f.id}`);
      assert.equal(one.status, 200, one.text);
      const { download_url: url, ...restOne } = one.body;
      assert.deepEqual(restOne, restCreated);
      assert.equal((await download(h, url)).text, 'listed');
      assertBareNotFound(await h.get(`/v0/files/${UNKNOWN_ID}`));
    });

    it('DELETE → 204 with no body; then GET, DELETE and the old download URL → 404', async () => {
      const f = await upload(h, [filePart('gone.txt', 'gone')]);
      const res = await h.delete(`/v0/files/${f.id}`);
      assert.equal(res.status, 204, res.text);
      assert.equal(res.text, '');
      assertBareNotFound(await h.get(`/v0/files/${f.id}`));
      assertBareNotFound(await h.delete(`/v0/files/${f.id}`));
      assertBareNotFound(await download(h, f.download_url));
      assert.equal((await fileIds(h)).includes(f.id), false);
    });

    it('a file of several MiB streams in and out byte for byte (several parts in a bucket)', async () => {
      const bytes = randomBytes(6 * 1024 * 1024 + 123);
      const f = await upload(h, [filePart('big.bin', bytes, 'application/octet-stream')]);
      assert.equal(f.size, bytes.length);
      const res = await downloadBytes(h, f.download_url);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-length'], String(bytes.length));
      assert.ok(res.bytes.equals(bytes));
      assert.equal((await h.delete(`/v0/files/${f.id}`)).status, 204);
    });

    it('DELETE removes the stored contents too', async () => {
      const f = await upload(h, [filePart('bytes.txt', 'bytes')]);
      const { blobKey } = (await h.store.files.find(h.orgId, f.id))!;
      (await h.blobs.get(blobKey))!.stream.destroy();
      assert.equal((await h.delete(`/v0/files/${f.id}`)).status, 204);
      assert.equal(await h.blobs.get(blobKey), undefined);
      assert.deepEqual(await storedKeys(h), await referencedKeys(h));
    });

    it("another organization's key: GET and DELETE → 404, and the file is not listed", async () => {
      const f = await upload(h, [filePart('ours.txt', 'ours')]);
      const other = await h.newOrg();
      assertBareNotFound(await h.get(`/v0/files/${f.id}`, { key: other.key }));
      assertBareNotFound(await h.delete(`/v0/files/${f.id}`, { key: other.key }));
      assert.equal((await fileIds(h, other.key)).includes(f.id), false);
      assert.equal((await h.get(`/v0/files/${f.id}`)).status, 200);
      // Their own upload is theirs only.
      const theirs = await upload(h, [filePart('theirs.txt', 'theirs')], other.key);
      assertBareNotFound(await h.get(`/v0/files/${theirs.id}`));
      assert.equal((await download(h, theirs.download_url)).text, 'theirs');
    });

    it("another organization's item cannot be associated (422)", async () => {
      const other = await h.newOrg();
      const theirs = await makeItem(h, 'people', { name: text('Theirs') }, { key: other.key });
      const res = await postMultipart(h, '/v0/files', [filePart('x.txt', 'x'), { name: 'associations[][id]', value: theirs.id }, { name: 'associations[][type]', value: 'item' }]);
      assertInvalid(res, '/associations/0/id');
    });
  });

  describe(`files: upload limit (${engine}, ${blobs} store)`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine, { blobs, env: { TYCHO_UPLOAD_LIMIT: '1000' } });
    });
    after(() => h.close());

    it('an upload over the limit → 413 and no file (nor activity) is created; one under it is accepted', async () => {
      const res = await postMultipart(h, '/v0/files', [filePart('big.bin', Buffer.alloc(1500, 7), 'application/octet-stream')]);
      assert.equal(res.status, 413, res.text);
      errorOf(res);
      assert.deepEqual(await fileIds(h), []);
      assert.deepEqual(await fileCreatedActivities(h), []);
      assert.deepEqual(await storedKeys(h), []);
      const ok = await upload(h, [filePart('small.bin', Buffer.alloc(900, 7), 'application/octet-stream')]);
      assert.equal(ok.size, 900);
      assert.deepEqual(await fileIds(h), [ok.id]);
    });

    it('a multipart body announced larger than any upload can be → 413 before it is read, and the connection is closed (was: read to its end)', async () => {
      const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
      const socket = connect(Number(new URL(base).port), '127.0.0.1');
      const answer = new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString('latin1')));
        socket.on('close', () => resolve(text));
      });
      socket.on('error', () => {});
      socket.write(
        `POST /v0/files HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_KEY}\r\nContent-Type: multipart/form-data; boundary=b\r\n` +
          `Content-Length: ${multipartBodyLimit(1000) + 1}\r\n\r\n--b\r\n`,
      );
      // Answered and closed with most of the announced body never sent.
      const text = await answer;
      assert.match(text, /^HTTP\/1\.1 413 /);
      assert.match(text, /"payload_too_large"/);
      // A body within it is read and judged (here: it holds no file part).
      const empty = await h.request('POST', '/v0/files', { payload: Buffer.from('--b--\r\n'), headers: { 'content-type': 'multipart/form-data; boundary=b' } });
      assertInvalid(empty, "/file");
    });
  });
}

for (const engine of ENGINES) {
  describe(`files: pre-signed bucket download URLs, TYCHO_BLOB_PRESIGNED_DOWNLOADS (${engine})`, () => {
    let h: Harness;
    // The bucket checks expiry against its own clock, so the test's clock stands still near the real time.
    const now = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    before(async () => {
      h = await createHarness(engine, { blobs: 's3', clock: () => new Date(now), env: { TYCHO_BLOB_PRESIGNED_DOWNLOADS: 'true' } });
    });
    after(() => h.close());

    it('download_url is a URL of the bucket, signed at the clock for an hour, serving the bytes under the filename', async () => {
      const f = await upload(h, [filePart('signed report.txt', 'from the bucket')]);
      const url = new URL(f.download_url);
      assert.equal(url.searchParams.get('X-Amz-Expires'), '3600');
      assert.equal(url.searchParams.get('X-Amz-Date'), now.toISOString().replace(/[-:]|\.000/g, ''));
      assert.ok(url.pathname.endsWith(`/uploads/${h.orgId}/${f.id}`), url.pathname);
      // The URL is the bucket's own: s3rver checks the signature against the time it was made for.
      const res = await fetch(f.download_url);
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(await res.text(), 'from the bucket');
      assert.match(String(res.headers.get('content-disposition')), /signed%20report\.txt/);
      assert.match(String(res.headers.get('content-type')), /text\/plain/);
      const listed = (await h.get('/v0/files')).body.data[0];
      assert.equal(new URL(listed.download_url).origin, url.origin);
      assert.equal((await h.delete(`/v0/files/${f.id}`)).status, 204);
      assert.equal((await fetch(f.download_url)).status, 404);
    });
  });
}
