// An upsert's match locks the items holding its identifier, and may wait for a writer holding one of them.
// That writer may take the value from the item (a PATCH) or give it to another (a merge): the match must then
// go by who holds the value after the wait, not by its snapshot from before (store/sql/items.ts withKeys).
// SQLite's writers take turns, so only PostgreSQL can wait inside the match.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { twoWriters, untilWaitingOnLock, type RawStore } from '../helpers/raw-store.ts';
import { ENGINES } from '../helpers/harness.ts';
import { createItem, updateItem, upsertItem } from '../../src/domain/item-writes.ts';
import { mergeItems } from '../../src/domain/item-merge.ts';
import { REPLACE } from '../../src/domain/item-values.ts';
import { indexKey } from '../../src/domain/items.ts';
import type { Principal } from '../../src/domain/api-keys.ts';
import type { Store } from '../../src/domain/ports/store.ts';

const email = (data: string) => ({ email: [{ type: 'value/email', data }] });
const name = (data: string) => ({ name: { type: 'value/text/single_line', data } });

for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`an upsert that waited for a writer of the item it matched (${engine})`, () => {
    let s: RawStore;
    let other: Store;
    let principal: Principal;
    before(async () => {
      ({ s, other, principal } = await twoWriters(engine, 'upsert-lock-wait'));
    });
    after(() => s.close());

    /** Runs `write` in a transaction of the other store held open until the upsert waits for a lock; returns the upsert's result. */
    async function upsertBehind(write: (tx: Store) => Promise<unknown>, address: string) {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let written!: () => void;
      const done = new Promise<void>((resolve) => (written = resolve));
      const change = other.transaction(async (tx) => {
        await write(tx);
        written();
        await held;
      });
      await done;
      const upsert = upsertItem(s.store, principal, 'people', { identifiers: email(address), values: name('Upserted') }, REPLACE);
      await untilWaitingOnLock(s.raw);
      release();
      await change;
      return upsert;
    }

    it('a PATCH that took the value away: the upsert creates, and the patched item keeps its own values (was: updated it)', async () => {
      const { item: a } = await createItem(s.store, principal, 'people', { values: { ...email('x@patch.test'), ...name('A') } });
      const result = await upsertBehind((tx) => updateItem(tx, principal, 'people', a.id, { values: email('y@patch.test') }, REPLACE), 'x@patch.test');
      assert.equal(result.created, true);
      assert.notEqual(result.item.id, a.id);
      const [after] = await s.store.items.findMany(principal.orgId, [a.id]);
      assert.equal(after!.values[result.schema.byRef.get('name')!.id]![0], 'A');
    });

    it('a merge that moved the value to another item: the upsert updates that item (was: created a second holder)', async () => {
      const { item: a } = await createItem(s.store, principal, 'people', { values: { ...email('x@merge.test'), ...name('A') } });
      const { item: b } = await createItem(s.store, principal, 'people', { values: name('B') });
      const result = await upsertBehind((tx) => mergeItems(tx, principal, 'people', { source: { type: 'item', id: a.id }, destination: { type: 'item', id: b.id } }), 'x@merge.test');
      assert.equal(result.created, false);
      assert.equal(result.item.id, b.id);
      const field = result.schema.byRef.get('email')!;
      assert.deepEqual(await s.store.items.idsWithKey(principal.orgId, field.id, indexKey(field, 'x@merge.test')), [b.id], 'one item holds the value');
    });
  });
}
