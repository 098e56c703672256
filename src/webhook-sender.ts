// The webhook sender: one POST per attempt, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`,
// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`). Before connecting it resolves the
// host and checks every address against the URL rules (domain/webhook-urls.ts), then connects to the checked
// address itself, so a name cannot be re-resolved into the operator's network between check and use.
// Redirects are never followed: a 3xx is a failed attempt. The whole attempt, answer included, has 30 s.
// Connections are kept open between attempts (a few idle ones per sender, closed after 4 s unused: before the
// 5 s after which many servers close them, which would race a reuse), so a receiver taking a stream of events
// is not reconnected for each. A kept connection goes to the address checked when it was opened; each attempt
// still checks what the name resolves to now.
import { createHmac } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { WebhookRequest, WebhookResult, WebhookSender } from './domain/ports/webhook-sender.ts';
import { bareHost, isLoopbackHost, refusedAddress, type WebhookUrlPolicy } from './domain/webhook-urls.ts';
import { DELIVERY_CONCURRENCY } from './domain/webhook-delivery.ts';

export const ATTEMPT_TIMEOUT_MS = 30_000;
/** How much of the receiver's answer an attempt keeps. */
const EXCERPT_BYTES = 1024;

/** The `webhook-signature` value for one attempt (secret `whsec_` + base64 key). */
export function signature(secret: string, messageId: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', signingKey(secret)).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}

/** What a sender remembers per secret or URL: a stream of events to one endpoint repeats both. */
const MEMO_ENTRIES = 1000;
function memo<V>(compute: (key: string) => V): (key: string) => V {
  const entries = new Map<string, V>();
  return (key) => {
    let value = entries.get(key);
    if (value === undefined) {
      if (entries.size >= MEMO_ENTRIES) entries.clear();
      entries.set(key, (value = compute(key)));
    }
    return value;
  };
}

const signingKey = memo((secret) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));

/** The single address `address` as a lookup answer, in the form the caller asked for. */
const pinnedLookup = (address: string): LookupFunction => (_host, options, callback) => {
  const family = ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4;
  if (options.all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
  else callback(null, address, family);
};

/** Idle connections a sender keeps, and for how long. */
const IDLE_CONNECTIONS = { maxFreeSockets: DELIVERY_CONCURRENCY, timeout: 4_000 };

export function httpWebhookSender(policy: WebhookUrlPolicy, options: { timeoutMs?: number } = {}): WebhookSender {
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const parsedUrl = memo((raw) => new URL(raw));
  // A host written as an IP address always checks the same: only names are looked up on every attempt.
  const literalAddress = memo((raw): { ip: string } | { refused: string } | null => {
    const url = parsedUrl(raw);
    return ipaddr.isValid(bareHost(url)) ? checkedAddresses(url, [bareHost(url)], policy) : null;
  });
  const agents = { 'http:': new http.Agent({ keepAlive: true, ...IDLE_CONNECTIONS }), 'https:': new https.Agent({ keepAlive: true, ...IDLE_CONNECTIONS }) };
  return {
    async send(request: WebhookRequest): Promise<WebhookResult> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const failure = (error: string, statusCode: number | null = null, responseExcerpt: string | null = null): WebhookResult => ({
        statusCode,
        latencyMs: elapsed(),
        error,
        responseExcerpt,
      });
      // One timer for the whole attempt, the address check and lookup included.
      let timedOut = false;
      let abort = () => {
        timedOut = true;
      };
      const timer = setTimeout(() => abort(), timeoutMs);
      try {
        const url = parsedUrl(request.url);
        const address = literalAddress(request.url) ?? (await checkedAddress(url, policy));
        if ('refused' in address) return failure(address.refused);
        if (timedOut) throw new Error('timed out');
        const timestamp = Math.floor(Date.now() / 1000);
        const { status, excerpt } = await post(url, address.ip, agents[url.protocol === 'https:' ? 'https:' : 'http:'], request, timestamp, (cancel) => {
          abort = () => {
            timedOut = true;
            cancel();
          };
        });
        if (status >= 200 && status < 300) return { statusCode: status, latencyMs: elapsed(), error: null, responseExcerpt: excerpt };
        const why = status >= 300 && status < 400 ? `the receiver answered ${status}; redirects are not followed` : `the receiver answered ${status}`;
        return failure(why, status, excerpt);
      } catch (error) {
        if (timedOut) return failure(`no answer within ${timeoutMs / 1000} s`);
        return failure((error as Error).message || String(error));
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The address to connect to, or why none may be used. Every address the name has must be allowed. */
async function checkedAddress(url: URL, policy: WebhookUrlPolicy): Promise<{ ip: string } | { refused: string }> {
  return checkedAddresses(url, (await lookup(bareHost(url), { all: true, verbatim: true })).map((a) => a.address), policy);
}

/** `addresses`: what the URL's host is (an IP address) or resolves to (a name). */
function checkedAddresses(url: URL, addresses: string[], policy: WebhookUrlPolicy): { ip: string } | { refused: string } {
  const loopback = isLoopbackHost(url);
  for (const address of addresses) {
    const problem = refusedAddress(address, loopback, policy);
    if (problem) return { refused: `not sent: ${url.hostname} resolves to ${problem}` };
  }
  if (addresses.length === 0) return { refused: `not sent: ${url.hostname} has no address` };
  return { ip: addresses[0]! };
}

/** `onRequest` is given the way to cancel the request (on timeout). */
function post(
  url: URL,
  ip: string,
  agent: http.Agent,
  request: WebhookRequest,
  timestamp: number,
  onRequest: (cancel: () => void) => void,
): Promise<{ status: number; excerpt: string | null }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        agent,
        lookup: pinnedLookup(ip),
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(request.body),
          'user-agent': 'Tycho-Webhooks',
          'webhook-id': request.messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature(request.secret, request.messageId, timestamp, request.body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
          resolve({ status: res.statusCode ?? 0, excerpt: excerpt === '' ? null : excerpt });
        };
        res.on('data', (chunk: Buffer) => {
          if (size < EXCERPT_BYTES) chunks.push(chunk);
          size += chunk.length;
          // The rest of a long answer is of no use: stop reading it.
          if (size >= EXCERPT_BYTES) {
            res.destroy();
            finish();
          }
        });
        res.on('end', finish);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    onRequest(() => req.destroy(new Error('timed out')));
    req.end(request.body);
  });
}
