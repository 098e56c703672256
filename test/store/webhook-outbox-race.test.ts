// The outbox rows a create writes come from a cache of the subscribed endpoints, which another process's
// change reaches moments after its commit. The rows are written only for endpoints that still exist and are
// enabled when the create's statement runs: a create racing an endpoint's deletion used to fail on the
// delivery's foreign key (a 500), and one racing its disabling recorded a delivery for it. The endpoint is
// changed here under the store (raw SQL: no change notice), so the cache is stale for certain.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStoreWithRaw, type RawStore } from '../helpers/raw-store.ts';
import { ENGINES } from '../helpers/harness.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { createItem } from '../../src/domain/item-writes.ts';
import { createEndpoint } from '../../src/domain/webhook-endpoints.ts';
import type { Principal } from '../../src/domain/api-keys.ts';

for (const engine of ENGINES) {
  describe(`outbox rows only for endpoints that still exist and are enabled (${engine})`, () => {
    let s: RawStore;
    let principal: Principal;
    let endpointId: string;
    const create = () => createItem(s.store, principal, 'people', { values: { name: { type: 'value/text/single_line', data: 'Ada' } } });
    const deliveries = async () => (await s.raw.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpointId).execute()).length;
    before(async () => {
      s = await openStoreWithRaw(engine);
      const { organization } = await ensureOrganization(s.store, 'outbox-race');
      principal = { orgId: organization.id, scope: 'write', actor: { id: 'test', type: 'api_key' } };
      const endpoint = await createEndpoint(s.store, principal.orgId, { url: 'http://127.0.0.1:9/hook', subscriptions: [{ event_type: 'activity/item_created' }] }, { allowHttp: false, allowPrivate: false });
      endpointId = endpoint.id;
      // On PostgreSQL the subscriptions are remembered once the store listens for changes, which the first
      // create starts: the second remembers them.
      await create();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await create();
      assert.equal(await deliveries(), 2, 'the subscribed endpoint gets the events');
    });
    after(() => s.close());

    it('an endpoint disabled behind the cache gets no delivery', async () => {
      await s.raw.updateTable('webhook_endpoints').set({ status: 'disabled' }).where('id', '=', endpointId).execute();
      await create();
      assert.equal(await deliveries(), 2);
      await s.raw.updateTable('webhook_endpoints').set({ status: 'enabled' }).where('id', '=', endpointId).execute();
    });

    it('an endpoint deleted behind the cache fails no create', async () => {
      await s.raw.deleteFrom('webhook_deliveries').where('endpoint_id', '=', endpointId).execute();
      await s.raw.deleteFrom('webhook_endpoints').where('id', '=', endpointId).execute();
      const { item } = await create();
      assert.ok(item.id);
      assert.equal(await deliveries(), 0);
    });
  });
}
