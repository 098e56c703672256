// Webhook test helpers: a real HTTP receiver on loopback that verifies every delivery with the official
// `standardwebhooks` package and answers as the test says (status, delay), a controllable clock, and an endpoint maker.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { sql, type Kysely } from 'kysely';
import type { Harness } from './harness.ts';
import type { Database } from '../../src/store/sql/schema.ts';

export interface Received {
  id: string;
  timestamp: string;
  body: any;
  raw: string;
  /** Whether the signature verified against the endpoint's secret. */
  verified: boolean;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The status the next requests get (200 by default). */
  answer: number;
  /** The body of each answer ("ok" or "not now" by default, as the status is). */
  answerBody: string | undefined;
  /** How long the receiver holds each answer back, in ms (0 by default): an attempt stays in flight that long. */
  delayMs: number;
  /** Runs before each answer, while the attempt is in flight (after any `delayMs`). */
  beforeAnswer: (() => Promise<unknown>) | undefined;
  /** Sets the secret deliveries are verified with. */
  secret: string | undefined;
  /** TCP connections accepted so far. */
  connections: number;
  /** Resolves when `count` deliveries have arrived in total. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const waiters: { count: number; resolve(): void }[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: 200,
    answerBody: undefined,
    delayMs: 0,
    beforeAnswer: undefined,
    secret: undefined,
    connections: 0,
    waitFor(count) {
      if (receiver.received.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
      let verified = false;
      try {
        assert.equal(req.headers['content-type'], 'application/json');
        if (receiver.secret) new Webhook(receiver.secret).verify(raw, headers);
        verified = receiver.secret !== undefined;
      } catch {
        verified = false;
      }
      receiver.received.push({ id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], body: JSON.parse(raw), raw, verified });
      const status = receiver.answer;
      const before = receiver.beforeAnswer;
      const send = () => res.writeHead(status, { 'content-type': 'text/plain' }).end(receiver.answerBody ?? (status < 300 ? 'ok' : 'not now'));
      const answer = () => (before ? void before().then(send, send) : send());
      if (receiver.delayMs > 0) setTimeout(answer, receiver.delayMs);
      else answer();
      for (const w of waiters.filter((w) => receiver.received.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}

/** A clock tests move by hand. */
export function manualClock(start = '2026-03-01T12:00:00.000Z') {
  let now = Date.parse(start);
  const clock = () => new Date(now);
  return Object.assign(clock, {
    advance(ms: number) {
      now += ms;
    },
  });
}

/** Creates an endpoint for the receiver subscribed to `events`; points the receiver at its secret. */
export async function makeEndpoint(h: Harness, receiver: Receiver, events: string[], key?: string): Promise<any> {
  const res = await h.post('/v0/webhook_endpoints', { url: receiver.url, subscriptions: events.map((event_type) => ({ event_type })) }, key ? { key } : {});
  assert.equal(res.status, 201, res.text);
  receiver.secret = res.body.secret;
  return res.body;
}

/** An enabled endpoint row of the organization, written under the store (for tests of the store's statements). */
export async function insertEndpointRow(raw: Kysely<Database>, orgId: string, id = 'ep'): Promise<void> {
  const now = new Date().toISOString();
  await sql`insert into webhook_endpoints (id, org_id, url, status, secret, subscriptions, created_at, updated_at)
    values (${id}, ${orgId}, 'https://example.com/hook', 'enabled', 'whsec_x', '[]', ${now}, ${now})`.execute(raw);
}
