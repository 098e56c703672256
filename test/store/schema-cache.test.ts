// The schema cache (store/sql/schema-cache.ts) across connections and rollbacks: where the engine's change
// tokens are exact (SQLite) the organization's schema tag is remembered instead of read on every request, so
// these pin that a remembered tag never hides a schema change — another process's (a second store on the
// same database, as the CLI beside a server), or one rolled back.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open-store.ts';
import { ENGINES, throwawayPostgres } from '../helpers/harness.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { createField } from '../../src/domain/collection-fields.ts';
import { createItem } from '../../src/domain/item-writes.ts';
import { loadSchema } from '../../src/domain/collection-schema.ts';
import type { Principal } from '../../src/domain/api-keys.ts';
import type { Store } from '../../src/domain/ports/store.ts';

for (const engine of ENGINES) {
  describe(`schema cache (${engine})`, () => {
    let first: Store;
    let second: Store;
    let cleanup: () => Promise<void>;
    let principal: Principal;
    before(async () => {
      if (engine === 'sqlite') {
        const dir = mkdtempSync(join(tmpdir(), 'tycho-schema-cache-'));
        const path = join(dir, 'tycho.sqlite');
        first = await openStore({ engine: 'sqlite', path });
        second = await openStore({ engine: 'sqlite', path });
        cleanup = async () => rmSync(dir, { recursive: true, force: true });
      } else {
        const database = await throwawayPostgres();
        first = await openStore({ engine: 'postgres', url: database.url, poolSize: 2 });
        second = await openStore({ engine: 'postgres', url: database.url, poolSize: 2 });
        cleanup = () => database.drop();
      }
      const { organization } = await ensureOrganization(first, 'schema-cache');
      principal = { orgId: organization.id, scope: 'write', actor: { id: 'test', type: 'api_key' } };
    });
    after(async () => {
      await first.close();
      await second.close();
      await cleanup();
    });

    const refs = async (store: Store) => [...(await loadSchema(store, principal.orgId, 'deals'))!.byRef.keys()];

    it('sees a field another connection added, on the next read and the next write', async () => {
      await createItem(first, principal, 'deals', { values: {} });
      assert.equal((await refs(first)).includes('region'), false);
      await createField(second, principal.orgId, 'deals', { type: 'field/text/single_line', name: 'Region' });
      assert.equal((await refs(first)).includes('region'), true);
      const { item, schema } = await createItem(first, principal, 'deals', { values: { region: { type: 'value/text/single_line', data: 'EMEA' } } });
      assert.deepEqual(item.values[schema.byRef.get('region')!.id], ['EMEA']);
    });

    it('forgets a field whose creation rolled back', async () => {
      await assert.rejects(
        first.transaction(async (tx) => {
          await createField(tx, principal.orgId, 'deals', { type: 'field/text/single_line', name: 'Ghost' });
          assert.equal((await refs(tx)).includes('ghost'), true, 'the transaction sees its own field');
          throw new Error('roll back');
        }, principal.orgId),
        /roll back/,
      );
      assert.equal((await refs(first)).includes('ghost'), false);
      await assert.rejects(createItem(first, principal, 'deals', { values: { ghost: { type: 'value/text/single_line', data: 'boo' } } }), /ghost/);
    });
  });
}
