// The blob store going away and coming back (issue 19): with the bucket unreachable, uploads, downloads and
// deletes answer 503 with the retry-later detail a database outage gives, change nothing, and /readyz fails;
// when the bucket returns, service resumes by itself.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness, type Response } from '../helpers/harness.ts';
import { download, postMultipart, referencedKeys, storedKeys } from '../helpers/multipart.ts';
import { startS3Server, type S3Server } from '../helpers/s3-server.ts';
import { createInbox } from '../../src/domain/inboxes.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function assertUnavailable(res: Response): void {
  assert.equal(res.status, 503, res.text);
  const error = errorOf(res);
  assert.equal(error.title, 'Service Unavailable');
  assert.match(error.detail ?? '', /temporarily unavailable.*retry later/i);
}

for (const engine of ENGINES) {
  describe(`blob store outage (${engine})`, () => {
    let h: Harness;
    let s3: S3Server;
    before(async () => {
      s3 = await startS3Server();
      h = await createHarness(engine, { s3 });
    });
    after(async () => {
      await h.close();
      await s3.stop();
    });

    it('answers 503 while the bucket is unreachable, writes and deletes nothing, and recovers by itself', async () => {
      const file = (await postMultipart(h, '/v0/files', [{ name: 'file', filename: 'kept.txt', content: 'kept' }])).body;
      const inbox = await createInbox(h.store, h.orgId, { name: 'Support', email: 'support@tycho.test' });
      const draft = (await h.post('/v0/inbox_messages', { inbox_id: inbox.id, body: 'x' })).body;
      await s3.stop();
      try {
        assertUnavailable(await postMultipart(h, '/v0/files', [{ name: 'file', filename: 'new.txt', content: 'new' }]));
        assertUnavailable(await download(h, file.download_url));
        assertUnavailable(await h.delete(`/v0/files/${file.id}`));
        assert.equal((await h.get(`/v0/files/${file.id}`)).status, 200, 'the refused delete left the file');
        assertUnavailable(await h.post(`/v0/inbox_messages/${draft.id}/attachments`, { file_id: file.id }));
        assert.equal((await h.app.inject({ url: '/readyz' })).statusCode, 503);
        assert.equal((await h.app.inject({ url: '/healthz' })).statusCode, 200);
        assert.deepEqual((await h.get('/v0/files')).body.data.map((f: { id: string }) => f.id), [file.id]);
      } finally {
        await s3.start();
      }
      assert.equal((await h.app.inject({ url: '/readyz' })).statusCode, 200);
      assert.equal((await download(h, file.download_url)).text, 'kept');
      assert.deepEqual(await storedKeys(h), await referencedKeys(h));
      assert.equal((await h.delete(`/v0/files/${file.id}`)).status, 204);
      assert.deepEqual(await storedKeys(h), []);
    });
  });
}

for (const engine of ENGINES) {
  describe(`local blob directory that cannot be written (${engine})`, () => {
    let h: Harness;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'tycho-blob-outage-'));
      h = await createHarness(engine, { env: { TYCHO_BLOB_URL: join(dir, 'blobs') } });
    });
    after(async () => {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('an upload answers 503, not a 400 about a malformed body naming a path on the server', async () => {
      rmSync(join(dir, 'blobs'), { recursive: true, force: true });
      writeFileSync(join(dir, 'blobs'), 'not a directory');
      const res = await postMultipart(h, '/v0/files', [{ name: 'file', filename: 'new.txt', content: 'new' }]);
      assertUnavailable(res);
      assert.doesNotMatch(res.text, new RegExp(dir));
      assert.deepEqual((await h.get('/v0/files')).body.data, []);
    });
  });
}
