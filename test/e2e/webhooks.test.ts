// Webhook delivery by real `tycho serve` processes: an event committed by a process killed with SIGKILL
// before it could send it is delivered after a restart (the outbox survives); two processes on one PostgreSQL
// database deliver each event exactly once; SIGTERM stops a delivering server cleanly. `serve` delivers from a
// worker thread (on both engines): its events arrive signed, its attempts count in /metrics (served by the
// API thread), and SIGTERM with an attempt in flight lets the attempt finish and be recorded, then exits 0;
// advancing a frozen organization's clock sends the retry the thread's failed attempt left, before it answers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINES, throwawayPostgres } from '../helpers/harness.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { startServer, stopServer, type ServerProcess } from '../helpers/tycho-server.ts';

const KEY = 'tycho_webhooks_e2e_key_0123456789';
type Server = ServerProcess;
const startWith = (env: Record<string, string>) => startServer({ TYCHO_API_KEY: KEY, ...env });

async function call(server: Server, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function subscribe(server: Server, receiver: Receiver): Promise<string> {
  const res = await call(server, 'POST', '/v0/webhook_endpoints', { url: receiver.url, subscriptions: [{ event_type: 'activity/item_created' }] });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  receiver.secret = res.body.secret;
  return res.body.id;
}

async function createPerson(server: Server, name: string): Promise<string> {
  const res = await call(server, 'POST', '/v0/collections/people/items', { values: { name: { type: 'value/text/single_line', data: name } } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

describe('webhooks across process deaths (SQLite file)', () => {
  let dir: string;
  let receiver: Receiver;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tycho-webhooks-e2e-'));
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers after a restart an event whose process was killed with SIGKILL right after the write committed', async () => {
    const env = { DATABASE_URL: join(dir, 'tycho.sqlite') };
    // The first process records but does not send (delivery off), then dies without any chance to clean up.
    const first = await startWith({ ...env, TYCHO_WEBHOOK_DELIVERY: 'off' });
    await subscribe(first, receiver);
    const id = await createPerson(first, 'Survivor');
    assert.equal(await stopServer(first, 'SIGKILL'), null);
    assert.equal(receiver.received.length, 0);

    const second = await startWith(env);
    await receiver.waitFor(1);
    assert.equal(receiver.received[0]!.body.item.id, id);
    assert.ok(receiver.received[0]!.verified);
    assert.equal(await stopServer(second, 'SIGTERM'), 0, 'SIGTERM stops a delivering server cleanly');
  });
});

describe('webhooks with two processes on one PostgreSQL database', { skip: !process.env.TEST_DATABASE_URL && 'TEST_DATABASE_URL is not set' }, () => {
  let database: Awaited<ReturnType<typeof throwawayPostgres>>;
  let servers: Server[] = [];
  let receiver: Receiver;
  before(async () => {
    database = await throwawayPostgres();
    receiver = await startReceiver();
    servers = [await startWith({ DATABASE_URL: database.url })];
    servers.push(await startWith({ DATABASE_URL: database.url }));
  });
  after(async () => {
    await Promise.all(servers.map((s) => stopServer(s, 'SIGTERM')));
    await receiver.close();
    await database.drop();
  });

  it('delivers each event exactly once', async () => {
    const endpoint = await subscribe(servers[0]!, receiver);
    const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => createPerson(servers[i % 2]!, `Person ${i}`)));
    await receiver.waitFor(ids.length);
    // Every delivery has been attempted once, successfully: the attempt log of both processes says so (an
    // attempt is logged just after the receiver has answered it).
    let attempts = await call(servers[1]!, 'GET', `/v0/tycho/webhook_endpoints/${endpoint}/attempts?limit=100`);
    for (const deadline = Date.now() + 10_000; attempts.body.data.length < ids.length && Date.now() < deadline; ) {
      await sleep(20);
      attempts = await call(servers[1]!, 'GET', `/v0/tycho/webhook_endpoints/${endpoint}/attempts?limit=100`);
    }
    assert.equal(attempts.body.data.length, ids.length);
    assert.ok(attempts.body.data.every((a: any) => a.status_code === 200));
    assert.equal(receiver.received.length, ids.length);
    assert.deepEqual(new Set(receiver.received.map((r) => r.body.item.id)), new Set(ids));
    assert.equal(new Set(receiver.received.map((r) => r.id)).size, ids.length);
    assert.ok(receiver.received.every((r) => r.verified));
  });
});

describe('webhook delivery thread started on demand (SQLite file)', () => {
  let dir: string;
  let receiver: Receiver;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tycho-webhooks-demand-'));
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers what a process it cannot hear recorded, once it finds it pending', async () => {
    const env = { DATABASE_URL: join(dir, 'tycho.sqlite'), TYCHO_DATA_DIR: dir };
    const deliverer = await startWith({ ...env, LOG_LEVEL: 'info' });
    const writer = await startWith({ ...env, TYCHO_WEBHOOK_DELIVERY: 'off' });
    try {
      await subscribe(writer, receiver);
      const id = await createPerson(writer, 'Heard of late');
      await receiver.waitFor(1);
      assert.equal(receiver.received[0]!.body.item.id, id);
      assert.ok(receiver.received[0]!.verified);
      assert.match(deliverer.output(), /webhook delivery runs on a worker thread/);
    } finally {
      assert.equal(await stopServer(writer, 'SIGTERM'), 0);
      assert.equal(await stopServer(deliverer, 'SIGTERM'), 0);
    }
  });
});

