// The fuzzer's "failed requests write nothing" check is only as good as its table fingerprints, which reuse
// what they read while nothing was committed (harness.ts): every committed insert, update and delete must
// still show, and nothing else may.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES } from '../helpers/harness.ts';
import { createFuzzHarness, diffSnapshots, type FuzzHarness, type Snapshot } from './harness.ts';
import { createTagset, deleteTagset, updateTagset } from '../../src/domain/tagsets.ts';

const tablesIn = (diff: string[]) => diff.map((line) => line.split(':')[0]);

for (const engine of ENGINES) {
  describe(`fuzz fingerprints (${engine})`, { concurrency: false }, () => {
    let h: FuzzHarness;
    let last: Snapshot;
    /** The tables changed since the previous call. */
    const changed = async () => {
      const now = await h.snapshot();
      const diff = diffSnapshots(last, now);
      last = now;
      return tablesIn(diff);
    };
    let id: string;

    before(async () => {
      h = await createFuzzHarness(engine);
      last = await h.snapshot();
    });
    after(() => h?.close());

    it('nothing committed: no change', async () => {
      assert.deepEqual(await changed(), []);
      assert.deepEqual(await changed(), []);
    });

    it('an insert, an update that keeps the row count, and a delete each show in their table', async () => {
      id = (await createTagset(h.store, h.orgId, { name: 'Colours', tags: [{ name: 'red' }] })).id;
      assert.deepEqual(await changed(), ['table tagsets']);
      await updateTagset(h.store, h.orgId, id, { name: 'Colors' });
      assert.deepEqual(await changed(), ['table tagsets']);
      await deleteTagset(h.store, h.orgId, id);
      assert.deepEqual(await changed(), ['table tagsets']);
    });

    it('a transaction rolled back leaves no change', async () => {
      await assert.rejects(
        h.store.transaction(async (tx) => {
          await createTagset(tx, h.orgId, { name: 'Never' });
          throw new Error('roll back');
        }),
        /roll back/,
      );
      assert.deepEqual(await changed(), []);
    });
  });
}
