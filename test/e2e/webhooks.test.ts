// Webhook delivery by real `tycho serve` processes: an event committed by a process killed with SIGKILL
// before it could send it is delivered after a restart (the outbox survives); two processes on one PostgreSQL
// database deliver each event exactly once; SIGTERM stops a delivering server cleanly.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { throwawayPostgres } from '../helpers/harness.ts';
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
