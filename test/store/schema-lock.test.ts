// The organization's schema lock (store.lockSchema): an item write that waits for a schema change works with
// the schema that change committed — the tag is read by a statement after the lock's (on PostgreSQL in the same
// round trip), so this pins that the tag is the one the lock found, not the one a snapshot taken before it saw.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openStoreWithRaw, untilWaitingOnLock, type RawStore } from '../helpers/raw-store.ts';
import { ENGINES } from '../helpers/harness.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { createField, deleteField } from '../../src/domain/collection-fields.ts';
import type { AppError } from '../../src/domain/errors.ts';
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
      await untilWaitingOnLock(s.raw);
      release();
      await change;
      const { item, schema } = await write;
      const region = schema.byRef.get('region');
      assert.ok(region, 'the write used the schema with the new field');
      assert.deepEqual(item.values[region.id], ['EMEA']);
    });

    // A write goes on with the tag this process read last, guarded (sql-store.ts lockSchema): whatever the stale
    // schema made of the request, the transaction runs again on the current one when another process changed it.
    describe('a write on the schema this process saw last, when another process has changed it since', () => {
      const text = (data: string) => ({ type: 'value/text/single_line', data });
      let other: Awaited<ReturnType<RawStore['another']>>;
      before(async () => {
        other = await s.another();
      });
      const warm = () => createItem(s.store, principal, 'people', { values: { name: text('Warm') } });

      it('takes a value of a field added there (the stale schema refused it: the guard decides, not the 422)', async () => {
        await warm();
        await createField(other, principal.orgId, 'people', { type: 'field/text/single_line', name: 'Nickname' });
        const { item, schema } = await createItem(s.store, principal, 'people', { values: { name: text('Ada'), nickname: text('Countess') } });
        assert.deepEqual(item.values[schema.byRef.get('nickname')!.id], ['Countess']);
      });

      it('refuses a create without a field made required there (the stale schema accepted it: the guard fails the commit)', async () => {
        await warm();
        await createField(other, principal.orgId, 'people', { type: 'field/text/single_line', name: 'Badge', required: true });
        await assert.rejects(createItem(s.store, principal, 'people', { values: { name: text('Grace') } }), (error: AppError) => {
          assert.equal(error.code, 'validation_failed');
          assert.equal(error.source?.pointer, '/values/badge');
          return true;
        });
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from items where org_id = ${principal.orgId} and doc like '%Grace%'`.execute(s.raw);
        assert.equal(rows[0]!.n, 0, 'nothing was written');
      });

      it('refuses a value of a field deleted there', async () => {
        await createField(s.store, principal.orgId, 'people', { type: 'field/text/single_line', name: 'Motto' });
        await createItem(s.store, principal, 'people', { values: { name: text('Warm'), badge: text('B'), motto: text('Onward') } });
        await deleteField(other, principal.orgId, 'people', 'motto');
        await assert.rejects(
          createItem(s.store, principal, 'people', { values: { name: text('Linus'), badge: text('B'), motto: text('Onward') } }),
          (error: AppError) => error.source?.pointer === '/values/motto',
        );
      });
    });
  });
}
