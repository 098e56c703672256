// Time-driven background work on an organization's controlled clock (issue 16). Webhooks: advancing a frozen
// clock sends the retries that fell due on it before the call answers, with the same `webhook-id` (verified
// with `standardwebhooks`); the delivery worker, running on the real time, sends a frozen organization's first
// attempt at once but its retries only when that organization's clock reaches them, while other
// organizations' retries follow the real time; the controlled clocks are reread only after one changed.
// Program messages: due on the organization's clock, both for advance and for the sender `serve` runs. The
// "real time" is a clock the test moves, so nothing sleeps for the 5 s schedule.
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_KEY, ENGINES, createHarness, type Harness } from '../helpers/harness.ts';
import { makeItem, text } from '../helpers/items.ts';
import { makeEndpoint, manualClock, startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { startDeliveryWorker } from '../../src/webhook-worker.ts';
import { httpWebhookSender } from '../../src/webhook-sender.ts';
import { PUBLIC_ONLY } from '../../src/domain/webhook-urls.ts';
import { makeProgram, makeTemplate } from '../helpers/programs.ts';
import { sendDue } from '../../src/domain/program-messages.ts';
import { controlledClocks } from '../../src/domain/org-clock.ts';

const T0 = '2030-01-01T09:00:00.000Z';
const at = (ms: number, from = T0) => new Date(Date.parse(from) + ms).toISOString();

/** `promise`, or a failure naming `what` after `ms`: a missing delivery fails the test instead of hanging it. */
async function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

for (const engine of ENGINES) {
  describe(`toolkit: webhook retries follow the organization clock (${engine})`, () => {
    let h: Harness;
    let receiver: Receiver;
    const real = manualClock('2026-11-23T12:00:00.000Z');

    /** A sandbox (its id and key) with an endpoint of `target` for item creations. */
    const sandbox = async (target: Receiver) => {
      const res = await h.post('/v0/tycho/admin/sandboxes', {}, { key: ADMIN_KEY });
      assert.equal(res.status, 201, res.text);
      const key: string = res.body.api_key;
      const endpoint = await makeEndpoint(h, target, ['activity/item_created'], key);
      return { orgId: res.body.id as string, key, endpoint };
    };
    const clock = async (key: string, path: string, body: unknown) => {
      const res = await h.post(`/v0/tycho/clock${path}`, body, { key });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };

    before(async () => {
      h = await createHarness(engine, { clock: real });
    });
    after(() => h.close());
    beforeEach(async () => {
      receiver = await startReceiver();
    });
    afterEach(() => receiver.close());

    it('advance sends the retry that fell due on the frozen clock before it answers, with the same webhook-id', async () => {
      const { key, endpoint } = await sandbox(receiver);
      await clock(key, '/freeze', { at: T0 });
      receiver.answer = 500;
      await makeItem(h, 'people', { name: text('Ada') }, { key });

      // Moving the clock at all runs what is due: the first attempt (due at once), which fails.
      await clock(key, '/advance', { milliseconds: 1 });
      assert.equal(receiver.received.length, 1);
      receiver.answer = 200;

      await clock(key, '/advance', { seconds: 4 });
      assert.equal(receiver.received.length, 1, 'the retry is not due 4 s after the failure');

      // 6 s after the failure: past the 5 s wait, even stretched by the 10 % jitter.
      const advanced = await clock(key, '/advance', { seconds: 2 });
      assert.equal(advanced.now, at(6001));
      assert.equal(receiver.received.length, 2, 'the retry arrived before the advance answered');
      assert.equal(receiver.received[1]!.id, receiver.received[0]!.id);
      assert.ok(receiver.received.every((r) => r.verified), 'every delivery verifies with standardwebhooks');

      const attempts = await h.get(`/v0/tycho/webhook_endpoints/${endpoint.id}/attempts`, { key });
      assert.equal(attempts.status, 200, attempts.text);
      assert.deepEqual(
        attempts.body.data.map((a: any) => [a.attempted_at, a.status_code]),
        [
          [at(6001), 200],
          [at(1), 500],
        ],
        'attempts are recorded on the organization clock',
      );
    });

    it('a round reads the controlled clocks only after one changed: no query while none moves', async () => {
      // PostgreSQL: the change signals need their LISTEN connection before anything is remembered.
      while ((await h.store.clocks.changeToken()) === undefined) await sleep(10);
      let lists = 0;
      const clocks = { ...h.store.clocks, list: () => (lists++, h.store.clocks.list()) };
      const read = controlledClocks({ ...h.store, clocks }, real);
      for (let round = 0; round < 5; round++) await read();
      assert.equal(lists, 1);
      const { orgId, key } = await sandbox(receiver);
      await clock(key, '/freeze', { at: T0 });
      const controlled = await read();
      assert.equal(lists, 2, 'reread after a clock changed');
      assert.equal(controlled.get(orgId)?.().toISOString(), T0);
    });

    it('the worker sends a frozen organization its first attempt at once, and its retry only when its clock reaches it', async () => {
      const running = await startReceiver();
      const errors: unknown[] = [];
      const worker = startDeliveryWorker(h.store, httpWebhookSender(PUBLIC_ONLY), { clock: real, pollMs: 5, onError: (error) => errors.push(error) });
      try {
        const frozen = await sandbox(receiver);
        const other = await sandbox(running);
        // Frozen at the real time, so that real time passing would make its retry due.
        const frozenAt = real().toISOString();
        await clock(frozen.key, '/freeze', { at: frozenAt });
        receiver.answer = 500;
        running.answer = 500;
        await makeItem(h, 'people', { name: text('Ada') }, { key: frozen.key });
        await makeItem(h, 'people', { name: text('Bob') }, { key: other.key });
        await within(receiver.waitFor(1), 'the frozen organization’s first attempt');
        await within(running.waitFor(1), 'the other organization’s first attempt');
        receiver.answer = 200;
        running.answer = 200;

        // Real time passes beyond the retry's wait: the organization on the real time gets its retry…
        real.advance(10_000);
        await within(running.waitFor(2), 'the retry on the real time');
        // …while the frozen one, several rounds later, still has not.
        await sleep(100);
        assert.equal(receiver.received.length, 1, 'a frozen organization’s retry waits for its clock');

        // Its clock moves past the wait (written straight to the store, so only the worker can send it).
        await h.store.clocks.save(frozen.orgId, { frozenAt: at(6000, frozenAt), offsetMs: 0 });
        await within(receiver.waitFor(2), 'the retry on the organization clock');
        assert.equal(receiver.received[1]!.id, receiver.received[0]!.id);
        assert.ok([...receiver.received, ...running.received].every((r) => r.verified));
        assert.deepEqual(errors, []);
      } finally {
        await worker.stop();
        await running.close();
      }
    });
  });
}

for (const engine of ENGINES) {
  describe(`toolkit: program messages follow the organization clock (${engine})`, () => {
    let h: Harness;
    const real = manualClock('2026-11-23T12:00:00.000Z');
    before(async () => {
      h = await createHarness(engine, { clock: real });
    });
    after(() => h.close());

    it('a message queued under a clock frozen ahead is sent by advance and by the sender on that clock', async () => {
      const res = await h.post('/v0/tycho/admin/sandboxes', {}, { key: ADMIN_KEY });
      assert.equal(res.status, 201, res.text);
      const key: string = res.body.api_key;
      assert.equal((await h.post('/v0/tycho/clock/freeze', { at: T0 }, { key })).status, 200);
      const program = await makeProgram(h, {}, key);
      const template = await makeTemplate(h, program.id, 'Hello', 'Hi {{ person.email }}', key);
      const queue = async (address: string) => {
        const queued = await h.post('/v0/program_messages', { person: { email: address }, program_template_id: template.id }, { key });
        assert.equal(queued.status, 202, queued.text);
        return queued.body.id as string;
      };
      const message = async (id: string) => (await h.get(`/v0/tycho/program_messages/${id}`, { key })).body;

      const first = await queue('first@example.com');
      const advanced = await h.post('/v0/tycho/clock/advance', { milliseconds: 1 }, { key });
      assert.equal(advanced.status, 200, advanced.text);
      assert.deepEqual([(await message(first)).status, (await message(first)).sent_at], ['sent', at(1)], 'sent before advance answered');

      // Due at 2030 on its clock: on the real time (2026) it would wait four years.
      const second = await queue('second@example.com');
      assert.equal((await sendDue(h.store, { now: real().toISOString() })).sent, 0, 'not due on the real time');
      const report = await sendDue(h.store, { now: real().toISOString(), orgClocks: await controlledClocks(h.store, real)() });
      assert.equal(report.sent, 1);
      assert.deepEqual([(await message(second)).status, (await message(second)).sent_at], ['sent', at(1)], 'sent at the organization’s time');
    });
  });
}
