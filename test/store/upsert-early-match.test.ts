// An upsert matches its identifiers with the schema this process saw last, before the current schema is
// confirmed (domain/item-writes.ts `matchEarly`), so that on PostgreSQL the match shares the round trip of the
// schema tag's read (`readAhead`, store/postgres/pipeline.ts). The early match may only be kept when the
// current schema calls for the same statements: a stale schema must never decide which item is updated.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStoreWithRaw, type RawStore } from '../helpers/raw-store.ts';
import { ENGINES } from '../helpers/harness.ts';
import { openCountedStore, untilSubscriptionsRemembered, type CountedStore } from '../helpers/round-trips.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { createField, deleteField } from '../../src/domain/collection-fields.ts';
import { deleteItem, updateItem, upsertItem } from '../../src/domain/item-writes.ts';
import { REPLACE } from '../../src/domain/item-values.ts';
import type { Principal } from '../../src/domain/api-keys.ts';

const code = (data: string) => ({ code: { type: 'value/text/single_line', data } });
const name = (data: string) => ({ name: { type: 'value/text/single_line', data } });

for (const engine of ENGINES) {
  describe(`upsert matched early with a recent schema (${engine})`, () => {
    let s: RawStore;
    let principal: Principal;
    before(async () => {
      s = await openStoreWithRaw(engine);
      const { organization } = await ensureOrganization(s.store, 'early-match');
      principal = { orgId: organization.id, scope: 'write', actor: { id: 'test', type: 'api_key' } };
    });
    after(() => s.close());

    it('matches again when the current schema differs, even where the stale match found an item', async () => {
      await createField(s.store, principal.orgId, 'deals', { type: 'field/text/single_line', name: 'Code' });
      const first = await upsertItem(s.store, principal, 'deals', { identifiers: code('X-1') }, REPLACE);
      assert.equal(first.created, true);
      const oldField = first.schema.byRef.get('code')!;
      // Another process replaces the field with a new one of the same ref; this process still has the old
      // schema cached. The old field's index row is put back, so a match with the stale schema finds the item.
      const [staleRow] = await s.raw.selectFrom('item_values').selectAll().where('field_id', '=', oldField.id).execute();
      const other = await s.another();
      await deleteField(other, principal.orgId, 'deals', 'code');
      await createField(other, principal.orgId, 'deals', { type: 'field/text/single_line', name: 'Code' });
      await s.raw.insertInto('item_values').values(staleRow!).execute();

      const second = await upsertItem(s.store, principal, 'deals', { identifiers: code('X-1') }, REPLACE);
      assert.notEqual(second.schema.byRef.get('code')!.id, oldField.id, 'the upsert ran on the current schema');
      assert.equal(second.created, true, 'no item holds X-1 in the new field: the upsert creates');
      assert.notEqual(second.item.id, first.item.id);

      const third = await upsertItem(s.store, principal, 'deals', { identifiers: code('X-1'), values: name('Third') }, REPLACE);
      assert.equal(third.created, false);
      assert.equal(third.item.id, second.item.id);
    });

    it('falls back to the current schema when the recent one rejects the identifiers', async () => {
      await upsertItem(s.store, principal, 'deals', { identifiers: code('warm') }, REPLACE);
      const other = await s.another();
      await createField(other, principal.orgId, 'deals', { type: 'field/text/single_line', name: 'Region' });
      const identifiers = { region: { type: 'value/text/single_line', data: 'EMEA' } };
      const made = await upsertItem(s.store, principal, 'deals', { identifiers }, REPLACE);
      assert.equal(made.created, true);
      const again = await upsertItem(s.store, principal, 'deals', { identifiers }, REPLACE);
      assert.equal(again.created, false);
      assert.equal(again.item.id, made.item.id);
    });
  });
}

for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`round trips of an item write (${engine})`, () => {
    let counted: CountedStore;
    let s: RawStore;
    let principal: Principal;
    before(async () => {
      counted = await openCountedStore('round-trips');
      ({ s, principal } = counted);
      await createField(s.store, principal.orgId, 'deals', { type: 'field/text/single_line', name: 'Code' });
      // Warm: the schema cached, statements named.
      for (const data of ['w-1', 'w-2']) {
        const { item } = await upsertItem(s.store, principal, 'deals', { identifiers: code(data) }, REPLACE);
        await upsertItem(s.store, principal, 'deals', { identifiers: code(data), values: name(data) }, REPLACE);
        await updateItem(s.store, principal, 'deals', item.id, { values: name(`${data}!`) }, REPLACE);
      }
      await untilSubscriptionsRemembered(counted.trips, () => upsertItem(s.store, principal, 'deals', { identifiers: code(`listen-${Math.random()}`) }, REPLACE), 2);
    });
    after(() => counted?.close());
    const count = (write: () => Promise<unknown>) => counted.trips.count(write);

    it('an upsert that creates is two round trips: the schema, lock and match; the writes and commit', async () => {
      assert.equal(await count(() => upsertItem(s.store, principal, 'deals', { identifiers: code('n-1'), values: name('New') }, REPLACE)), 2);
    });

    it('an upsert that updates is two round trips', async () => {
      assert.equal(await count(() => upsertItem(s.store, principal, 'deals', { identifiers: code('n-1'), values: name('Again') }, REPLACE)), 2);
    });

    it('an upsert that changes no indexed value is two round trips: the document alone is not waited for', async () => {
      await upsertItem(s.store, principal, 'deals', { identifiers: code('n-3'), values: name('Same') }, REPLACE);
      assert.equal(await count(() => upsertItem(s.store, principal, 'deals', { identifiers: code('n-3'), values: name('Same') }, REPLACE)), 2);
    });

    it('a delete of an item by id is three round trips: the schema and the item; its referrers; the deletes and commit', async () => {
      const { item } = await upsertItem(s.store, principal, 'deals', { identifiers: code('n-4') }, REPLACE);
      assert.equal(await count(() => deleteItem(s.store, principal, 'deals', item.id)), 3);
    });

    it('an update of an item by id is two round trips', async () => {
      const { item } = await upsertItem(s.store, principal, 'deals', { identifiers: code('n-2') }, REPLACE);
      assert.equal(await count(() => updateItem(s.store, principal, 'deals', item.id, { values: name('Patched') }, REPLACE)), 2);
    });
  });
}
