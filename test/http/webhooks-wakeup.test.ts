// The delivery worker wakes when a commit writes outbox rows, instead of waiting for its next poll: in the
// process that wrote them, and on PostgreSQL in another process sharing the database (LISTEN/NOTIFY). The
// poll interval is 10 s here, so an event that arrives within a couple of seconds arrived by the wake-up. A
// listener for one store's own commits (what `serve`'s delivery thread host uses) hears no other process.
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHarness, ENGINES, type Harness } from '../helpers/harness.ts';
import { makeItem, text } from '../helpers/items.ts';
import { makeEndpoint, startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/webhook-worker.ts';
import { deliverDue } from '../../src/domain/webhook-delivery.ts';
import { realClock } from '../../src/domain/clock.ts';
import { httpWebhookSender } from '../../src/webhook-sender.ts';
import { PUBLIC_ONLY } from '../../src/domain/webhook-urls.ts';
import { openStore } from '../../src/store/open-store.ts';
import { parseDatabaseUrl } from '../../src/config.ts';
import type { Store } from '../../src/domain/ports/store.ts';
import type { WebhookSender } from '../../src/domain/ports/webhook-sender.ts';

const POLL_MS = 10_000;
/** Far below the poll interval, far above a loopback delivery on a busy machine. */
const WAKE_BOUND_MS = 3_000;

const sender = httpWebhookSender(PUBLIC_ONLY);

/** Resolves with the time `count` deliveries took to arrive; fails when that is beyond WAKE_BOUND_MS. */
async function arrivalWithinBound(receiver: Receiver, count: number, started: number): Promise<number> {
  const outcome = await Promise.race([receiver.waitFor(count).then(() => 'arrived' as const), sleep(WAKE_BOUND_MS).then(() => 'late' as const)]);
  assert.equal(outcome, 'arrived', `no delivery within ${WAKE_BOUND_MS} ms: the worker waited for its ${POLL_MS} ms poll`);
  return Date.now() - started;
}

for (const engine of ENGINES) {
  describe(`webhook worker wake-up (${engine})`, () => {
    let h: Harness;
    let receiver: Receiver;
    let worker: DeliveryWorker | undefined;
    let endpointId: string | undefined;
    const errors: unknown[] = [];
    const subscribe = async () => (endpointId = (await makeEndpoint(h, receiver, ['activity/item_created'])).id);
    const startWorker = async (store: Store, extra: { sender?: WebhookSender; roundSpacingMs?: number } = {}) => {
      worker = startDeliveryWorker(store, extra.sender ?? sender, { pollMs: POLL_MS, onError: (error) => errors.push(error), ...extra });
      // Past its first (empty) round: from here on only a wake-up or the 10 s poll starts another.
      await sleep(200);
    };
    const person = (name: string) => makeItem(h, 'people', { name: text(name) });

    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());
    beforeEach(async () => {
      receiver = await startReceiver();
    });
    afterEach(async () => {
      // The worker first: it may still be recording the last attempt.
      await worker?.stop();
      worker = undefined;
      if (endpointId) await h.delete(`/v0/webhook_endpoints/${endpointId}`);
      endpointId = undefined;
      await receiver.close();
      assert.deepEqual(errors.splice(0), []);
    });

    it('sends an event as soon as the write that recorded it commits, not at the next poll', async () => {
      await subscribe();
      await startWorker(h.store);
      for (const [i, name] of ['First', 'Second', 'Third'].entries()) {
        const started = Date.now();
        const item = await person(name);
        await arrivalWithinBound(receiver, i + 1, started);
        assert.equal(receiver.received[i]!.body.item.id, item.id);
        assert.ok(receiver.received[i]!.verified);
      }
      // The worker keeps the endpoint's lease from round to round, and hands it on when it stops: another
      // process sends the next event at once, not when the lease would have run out.
      await worker!.stop();
      worker = undefined;
      await person('After the stop');
      assert.equal((await deliverDue(h.store, sender, { clock: realClock, owner: 'another process' })).succeeded, 1);
      assert.equal(receiver.received.length, 4);
    });

    it('sends a re-sent event at once too', async () => {
      const id = await subscribe();
      await startWorker(h.store);
      await person('Again');
      await arrivalWithinBound(receiver, 1, Date.now());
      // Once the first attempt is recorded (it is, just after the receiver answered).
      while ((await h.get(`/v0/tycho/webhook_endpoints/${id}/attempts`)).body.data.length === 0) await sleep(10);
      const started = Date.now();
      const resent = await h.post(`/v0/tycho/webhook_endpoints/${id}/deliveries`, { event_id: receiver.received[0]!.id });
      assert.equal(resent.status, 202, resent.text);
      await arrivalWithinBound(receiver, 2, started);
      assert.equal(receiver.received[1]!.id, receiver.received[0]!.id);
    });

    it('under a stream of events, starts a round no sooner than its spacing after the last, with all that came meanwhile', async () => {
      const spacing = 2500;
      const sentAt: number[] = [];
      const timed: WebhookSender = { send: (request) => (sentAt.push(performance.now()), sender.send(request)) };
      await subscribe();
      await startWorker(h.store, { sender: timed, roundSpacingMs: spacing });
      // A quiet spell longer than the spacing: the next event goes at once.
      await sleep(spacing);
      const started = performance.now();
      await person('First');
      await receiver.waitFor(1);
      assert.ok(sentAt[0]! - started < spacing - 500, `the first event waited ${sentAt[0]! - started} ms`);
      // Its round started after `started`: the next may not start before `started + spacing`.
      await person('Second');
      await person('Third');
      await receiver.waitFor(3);
      for (const at of sentAt.slice(1)) assert.ok(at - started >= spacing - 5, `sent ${at - started} ms after the first event`);
      assert.ok(sentAt[2]! - sentAt[1]! < spacing, 'both in one round');
    });

    if (engine === 'postgres') {
      it('wakes a worker in another process on the same database (NOTIFY at commit)', async () => {
        const other = await openStore(parseDatabaseUrl(h.databaseUrl!, process.cwd()));
        try {
          await subscribe();
          await startWorker(other);
          // Time for the other store's LISTEN connection, which the worker's subscription opened.
          await sleep(1000);
          const started = Date.now();
          const item = await person('Elsewhere');
          await arrivalWithinBound(receiver, 1, started);
          assert.equal(receiver.received[0]!.body.item.id, item.id);
          // Writes closer together than the notices' spacing: the first sends the notice, the others owe one,
          // sent after they commit; none waits for the poll.
          for (let round = 0; round < 3; round++) {
            const burst = Date.now();
            const items = await Promise.all(['One', 'Two', 'Three', 'Four'].map((name) => person(`${name} ${round}`)));
            await arrivalWithinBound(receiver, 5 + 4 * round, burst);
            assert.deepEqual(new Set(receiver.received.slice(1 + 4 * round).map((r) => r.body.item.id)), new Set(items.map((i) => i.id)));
          }
          await worker!.stop();
          worker = undefined;
        } finally {
          await other.close();
        }
      });

      it("tells a 'this store' listener of its own store's commits only (serve's thread hears the others itself)", async () => {
        const other = await openStore(parseDatabaseUrl(h.databaseUrl!, process.cwd()));
        let own = 0;
        let fromOthers = 0;
        const stopOwn = h.store.onDeliveriesDue(() => own++, 'this store');
        const stopOther = other.onDeliveriesDue(() => fromOthers++, 'this store');
        // The default listener opens the LISTEN connection, so a notice would reach `other` if it were passed on.
        let heard = 0;
        const stopHeard = other.onDeliveriesDue(() => heard++);
        try {
          await subscribe();
          await sleep(1000);
          await person('Here');
          for (const deadline = Date.now() + WAKE_BOUND_MS; heard === 0 && Date.now() < deadline; ) await sleep(10);
          assert.equal(heard, 1, 'the notice reached the other store');
          assert.equal(own, 1);
          assert.equal(fromOthers, 0);
        } finally {
          stopOwn();
          stopOther();
          stopHeard();
          await other.close();
        }
      });
    }
  });
}
