// Through the API: a create in this process, while another process (here: a statement behind the store's back,
// which sends no change notice) has just deleted or disabled a subscribed endpoint. The subscriptions this
// process remembers are then stale; the create must still be a 201 (it was a 500 on the delivery's foreign
// key), and record no delivery for the endpoint. PostgreSQL only: SQLite's writers take turns in one process.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, ENGINES, type Harness } from '../helpers/harness.ts';
import { rawPool } from '../helpers/raw-store.ts';
import type pg from 'pg';

const person = (name: string) => ({ values: { name: { type: 'value/text/single_line', data: name } } });

for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`item creates while another process removes a subscribed webhook endpoint (${engine})`, () => {
    let h: Harness;
    let raw: pg.Pool;
    let endpointId: string;
    const deliveries = async () => Number((await raw.query('select count(*) as n from webhook_deliveries where endpoint_id = $1', [endpointId])).rows[0].n);
    before(async () => {
      h = await createHarness(engine);
      raw = rawPool(h.databaseUrl!);
      const endpoint = await h.post('/v0/webhook_endpoints', { url: 'http://127.0.0.1:9/hook', subscriptions: [{ event_type: 'activity/item_created' }] });
      assert.equal(endpoint.status, 201, endpoint.text);
      endpointId = endpoint.body.id;
      // The store remembers the subscriptions once it listens for changes, which the first create starts.
      assert.equal((await h.post('/v0/collections/people/items', person('First'))).status, 201);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal((await h.post('/v0/collections/people/items', person('Second'))).status, 201);
      assert.equal(await deliveries(), 2);
    });
    after(async () => {
      await raw.end();
      await h.close();
    });

    it('an endpoint disabled elsewhere gets no delivery for a create made here', async () => {
      await raw.query(`update webhook_endpoints set status = 'disabled' where id = $1`, [endpointId]);
      assert.equal((await h.post('/v0/collections/people/items', person('While disabled'))).status, 201);
      assert.equal(await deliveries(), 2);
      await raw.query(`update webhook_endpoints set status = 'enabled' where id = $1`, [endpointId]);
    });

    it('an endpoint deleted elsewhere: the create here is a 201 (was: 500), the item is there', async () => {
      await raw.query('delete from webhook_deliveries where endpoint_id = $1', [endpointId]);
      await raw.query('delete from webhook_endpoints where id = $1', [endpointId]);
      const created = await h.post('/v0/collections/people/items', person('After the delete'));
      assert.equal(created.status, 201, created.text);
      assert.equal((await h.get(`/v0/collections/people/items/${created.body.id}`)).status, 200);
    });
  });
}
