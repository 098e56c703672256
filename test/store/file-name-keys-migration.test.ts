// Migration 0030 gives files that existed before it the key global search compares names with, lower-cased
// beyond ASCII as a new file's is.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStoreWithRaw, type RawStore } from '../helpers/raw-store.ts';
import { ENGINES } from '../helpers/harness.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { up } from '../../src/store/migrations/0030-file-name-keys.ts';
import { POSTGRES_TYPES, SQLITE_TYPES } from '../../src/store/migrations/column-types.ts';

for (const engine of ENGINES) {
  describe(`migration 0030, file name keys (${engine})`, () => {
    let s: RawStore;
    let orgId: string;
    before(async () => {
      s = await openStoreWithRaw(engine);
      orgId = (await ensureOrganization(s.store, 'file-name-migration')).organization.id;
    });
    after(() => s.close());

    it('backfills every file with its name lower-cased as JavaScript does it', async () => {
      const names = ['École Σοφία.pdf', 'PLAIN.txt'];
      // The table as it was before the migration, with files in it; then the migration.
      await s.raw.schema.alterTable('files').dropColumn('name_key').execute();
      for (const [i, name] of names.entries()) {
        await s.raw
          .insertInto('files')
          .values({ id: `file${i}`, org_id: orgId, name, filename: name, content_type: 'text/plain', size: 1, blob_key: `k${i}`, created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z' } as never)
          .execute();
      }
      await s.raw.transaction().execute((tx) => up(tx as any, engine === 'sqlite' ? SQLITE_TYPES : POSTGRES_TYPES));
      const rows = await s.raw.selectFrom('files').select(['name', 'name_key']).where('org_id', '=', orgId).orderBy('id').execute();
      assert.deepEqual(rows.map((r) => r.name_key), ['école σοφία.pdf', 'plain.txt']);
    });
  });
}
