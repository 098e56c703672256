// Round trips of item reads on PostgreSQL, whose change notices arrive moments after a commit, so the
// organization's schema tag is checked on every read. A retrieve or a page reads the tag with the items, under
// the schema this process loaded last (store/sql/sql-store.ts `underCurrentSchema`); a changed tag costs the
// schema's reads and the items' again (schema-cache.test.ts proves the answer then comes from the new schema).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES } from '../helpers/harness.ts';
import { openCountedStore, untilSubscriptionsRemembered, type CountedStore } from '../helpers/round-trips.ts';
import { createItem } from '../../src/domain/item-writes.ts';
import { prepareQueryFor, serveItem, servePage, type SearchInput } from '../../src/domain/item-reads.ts';
import { createField } from '../../src/domain/collection-fields.ts';
import { globalSearch } from '../../src/domain/global-search.ts';

for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`round trips of item reads (${engine})`, () => {
    let counted: CountedStore;
    let itemId = '';
    before(async () => {
      counted = await openCountedStore('read-round-trips');
      const { s, principal } = counted;
      ({ item: { id: itemId } } = await createItem(s.store, principal, 'deals', { values: { name: { type: 'value/text/single_line', data: 'Read' } } }));
      // The store's LISTEN connection is up (its statements would count here), as in a warm server.
      await untilSubscriptionsRemembered(counted.trips, () => createItem(s.store, principal, 'deals', { values: {} }));
    });
    after(() => counted?.close());
    const retrieve = () => serveItem(counted.s.store, counted.principal.orgId, 'deals', itemId);
    const page = (input: SearchInput) => {
      const { s, principal } = counted;
      return servePage(s.store, principal.orgId, 'deals', (schema) => prepareQueryFor(s.store, principal.orgId, schema, input, () => ({ pointer: '/sort' })), () => ({ limit: 20 }));
    };
    const name = (data: string) => ({ op: 'eq', field: 'name', value: data });

    it('a page or a search under the schema loaded last is one round trip; an empty one, two', async () => {
      await page({});
      assert.equal(await counted.trips.count(() => page({})), 1);
      await page({ filter: name('Read') });
      assert.equal(await counted.trips.count(() => page({ filter: name('Read') })), 1);
      assert.equal((await page({ filter: name('Nobody') })).page.rows.length, 0);
      assert.equal(await counted.trips.count(() => page({ filter: name('Nobody') })), 2);
    });

    it('a global search finding items and no files is four round trips: the fields with their values, the files, the schema tag, the items', async () => {
      const search = () => globalSearch(counted.s.store, counted.principal.orgId, 'Read');
      assert.equal((await search()).length, 1);
      assert.equal(await counted.trips.count(search), 4);
    });

    it('a retrieve under the schema loaded last is one round trip', async () => {
      await retrieve();
      assert.equal(await counted.trips.count(retrieve), 1);
    });

    it('a retrieve after a schema change loads the schema again, then is one round trip', async () => {
      const other = await counted.s.another();
      await createField(other, counted.principal.orgId, 'deals', { type: 'field/text/single_line', name: 'Region' });
      assert.ok((await counted.trips.count(retrieve)) > 1);
      assert.equal((await retrieve()).schema.byRef.has('region'), true);
      assert.equal(await counted.trips.count(retrieve), 1);
    });
  });
}
