// Webhook history is kept for 30 days of the organization's time: older attempts and finished deliveries are
// deleted by the due-work sweep (which advancing a sandbox's clock runs too), pending deliveries never are, and
// an event whose delivery went can still be re-sent, with its webhook-id unchanged.
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_KEY, createHarness, ENGINES, type Harness } from '../helpers/harness.ts';
import { makeItem, text } from '../helpers/items.ts';
import { makeEndpoint, startReceiver, type Receiver } from '../helpers/webhooks.ts';

for (const engine of ENGINES) {
  describe(`webhook history is kept for 30 days (${engine})`, () => {
    let h: Harness;
    let key: string;
    let receiver: Receiver;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());
    beforeEach(async () => {
      receiver = await startReceiver();
      // A sandbox of its own per test, its clock frozen: advancing it delivers what is due and sweeps.
      const sandbox = await h.post('/v0/tycho/admin/sandboxes', {}, { key: ADMIN_KEY });
      assert.equal(sandbox.status, 201, sandbox.text);
      key = sandbox.body.api_key;
      const frozen = await h.post('/v0/tycho/clock/freeze', { at: '2030-01-01T09:00:00Z' }, { key });
      assert.equal(frozen.status, 200, frozen.text);
    });
    afterEach(() => receiver.close());

    const advance = async (by: Record<string, number>) => {
      const res = await h.post('/v0/tycho/clock/advance', by, { key });
      assert.equal(res.status, 200, res.text);
    };
    const attemptEvents = async (endpointId: string) => {
      const res = await h.get(`/v0/tycho/webhook_endpoints/${endpointId}/attempts`, { key });
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((a: { event_id: string }) => a.event_id);
    };

    it('deletes attempts and sent deliveries older than 30 days; an old event can still be re-sent, with the same webhook-id', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created'], key);
      await makeItem(h, 'people', { name: text('Old') }, { key });
      await advance({ minutes: 1 });
      assert.equal(receiver.received.length, 1);
      const old = receiver.received[0]!.id;
      await advance({ days: 29 });
      await makeItem(h, 'people', { name: text('Recent') }, { key });
      await advance({ minutes: 1 });
      assert.equal(receiver.received.length, 2);
      const recent = receiver.received[1]!.id;
      assert.deepEqual(await attemptEvents(ep.id), [recent, old], 'both kept at 29 days');

      await advance({ days: 1, minutes: 1 });
      assert.deepEqual(await attemptEvents(ep.id), [recent], 'the attempt older than 30 days is gone');

      const resent = await h.post(`/v0/tycho/webhook_endpoints/${ep.id}/deliveries`, { event_id: old }, { key });
      assert.equal(resent.status, 202, resent.text);
      await advance({ minutes: 1 });
      assert.equal(receiver.received.length, 3);
      assert.equal(receiver.received[2]!.id, old, 'the same webhook-id');
      assert.ok(receiver.received[2]!.verified);
      assert.deepEqual(await attemptEvents(ep.id), [old, recent]);
    });

    it('keeps a delivery still pending, however old, and sends it once its endpoint is enabled again', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created'], key);
      const item = await makeItem(h, 'people', { name: text('Waiting') }, { key });
      const disabled = await h.patch(`/v0/webhook_endpoints/${ep.id}`, { status: 'disabled' }, { key });
      assert.equal(disabled.status, 200, disabled.text);
      await advance({ days: 45 });
      assert.equal(receiver.received.length, 0);
      const enabled = await h.patch(`/v0/webhook_endpoints/${ep.id}`, { status: 'enabled' }, { key });
      assert.equal(enabled.status, 200, enabled.text);
      await advance({ minutes: 1 });
      assert.equal(receiver.received.length, 1);
      assert.equal(receiver.received[0]!.body.item.id, item.id);
      assert.equal((await attemptEvents(ep.id)).length, 1);
    });
  });
}

for (const engine of ENGINES) {
  describe(`an endpoint deleted while an attempt to it is in flight (${engine})`, () => {
    let h: Harness;
    let receiver: Receiver;
    before(async () => {
      h = await createHarness(engine);
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver.close();
      await h.close();
    });

    it('the attempts an advance makes count in /metrics (was: only the delivery thread\'s)', async () => {
      const sandbox = await h.post('/v0/tycho/admin/sandboxes', {}, { key: ADMIN_KEY });
      const key = sandbox.body.api_key as string;
      assert.equal((await h.post('/v0/tycho/clock/freeze', { at: '2030-01-01T09:00:00Z' }, { key })).status, 200);
      await makeEndpoint(h, receiver, ['activity/item_created'], key);
      const succeeded = async () => Number(/^tycho_webhook_attempts_total\{outcome="succeeded"\} (\d+)/m.exec((await h.get('/metrics')).text)?.[1] ?? 0);
      const before = await succeeded();
      const received = receiver.received.length;
      await makeItem(h, 'people', { name: text('Counted') }, { key });
      assert.equal((await h.post('/v0/tycho/clock/advance', { minutes: 1 }, { key })).status, 200);
      assert.equal(receiver.received.length, received + 1);
      assert.equal(await succeeded(), before + 1);
    });

    it('an advance whose round records attempts to a deleted endpoint answers 200, and the round writes nothing of it', async () => {
      const sandbox = await h.post('/v0/tycho/admin/sandboxes', {}, { key: ADMIN_KEY });
      assert.equal(sandbox.status, 201, sandbox.text);
      const key = sandbox.body.api_key as string;
      assert.equal((await h.post('/v0/tycho/clock/freeze', { at: '2030-01-01T09:00:00Z' }, { key })).status, 200);
      const ep = await makeEndpoint(h, receiver, ['activity/item_created'], key);
      // The receiver deletes the endpoint before it answers: the round then records attempts to deliveries that
      // went with their endpoint.
      receiver.beforeAnswer = async () => assert.equal((await h.delete(`/v0/webhook_endpoints/${ep.id}`, { key })).status, 204);
      const received = receiver.received.length;
      await makeItem(h, 'people', { name: text('Racing') }, { key });
      const advanced = await h.post('/v0/tycho/clock/advance', { minutes: 1 }, { key });
      receiver.beforeAnswer = undefined;
      assert.equal(advanced.status, 200, advanced.text);
      assert.equal(receiver.received.length, received + 1);
      assert.equal((await h.get(`/v0/webhook_endpoints/${ep.id}`, { key })).status, 404);
      // The organization's next advance has nothing left to send or record.
      assert.equal((await h.post('/v0/tycho/clock/advance', { minutes: 1 }, { key })).status, 200);
      assert.equal(receiver.received.length, received + 1);
    });
  });
}
