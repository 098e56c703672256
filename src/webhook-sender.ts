// The webhook sender: one POST per attempt, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`,
// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`). Before connecting it resolves the
// host and checks every address against the URL rules (domain/webhook-urls.ts), then connects to the checked
// address itself, so a name cannot be re-resolved into the operator's network between check and use.
// Redirects are never followed: a 3xx is a failed attempt. The whole attempt, answer included, has 30 s.
// Requests go through undici's dispatcher interface (a request costs its client about half the CPU of
// node:http's, which on a loaded machine is taken from the API), one connection per URL and checked address:
// an endpoint's events go out one after another. Connections are kept open between attempts (closed after 4 s
// unused: before the 5 s after which many servers close them, which would race a reuse), so a receiver taking
// a stream of events is not reconnected for each; each attempt still checks what the name resolves to now.
import { createHmac } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Dispatcher } from 'undici';
import type { WebhookRequest, WebhookResult, WebhookSender } from './domain/ports/webhook-sender.ts';
import { bareHost, isLoopbackHost, refusedAddress, type WebhookUrlPolicy } from './domain/webhook-urls.ts';
import { storableText } from './domain/characters.ts';

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

/** How long a sender keeps an idle connection. */
const KEEP_ALIVE_MS = 4_000;

/**
 * undici, loaded by the first attempt: the API's thread, which sends nothing while a delivery thread runs,
 * does not hold it (about 5 MB of heap).
 */
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

export function httpWebhookSender(policy: WebhookUrlPolicy, options: { timeoutMs?: number } = {}): WebhookSender {
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const parsedUrl = memo((raw) => new URL(raw));
  // A host written as an IP address always checks the same: only names are looked up on every attempt.
  const literalAddress = memo((raw): { ip: string } | { refused: string } | null => {
    const url = parsedUrl(raw);
    return ipaddr.isValid(bareHost(url)) ? checkedAddresses(url, [bareHost(url)], policy) : null;
  });
  // Set by the first attempt (loadUndici); clients are made synchronously after it, so one that could not be
  // made is not remembered.
  let Client: typeof import('undici').Client | undefined;
  // A client connects only to the address it was made for. Those the memo's bound forgets close once idle.
  const clients = memo((key): Dispatcher => {
    const [href, ip] = key.split(' ') as [string, string];
    return new Client!(new URL(href).origin, { keepAliveTimeout: KEEP_ALIVE_MS, connect: { lookup: pinnedLookup(ip) } });
  });
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
        Client ??= (await loadUndici()).Client;
        const client = clients(`${url.href} ${address.ip}`);
        if (timedOut) throw new Error('timed out');
        const timestamp = Math.floor(Date.now() / 1000);
        const { status, excerpt } = await post(client, url, request, timestamp, (cancel) => {
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
        return failure(storableText((error as Error).message || String(error)));
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
  client: Dispatcher,
  url: URL,
  request: WebhookRequest,
  timestamp: number,
  onRequest: (cancel: () => void) => void,
): Promise<{ status: number; excerpt: string | null }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => {
      // Kept as text: a NUL byte in the answer would fail the attempt's record on PostgreSQL, round after round.
      const excerpt = storableText(Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'));
      resolve({ status, excerpt: excerpt === '' ? null : excerpt });
    };
    // Cancelled before the request started (still connecting): the attempt ends now, the request as it starts.
    let cancelled = false;
    onRequest(() => {
      cancelled = true;
      reject(new Error('timed out'));
    });
    client.dispatch(
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Tycho-Webhooks',
          'webhook-id': request.messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature(request.secret, request.messageId, timestamp, request.body),
        },
        body: request.body,
      },
      {
        onRequestStart(controller) {
          if (cancelled) controller.abort(new Error('timed out'));
          else onRequest(() => controller.abort(new Error('timed out')));
        },
        onResponseStart(_controller, statusCode) {
          status = statusCode;
        },
        onResponseData(controller, chunk) {
          if (size < EXCERPT_BYTES) chunks.push(chunk);
          size += chunk.length;
          // The rest of a long answer is of no use: stop reading it.
          if (size >= EXCERPT_BYTES) controller.abort(new Error('answer long enough'));
        },
        onResponseEnd: finish,
        onResponseError(_controller, error) {
          if (size >= EXCERPT_BYTES) finish();
          else reject(error);
        },
      },
    );
  });
}
