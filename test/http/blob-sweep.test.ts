// The sweeper of unreferenced blobs (domain/blob-sweep.ts, `tycho blobs sweep`) on both blob stores: contents
// no row names are removed once older than the cut-off; the contents of files and attachments, young blobs
// and keys of other shapes stay.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { BLOB_STORES, ENGINES, createHarness, type Harness } from '../helpers/harness.ts';
import { download, postMultipart, referencedKeys, storedKeys } from '../helpers/multipart.ts';
import { sweepBlobs } from '../../src/domain/blob-sweep.ts';
import { createInbox } from '../../src/domain/inboxes.ts';

for (const engine of ENGINES) for (const blobs of BLOB_STORES) {
  describe(`blob sweep (${engine}, ${blobs} store)`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine, { blobs });
    });
    after(() => h.close());

    it('removes only old blobs that no file or attachment names', async () => {
      const file = (await postMultipart(h, '/v0/files', [{ name: 'file', filename: 'kept.txt', content: 'kept' }])).body;
      const inbox = await createInbox(h.store, h.orgId, { name: 'Support', email: 'support@tycho.test' });
      const draft = (await h.post('/v0/inbox_messages', { inbox_id: inbox.id, body: 'x' })).body;
      assert.equal((await h.post(`/v0/inbox_messages/${draft.id}/attachments`, { file_id: file.id })).status, 201);
      const orphans = [`${h.orgId}/orphan1`, `${h.orgId}/attachments/orphan2`];
      for (const key of [...orphans, 'backup/2026/archive']) await h.blobs.put(key, Readable.from([Buffer.from('x')]));

      const young = await sweepBlobs(h.store, h.blobs, new Date(Date.now() - 3_600_000));
      assert.deepEqual(young, { removed: [], kept: 5 });
      const swept = await sweepBlobs(h.store, h.blobs, new Date(Date.now() + 60_000));
      assert.deepEqual(swept.removed.sort(), orphans.sort());
      assert.equal(swept.kept, 3);
      assert.deepEqual(await storedKeys(h), await referencedKeys(h));
      assert.equal((await download(h, (await h.get(`/v0/files/${file.id}`)).body.download_url)).text, 'kept');
    });
  });
}
