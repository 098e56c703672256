// Webhook delivery with real HTTP receivers on loopback: every delivery verified with the official
// `standardwebhooks` package; the per-type payload (reference §7.5); no delivery for other types, disabled
// endpoints or rolled-back writes; retries on the schedule driven by an injected clock with the same
// `webhook-id`; exhaustion, automatic disabling; per-endpoint order; leases shared by concurrent workers;
// redirects not followed and private addresses refused; names sent as written and TLS verified for them; and
// the extensions — attempts, re-send, the event
// feed — and the metrics.
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { createHarness, ENGINES, errorOf, type Harness, type Response } from '../helpers/harness.ts';
import { makeItem, text } from '../helpers/items.ts';
import { makeEndpoint, manualClock, startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { deliverDue, deliverDueAwaited, DISABLE_AFTER_MS, RETRY_SCHEDULE_MS, writeRound, type RoundRecord } from '../../src/domain/webhook-delivery.ts';
import { recordActivity, constituent } from '../../src/domain/activity.ts';
import { pendingDelivery } from '../../src/domain/webhook-outbox.ts';
import { httpWebhookSender } from '../../src/webhook-sender.ts';
import { PUBLIC_ONLY } from '../../src/domain/webhook-urls.ts';
import type { WebhookSender } from '../../src/domain/ports/webhook-sender.ts';

const sender = httpWebhookSender(PUBLIC_ONLY);
/** No jitter: each retry is due exactly after its wait. */
const noJitter = () => 0.5;

for (const engine of ENGINES) {
  describe(`webhook delivery (${engine})`, () => {
    let h: Harness;
    let receiver: Receiver;
    const clock = manualClock();
    const deliver = (extra: Partial<Parameters<typeof deliverDue>[2]> = {}) => deliverDue(h.store, sender, { clock, random: noJitter, observer: h.app.deliveryObserver, ...extra });
    const person = async (name: string, key?: string) => makeItem(h, 'people', { name: text(name) }, key ? { key } : {});

    before(async () => {
      h = await createHarness(engine, { clock });
    });
    after(() => h.close());
    beforeEach(async () => {
      receiver = await startReceiver();
    });
    afterEach(() => receiver.close());

    it('POSTs each subscribed event, signed per Standard Webhooks, with the per-type payload and webhook-id msg_<activity id>', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      const item = await person('Ada');
      const round = await deliver();
      assert.equal(round.succeeded, 1);
      assert.equal(receiver.received.length, 1);
      const [got] = receiver.received;
      assert.ok(got!.verified, 'standardwebhooks verifies the signature');
      const feed = await h.get('/v0/activities?type[eq]=activity/item_created&limit=1');
      const activity = feed.body.data[0];
      assert.equal(got!.id, `msg_${activity.id}`);
      assert.deepEqual(got!.body, {
        id: activity.id,
        type: 'activity/item_created',
        occurred_at: activity.occurred_at,
        item: { id: item.id, type: 'item', collection: item.collection },
      });
      // Delivered once: nothing is due any more.
      assert.equal((await deliver()).attempts, 0);
      const attempts = await h.get(`/v0/tycho/webhook_endpoints/${ep.id}/attempts`);
      assert.equal(attempts.status, 200, attempts.text);
      assert.equal(attempts.body.data.length, 1);
      assert.equal(attempts.body.data[0].status_code, 200);
      assert.equal(attempts.body.data[0].event_id, got!.id);
      assert.equal(attempts.body.data[0].event_type, 'activity/item_created');
      assert.equal(attempts.body.data[0].response_excerpt, 'ok');
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('a note mentioning an item sends activity/item_mentioned with the mentioned item, no author (a key is no person) and the note', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_mentioned']);
      const item = await person('Mentioned');
      const note = await h.post('/v0/notes', { body: { markdown: `Spoke to [@Mentioned](https://app.example.com/people/${item.id})` } });
      assert.equal(note.status, 201, note.text);
      assert.equal((await deliver()).succeeded, 1);
      const [got] = receiver.received;
      assert.ok(got!.verified);
      const activity = (await h.get(`/v0/activities?type[eq]=activity/item_mentioned&constituent_entity_type[eq]=note&constituent_entity_id[eq]=${note.body.id}`)).body.data[0];
      assert.deepEqual(got!.body, {
        id: activity.id,
        type: 'activity/item_mentioned',
        occurred_at: activity.occurred_at,
        item: { id: item.id, type: 'item', collection: item.collection },
        author: null,
        note: { id: note.body.id, type: 'note' },
      });
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('sends nothing for unsubscribed types, disabled endpoints and rolled-back writes', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/note_created', 'activity/item_created']);
      await h.patch(`/v0/webhook_endpoints/${ep.id}`, { subscriptions: [{ event_type: 'activity/note_created' }] });
      await person('Not subscribed');
      const offReceiver = await startReceiver();
      const off = await makeEndpoint(h, offReceiver, ['activity/item_created']);
      await h.patch(`/v0/webhook_endpoints/${off.id}`, { status: 'disabled' });
      await person('Disabled');
      // A write whose transaction rolls back after its activity was recorded.
      await assert.rejects(
        h.store.transaction(async (tx) => {
          await recordActivity(tx, h.orgId, 'activity/note_created', clock().toISOString(), [constituent('object', { id: 'n', type: 'note' })]);
          throw new Error('rolled back');
        }),
      );
      assert.equal((await deliver()).attempts, 0);
      assert.equal(receiver.received.length + offReceiver.received.length, 0);
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
      await h.delete(`/v0/webhook_endpoints/${off.id}`);
      await offReceiver.close();
    });

    it('retries a failed delivery on the schedule, driven by the clock, with the same webhook-id, until it succeeds', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      await person('Retry');
      receiver.answer = 500;
      assert.equal((await deliver()).failed, 1);
      clock.advance(RETRY_SCHEDULE_MS[0] - 1);
      assert.equal((await deliver()).attempts, 0, 'not due before its wait');
      clock.advance(1);
      assert.equal((await deliver()).failed, 1);
      receiver.answer = 200;
      clock.advance(RETRY_SCHEDULE_MS[1]);
      assert.equal((await deliver()).succeeded, 1);
      assert.equal(receiver.received.length, 3);
      assert.equal(new Set(receiver.received.map((r) => r.id)).size, 1, 'one webhook-id across attempts');
      assert.ok(receiver.received.every((r) => r.verified));
      const attempts = await h.get(`/v0/tycho/webhook_endpoints/${ep.id}/attempts`);
      assert.deepEqual(attempts.body.data.map((a: any) => a.status_code), [200, 500, 500]);
      assert.match(attempts.body.data[1].error, /500/);
      clock.advance(RETRY_SCHEDULE_MS[2] * 2);
      assert.equal((await deliver()).attempts, 0);
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('gives up after 8 attempts (the schedule) and the delivery is failed; jitter stays within ±10 %', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      await person('Exhausted');
      receiver.answer = 503;
      assert.equal((await deliver()).attempts, 1);
      for (const wait of RETRY_SCHEDULE_MS) {
        clock.advance(wait * 0.9 - 1);
        assert.equal((await deliver({ random: Math.random })).attempts, 0, 'not before 90 % of the wait');
        clock.advance(wait * 0.2 + 1);
        assert.equal((await deliver({ random: Math.random })).attempts, 1, 'due within 110 % of the wait');
      }
      assert.equal(receiver.received.length, 8);
      clock.advance(RETRY_SCHEDULE_MS.at(-1)! * 3);
      assert.equal((await deliver()).attempts, 0, 'no ninth attempt');
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('disables an endpoint that has failed every attempt for five days; re-enabling starts afresh', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      receiver.answer = 500;
      await person('Day 0');
      await deliver();
      clock.advance(DISABLE_AFTER_MS - 60_000);
      await person('Day 5 minus a minute');
      await deliver();
      assert.equal((await h.get(`/v0/webhook_endpoints/${ep.id}`)).body.status, 'enabled');
      clock.advance(120_000);
      await person('Day 5');
      await deliver();
      assert.equal((await h.get(`/v0/webhook_endpoints/${ep.id}`)).body.status, 'disabled');
      const before = receiver.received.length;
      await person('After disabling');
      clock.advance(RETRY_SCHEDULE_MS[0] * 2);
      assert.equal((await deliver()).attempts, 0, 'a disabled endpoint gets nothing');
      receiver.answer = 200;
      await h.patch(`/v0/webhook_endpoints/${ep.id}`, { status: 'enabled' });
      await person('Enabled again');
      await deliver();
      assert.ok(receiver.received.length > before);
      assert.equal((await h.get(`/v0/webhook_endpoints/${ep.id}`)).body.status, 'enabled');
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it("sends one endpoint's events in the order they were recorded", async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      const items = [];
      for (const name of ['First', 'Second', 'Third', 'Fourth']) items.push(await person(name));
      await deliver();
      assert.deepEqual(receiver.received.map((r) => r.body.item.id), items.map((i) => i.id));
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('tells whether a round left due work behind: a full batch, or a failure with events behind it', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      for (const name of ['One', 'Two', 'Three']) await person(name);
      const full = await deliver({ batch: 2 });
      assert.deepEqual([full.succeeded, full.more], [2, true]);
      const rest = await deliver({ batch: 2 });
      assert.deepEqual([rest.succeeded, rest.more], [1, false]);
      await person('Four');
      await person('Five');
      receiver.answer = 500;
      const failed = await deliver();
      assert.deepEqual([failed.failed, failed.more], [1, true]);
      assert.equal(receiver.connections, 1, 'one connection, kept open between attempts and rounds');
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('shares the work between concurrent workers: every event is sent exactly once', async () => {
      const receivers = [receiver, await startReceiver(), await startReceiver()];
      const eps = [];
      for (const r of receivers) eps.push(await makeEndpoint(h, r, ['activity/item_created']));
      for (let i = 0; i < 5; i++) await person(`Shared ${i}`);
      const rounds = await Promise.all(['a', 'b', 'c'].map((owner) => deliver({ owner })));
      assert.equal(rounds.reduce((n, r) => n + r.succeeded, 0), 15);
      for (const r of receivers) {
        assert.equal(r.received.length, 5);
        assert.equal(new Set(r.received.map((x) => x.id)).size, 5);
      }
      for (const ep of eps) await h.delete(`/v0/webhook_endpoints/${ep.id}`);
      for (const r of receivers.slice(1)) await r.close();
    });

    it('keepLeases: a worker keeps an endpoint between rounds (no other can take it) and takes it back itself; releaseLeases hands it on', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      await person('Kept 1');
      assert.equal((await deliver({ owner: 'keeper', keepLeases: true })).succeeded, 1);
      await person('Kept 2');
      // Another process cannot take the endpoint while the lease lives …
      assert.equal((await deliver({ owner: 'other' })).attempts, 0);
      // … its holder takes it back and sends.
      assert.equal((await deliver({ owner: 'keeper', keepLeases: true })).succeeded, 1);
      assert.equal(receiver.received.length, 2);
      await person('Kept 3');
      await h.store.webhookEndpoints.releaseLeases('keeper');
      assert.equal((await deliver({ owner: 'other' })).succeeded, 1);
      assert.equal(receiver.received.length, 3);
      assert.equal(new Set(receiver.received.map((r) => r.id)).size, 3);
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('deliverDueAwaited (an advance): waits while another process holds a due endpoint, then sends what it left due', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      await person('Awaited');
      // Another process (a delivery thread) has leased the endpoint and not recorded anything yet.
      const now = new Date().toISOString();
      const claimed = await h.store.webhookEndpoints.claimDue({ due: { orgs: [{ orgId: h.orgId, now: clock().toISOString() }] }, owner: 'thread', leaseNow: now, leaseUntil: new Date(Date.now() + 60_000).toISOString(), keepUntil: now, limit: 10 });
      assert.deepEqual(claimed.map((e) => e.id), [ep.id]);
      let done = false;
      const advance = deliverDueAwaited(h.store, sender, { clock, orgId: h.orgId, random: noJitter }).then(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(done, false, 'still waiting for the lease');
      assert.equal(receiver.received.length, 0);
      // The other process lets go without sending: the waiting call sends the event itself before it returns.
      await h.store.webhookEndpoints.releaseLease(ep.id, 'thread');
      await advance;
      assert.equal(receiver.received.length, 1);
      // With nobody else holding it, the call returns after its own round.
      await person('Awaited 2');
      await deliverDueAwaited(h.store, sender, { clock, orgId: h.orgId, random: noJitter });
      assert.equal(receiver.received.length, 2);
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('deliverDueAwaited: a process letting go between the round and the look without sending leaves nothing unsent', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      await person('Let go');
      const now = new Date().toISOString();
      await h.store.webhookEndpoints.claimDue({ due: { orgs: [{ orgId: h.orgId, now: clock().toISOString() }] }, owner: 'thread', leaseNow: now, leaseUntil: new Date(Date.now() + 60_000).toISOString(), keepUntil: now, limit: 10 });
      // The other process lets go just before the call's second look (its first round found the endpoint held).
      let looks = 0;
      const endpoints = h.store.webhookEndpoints;
      const racing = Object.create(h.store, {
        webhookEndpoints: {
          value: Object.assign(Object.create(endpoints), {
            leasedElsewhere: async (...args: Parameters<typeof endpoints.leasedElsewhere>) => {
              if (++looks === 2) await endpoints.releaseLease(ep.id, 'thread');
              return endpoints.leasedElsewhere(...args);
            },
          }),
        },
      });
      await deliverDueAwaited(racing, sender, { clock, orgId: h.orgId, random: noJitter });
      assert.equal(receiver.received.length, 1);
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('a backlog of 600 due deliveries on endpoints that cannot take them (disabled, or failing) does not starve a newer endpoint', async () => {
      const failing = await startReceiver();
      failing.answer = 500;
      const disabled = await makeEndpoint(h, receiver, ['activity/item_created']);
      const dead = await makeEndpoint(h, failing, ['activity/item_created']);
      await person('Backlog');
      const [activity] = (await h.get('/v0/activities?type[eq]=activity/item_created&limit=1')).body.data;
      await h.store.webhookDeliveries.insertMany([disabled, dead].flatMap((ep) => Array.from({ length: 600 }, () => pendingDelivery(h.orgId, ep.id, activity.id))));
      await h.patch(`/v0/webhook_endpoints/${disabled.id}`, { status: 'disabled' });
      const live = await startReceiver();
      const ep = await makeEndpoint(h, live, ['activity/item_created']);
      const fresh = await person('Not starved');
      await deliver();
      assert.deepEqual(live.received.map((r) => r.body.item.id), [fresh.id]);
      for (const e of [disabled, dead, ep]) await h.delete(`/v0/webhook_endpoints/${e.id}`);
      await failing.close();
      await live.close();
    });

    it('keepLeases: a kept lease running out is renewed before its round sends', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      let leaseNow = Date.now();
      const leaseClock = () => new Date(leaseNow);
      await person('Renewed 1');
      assert.equal((await deliver({ owner: 'keeper', keepLeases: true, leaseClock })).succeeded, 1);
      // 100 s later the kept lease (120 s) has less than half left: the round leases it again, so it does not
      // run out under the round, and another process still cannot take it.
      leaseNow += 100_000;
      await person('Renewed 2');
      assert.equal((await deliver({ owner: 'keeper', keepLeases: true, leaseClock })).succeeded, 1);
      leaseNow += 100_000;
      await person('Renewed 3');
      assert.equal((await deliver({ owner: 'other', leaseClock })).attempts, 0);
      // Past the lease, anyone may.
      leaseNow += 121_000;
      assert.equal((await deliver({ owner: 'other', leaseClock })).succeeded, 1);
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });


    it('recorder: a round hands its record to the named writer (the API thread, on SQLite); nothing counts as sent until it is written', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      await person('Recorded 1');
      const records: RoundRecord[] = [];
      assert.equal((await deliver({ owner: 'handing', keepLeases: true, recorder: async (r) => void records.push(structuredClone(r)) })).succeeded, 1);
      assert.equal(records.length, 1);
      const [record] = records;
      assert.equal(record!.endpointId, ep.id);
      assert.equal(record!.attempts[0]!.statusCode, 200);
      assert.equal(record!.outcomes[0]!.status, 'succeeded');
      assert.equal(record!.release, false, 'a kept lease outlives the record');
      // Not written yet: the delivery is still pending and its endpoint shows no attempt.
      assert.equal((await h.get(`/v0/tycho/webhook_endpoints/${ep.id}/attempts`)).body.data.length, 0);
      assert.equal(await h.store.webhookDeliveries.pendingCount(), 1);
      await writeRound(h.store, record!);
      const attempts = (await h.get(`/v0/tycho/webhook_endpoints/${ep.id}/attempts`)).body.data;
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0].status_code, 200);
      assert.equal(await h.store.webhookDeliveries.pendingCount(), 0);
      await h.store.webhookEndpoints.releaseLeases('handing');
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });
    it('records an answer holding NUL bytes with U+FFFD in their place, and does not send the event again', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      receiver.answerBody = 'ok\u0000bad';
      await person('Nul answer');
      assert.equal((await deliver()).succeeded, 1);
      // Regression (PostgreSQL): the excerpt failed the round's record, so the event was sent again every round.
      assert.equal((await deliver()).attempts, 0);
      const attempts = await h.get(`/v0/tycho/webhook_endpoints/${ep.id}/attempts`);
      assert.equal(attempts.body.data[0].response_excerpt, 'ok\uFFFDbad');
      assert.equal(receiver.received.length, 1);
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('does not follow redirects: a 3xx is a failed attempt', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      receiver.answer = 302;
      await person('Redirected');
      assert.equal((await deliver()).failed, 1);
      const attempts = await h.get(`/v0/tycho/webhook_endpoints/${ep.id}/attempts`);
      assert.match(attempts.body.data[0].error, /redirects are not followed/);
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('re-sends any event to an endpoint with the same webhook-id; an unknown event is a 422 at /event_id', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      await person('Resent');
      await deliver();
      const first = receiver.received[0]!;
      const res = await h.post(`/v0/tycho/webhook_endpoints/${ep.id}/deliveries`, { event_id: first.id });
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.status, 'pending');
      assert.equal(res.body.event_id, first.id);
      await deliver();
      assert.equal(receiver.received.length, 2);
      assert.equal(receiver.received[1]!.id, first.id);
      assert.equal(receiver.received[1]!.raw, first.raw);
      const bad = await h.post(`/v0/tycho/webhook_endpoints/${ep.id}/deliveries`, { event_id: 'msg_nope' });
      assert.equal(bad.status, 422);
      assert.equal(errorOf(bad).source?.pointer, '/event_id');
      const other = await h.newOrg();
      const foreign = await h.post(`/v0/tycho/webhook_endpoints/${ep.id}/deliveries`, { event_id: first.id }, { key: other.key });
      assert.equal(foreign.status, 404);
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('a re-send posted while the worker is still recording an attempt of that delivery is sent again', async () => {
      const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
      await person('Raced');
      // The sender answers only when the test lets it: the receiver has the event, the attempt is not recorded.
      let sentOnce!: () => void;
      let finish!: () => void;
      const sent = new Promise<void>((resolve) => (sentOnce = resolve));
      const finished = new Promise<void>((resolve) => (finish = resolve));
      const paused: WebhookSender = {
        async send(request) {
          const result = await sender.send(request);
          sentOnce();
          await finished;
          return result;
        },
      };
      const round = deliverDue(h.store, paused, { clock, random: noJitter });
      await sent;
      const res = await h.post(`/v0/tycho/webhook_endpoints/${ep.id}/deliveries`, { event_id: receiver.received[0]!.id });
      assert.equal(res.status, 202, res.text);
      finish();
      assert.equal((await round).succeeded, 1);
      assert.equal((await deliver()).succeeded, 1, 'the re-send is still due after the attempt is recorded');
      assert.deepEqual(receiver.received.map((r) => r.id), [receiver.received[0]!.id, receiver.received[0]!.id]);
      assert.equal((await deliver()).attempts, 0);
      const attempts = await h.get(`/v0/tycho/webhook_endpoints/${ep.id}/attempts`);
      assert.equal(attempts.body.data.length, 2);
      await h.delete(`/v0/webhook_endpoints/${ep.id}`);
    });

    it('serves the same events, ids and payloads in a pollable feed, oldest first, with a cursor', async () => {
      const other = await h.newOrg();
      const ep = await makeEndpoint(h, receiver, ['activity/item_created'], other.key);
      for (const name of ['Feed 1', 'Feed 2', 'Feed 3']) await person(name, other.key);
      await deliver();
      const seen: any[] = [];
      const feed = '/v0/tycho/events?limit=2&event_type[eq]=activity/item_created';
      // Reads forward until a page comes back empty; returns the cursor to poll with later.
      const catchUp = async (from?: string): Promise<string> => {
        let cursor = from;
        for (;;) {
          const page: Response = await h.get(cursor ? `${feed}&after=${encodeURIComponent(cursor)}` : feed, { key: other.key });
          assert.equal(page.status, 200, page.text);
          assert.ok(page.body.meta.cursors.next, 'every forward page says where to go on from');
          seen.push(...page.body.data);
          if (page.body.data.length === 0) {
            assert.equal(page.body.meta.cursors.next, cursor, 'an empty page hands back the cursor it was asked with');
            return cursor!;
          }
          cursor = page.body.meta.cursors.next;
        }
      };
      const resumeAt = await catchUp();
      assert.deepEqual(seen.map((e) => e.id), receiver.received.map((r) => r.id));
      assert.deepEqual(seen.map((e) => e.payload), receiver.received.map((r) => r.body));
      assert.ok(seen.every((e) => e.type === 'webhook_event' && e.event_type === 'activity/item_created'));
      // A poller that kept its cursor gets exactly what happened since (was: the last page had no cursor).
      seen.length = 0;
      await person('Feed 4', other.key);
      await deliver();
      await catchUp(resumeAt);
      assert.deepEqual(seen.map((e) => e.payload.item.id), [receiver.received.at(-1)!.body.item.id]);
      const bad = await h.get('/v0/tycho/events?event_type[eq]=item.created', { key: other.key });
      assert.equal(bad.status, 400);
      await h.delete(`/v0/webhook_endpoints/${ep.id}`, { key: other.key });
    });

    it('refuses to connect to private addresses the URL rules forbid (checked at send time)', async () => {
      const result = await sender.send({ url: 'https://10.255.255.1/hook', secret: 'whsec_AAAA', messageId: 'msg_x', body: '{}' });
      assert.equal(result.statusCode, null);
      assert.match(result.error!, /not sent: .*private range/);
      const named = await sender.send({ url: 'http://localhost:1/hook', secret: 'whsec_AAAA', messageId: 'msg_x', body: '{}' });
      assert.doesNotMatch(named.error ?? '', /not sent/, 'localhost may be used');
      const again = await sender.send({ url: 'https://10.255.255.1/hook', secret: 'whsec_AAAA', messageId: 'msg_y', body: '{}' });
      assert.match(again.error!, /not sent: .*private range/, 'refused on every attempt, not only the first');
    });

    it('records an attempt the receiver does not answer in time as failed with the reason, and sends the event again later with the same webhook-id', async () => {
      const other = await h.newOrg();
      const ep = await makeEndpoint(h, receiver, ['activity/item_created'], other.key);
      await person('Slow receiver', other.key);
      const quick = httpWebhookSender(PUBLIC_ONLY, { timeoutMs: 300 });
      receiver.delayMs = 2000;
      const first = await deliverDue(h.store, quick, { clock, random: noJitter, orgId: other.orgId });
      assert.deepEqual([first.attempts, first.failed], [1, 1]);
      const attempts = await h.get(`/v0/tycho/webhook_endpoints/${ep.id}/attempts`, { key: other.key });
      assert.equal(attempts.status, 200, attempts.text);
      assert.equal(attempts.body.data.length, 1);
      assert.equal(attempts.body.data[0].status_code, null);
      assert.equal(attempts.body.data[0].error, 'no answer within 0.3 s');
      receiver.delayMs = 0;
      clock.advance(RETRY_SCHEDULE_MS[0]);
      const second = await deliverDue(h.store, quick, { clock, random: noJitter, orgId: other.orgId });
      assert.equal(second.succeeded, 1);
      const ids = receiver.received.map((r) => r.id);
      assert.equal(new Set(ids).size, 1, `one webhook-id for both attempts: ${ids.join(', ')}`);
      const after = await h.get(`/v0/tycho/webhook_endpoints/${ep.id}/attempts`, { key: other.key });
      assert.deepEqual(after.body.data.map((a: any) => a.status_code), [200, null], 'newest first');
      await h.delete(`/v0/webhook_endpoints/${ep.id}`, { key: other.key });
    });

    it('gives up on a receiver that sends no answer, or only part of one, within the attempt\'s time, and hangs up', async () => {
      const closed: string[] = [];
      const silent = createServer((req, res) => {
        req.on('close', () => closed.push(req.url!));
        if (req.url === '/stalled') res.writeHead(200, { 'content-length': '100' }).write('{"partial":');
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      try {
        const quick = httpWebhookSender(PUBLIC_ONLY, { timeoutMs: 300 });
        for (const path of ['/silent', '/stalled']) {
          const result = await quick.send({ url: `${base}${path}`, secret: 'whsec_AAAA', messageId: 'msg_t', body: '{}' });
          assert.equal(result.statusCode, null, path);
          assert.equal(result.error, 'no answer within 0.3 s', path);
          assert.ok(result.latencyMs >= 290 && result.latencyMs < 5000, `${path}: ${result.latencyMs} ms`);
        }
        const deadline = Date.now() + 5000;
        while (closed.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        assert.deepEqual(closed.sort(), ['/silent', '/stalled'], 'the sender closed both connections');
      } finally {
        silent.closeAllConnections();
        await new Promise((resolve) => silent.close(resolve));
      }
    });

    it('counts attempts by outcome, their latency and the queue depth in /metrics', async () => {
      const metrics = await h.get('/metrics');
      assert.match(metrics.text, /tycho_webhook_attempts_total\{outcome="succeeded"\} \d+/);
      assert.match(metrics.text, /tycho_webhook_attempts_total\{outcome="retrying"\} \d+/);
      assert.match(metrics.text, /tycho_webhook_attempts_total\{outcome="failed"\} \d+/);
      assert.match(metrics.text, /tycho_webhook_attempt_duration_seconds_count \d+/);
      assert.match(metrics.text, /tycho_webhook_queue_depth \d+/);
    });
  });
}

describe('webhook sender: names, paths and TLS', () => {
  it('connects to the address it checked, sending the name as Host, the path and query as written', async () => {
    const seen: { host?: string; url?: string }[] = [];
    const server = createServer((req, res) => {
      seen.push({ host: req.headers.host, url: req.url });
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const result = await sender.send({ url: `http://localhost:${port}/hooks/in?source=tycho`, secret: 'whsec_AAAA', messageId: 'msg_n', body: '{}' });
      assert.deepEqual([result.statusCode, result.error, result.responseExcerpt], [200, null, 'ok']);
      assert.deepEqual(seen, [{ host: `localhost:${port}`, url: '/hooks/in?source=tycho' }]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('keeps the first KiB of a long answer and hangs up on the rest; reconnects when a receiver closes after each answer', async () => {
    const long = 'x'.repeat(100 * 1024);
    const server = createServer((req, res) => {
      if (req.url === '/long') res.writeHead(500).end(long);
      else res.writeHead(202, { connection: 'close' }).end('closing');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const send = (path: string) => sender.send({ url: `${base}${path}`, secret: 'whsec_AAAA', messageId: 'msg_l', body: '{}' });
      for (let i = 0; i < 2; i++) {
        const cut = await send('/long');
        assert.deepEqual([cut.statusCode, cut.error, cut.responseExcerpt], [500, 'the receiver answered 500', long.slice(0, 1024)]);
      }
      for (let i = 0; i < 3; i++) assert.deepEqual((await send('/close')).statusCode, 202);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('over HTTPS, asks for the URL\'s name (SNI) and refuses a certificate no authority vouches for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tycho-tls-'));
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];
    const name = ['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'];
    execFileSync('openssl', ['req', '-x509', ...curve, '-nodes', '-days', '1', ...name, '-keyout', key, '-out', cert], { stdio: 'ignore' });
    const names: string[] = [];
    let requests = 0;
    const context = { key: readFileSync(key), cert: readFileSync(cert) };
    const server = createHttpsServer({ ...context, SNICallback: (name, done) => (names.push(name), done(null, createSecureContext(context))) }, (_req, res) => {
      requests++;
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const result = await sender.send({ url: `https://localhost:${(server.address() as AddressInfo).port}/hook`, secret: 'whsec_AAAA', messageId: 'msg_s', body: '{}' });
      assert.equal(result.statusCode, null);
      assert.match(result.error!, /self-signed certificate/);
      assert.deepEqual([names, requests], [['localhost'], 0]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