for (const engine of ENGINES) {
  describe(`webhook delivery on a worker thread of serve (${engine})`, () => {
    let dir: string;
    let database: Awaited<ReturnType<typeof throwawayPostgres>> | undefined;
    let receiver: Receiver;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'tycho-webhooks-thread-'));
      database = engine === 'postgres' ? await throwawayPostgres() : undefined;
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('delivers signed events from the thread, counts them in /metrics, and on SIGTERM finishes the attempt in flight', async () => {
      const env = { DATABASE_URL: database?.url ?? join(dir, 'tycho.sqlite'), TYCHO_DATA_DIR: dir };
      const server = await startWith({ ...env, LOG_LEVEL: 'info' });
      const running = () => /webhook delivery runs on a worker thread/.test(server.output());
      await sleep(2500);
      assert.equal(running(), false, 'no thread while no endpoint is enabled');
      const endpoint = await subscribe(server, receiver);
      // An enabled endpoint starts the thread before any event, so the first ones do not wait for its start.
      for (const deadline = Date.now() + 10_000; !running() && Date.now() < deadline; ) await sleep(20);
      assert.equal(running(), true, 'the thread runs once an endpoint is enabled');
      const ids = [await createPerson(server, 'Ada'), await createPerson(server, 'Bob'), await createPerson(server, 'Cy')];
      await receiver.waitFor(3);
      assert.deepEqual(receiver.received.map((r) => r.body.item.id), ids);
      assert.ok(receiver.received.every((r) => r.verified), 'every delivery verifies with standardwebhooks');
      assert.match(server.output(), /webhook delivery runs on a worker thread/);
      // An attempt is counted once recorded, just after the receiver answered.
      const succeeded = async () => {
        const text = await (await fetch(`${server.url}/metrics`)).text();
        return Number(/^tycho_webhook_attempts_total\{outcome="succeeded"\} (\d+)/m.exec(text)?.[1] ?? 0);
      };
      for (const deadline = Date.now() + 10_000; (await succeeded()) < 3 && Date.now() < deadline; ) await sleep(20);
      assert.equal(await succeeded(), 3, 'the thread\'s attempts are counted by the API thread\'s /metrics');

      // The receiver holds its answer back: SIGTERM arrives while the attempt is in flight.
      receiver.delayMs = 1500;
      ids.push(await createPerson(server, 'Dee'));
      await receiver.waitFor(4);
      const signalled = Date.now();
      assert.equal(await stopServer(server, 'SIGTERM'), 0);
      assert.ok(Date.now() - signalled >= 1000, 'the process waited for the attempt in flight');
      receiver.delayMs = 0;

      // The attempt was recorded before the exit: a process that does not deliver lists it as a success.
      const reader = await startWith({ ...env, TYCHO_WEBHOOK_DELIVERY: 'off' });
      try {
        const attempts = await call(reader, 'GET', `/v0/tycho/webhook_endpoints/${endpoint}/attempts?limit=100`);
        assert.equal(attempts.status, 200, JSON.stringify(attempts.body));
        assert.equal(attempts.body.data.length, 4);
        assert.ok(attempts.body.data.every((a: any) => a.status_code === 200));
      } finally {
        assert.equal(await stopServer(reader, 'SIGTERM'), 0);
      }
      assert.equal(receiver.received.length, 4);
      assert.equal(receiver.received[3]!.body.item.id, ids[3]);
    });

    it('advance sends a retry that fell due before it answers, though the thread sent the first attempt', async () => {
      const ADMIN = 'tycho_webhooks_e2e_admin_0123456789';
      // A receiver of its own: the test above left events on the shared one.
      const receiver = await startReceiver();
      const server = await startWith({ DATABASE_URL: database?.url ?? join(dir, 'clock.sqlite'), TYCHO_DATA_DIR: dir, TYCHO_ADMIN_KEY: ADMIN });
      const clock = async (action: string, body: unknown) => {
        const res = await fetch(`${server.url}/v0/tycho/clock/${action}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        assert.equal(res.status, 200, await res.text());
      };
      try {
        const endpoint = await subscribe(server, receiver);
        await clock('freeze', {});
        receiver.answer = 500;
        await createPerson(server, 'Retried');
        // The thread sends the first attempt (due at once) and records its failure.
        await receiver.waitFor(1);
        receiver.answer = 200;
        const attempts = async () => (await call(server, 'GET', `/v0/tycho/webhook_endpoints/${endpoint}/attempts`)).body.data.length;
        for (const deadline = Date.now() + 10_000; (await attempts()) < 1 && Date.now() < deadline; ) await sleep(20);
        // 6 s on the organization clock: past the 5 s wait, even stretched by the 10 % jitter. The thread keeps
        // no lease between rounds on an endpoint of an organization on a controlled clock: the advance sends it.
        await clock('advance', { seconds: 6 });
        assert.equal(receiver.received.length, 2, 'the retry arrived before the advance answered');
        assert.equal(receiver.received[1]!.id, receiver.received[0]!.id);
        assert.ok(receiver.received.every((r) => r.verified));
      } finally {
        assert.equal(await stopServer(server, 'SIGTERM'), 0);
        await receiver.close();
      }
    });
  });
}
