// The organization's schema lock (store.lockSchema): an item write that waits for a schema change works with
// the schema that change committed — the tag is read by a statement after the lock's (on PostgreSQL in the same
// round trip), so this pins that the tag is the one the lock found, not the one a snapshot taken before it saw.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openStoreWithRaw, type RawStore } from '../helpers/raw-store.ts';
import { ENGINES } from '../helpers/harness.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { createField } from '../../src/domain/collection-fields.ts';
import { createItem } from '../../src/domain/item-writes.ts';
import type { Principal } from '../../src/domain/api-keys.ts';

for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`schema lock (${engine})`, () => {
    let s: RawStore;
    let principal: Principal;
    before(async () => {
      s = await openStoreWithRaw(engine);
      const { organization } = await ensureOrganization(s.store, 'schema-lock');
      principal = { orgId: organization.id, scope: 'write', actor: { id: 'test', type: 'api_key' } };
    });
    after(() => s.close());

    it('an item write queued behind a field creation sees the new field once it commits', async () => {
      // The schema is cached under the current tag.
      await createItem(s.store, principal, 'deals', { values: {} });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let fieldCreated!: () => void;
      const created = new Promise<void>((resolve) => (fieldCreated = resolve));
      const change = s.store.transaction(async (tx) => {
        await createField(tx, principal.orgId, 'deals', { type: 'field/text/single_line', name: 'Region' });
        fieldCreated();
        await held;
      }, principal.orgId);
      await created;
      const write = createItem(s.store, principal, 'deals', { values: { region: { type: 'value/text/single_line', data: 'EMEA' } } });
      // Wait until the write is queued on the schema lock, then let the change commit.
      for (let waiting = 0; waiting === 0; ) {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and state = 'active'`.execute(s.raw);
        waiting = rows[0]!.n;
        if (waiting === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      release();
      await change;
      const { item, schema } = await write;
      const region = schema.byRef.get('region');
      assert.ok(region, 'the write used the schema with the new field');
      assert.deepEqual(item.values[region.id], ['EMEA']);
    });
  });
}
