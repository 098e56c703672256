// Where webhooks may be sent. Like the hosted service, an endpoint is a public HTTPS URL; receivers on the
// loopback interface (localhost, 127.0.0.0/8, ::1) may use plain HTTP so local development works. The operator
// can allow plain HTTP and private address ranges explicitly. The same rules are checked twice: on the URL
// when an endpoint is saved, and on every resolved address before the sender connects (no SSRF through a name
// that resolves into the operator's network).
import ipaddr from 'ipaddr.js';
import { invalidAt } from './errors.ts';

export interface WebhookUrlPolicy {
  /** Plain `http:` to any host (loopback hosts may always use it). */
  allowHttp: boolean;
  /** Private, link-local, unique-local and shared (CGNAT) addresses. */
  allowPrivate: boolean;
}

export const PUBLIC_ONLY: WebhookUrlPolicy = { allowHttp: false, allowPrivate: false };

const MAX_URL_LENGTH = 2048;

/** Ranges no receiver lives in, whatever the policy. */
const NEVER = new Set(['unspecified', 'multicast', 'broadcast', 'reserved']);

/** A host name that always means this machine (RFC 6761). */
const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** The host of a URL without IPv6 brackets. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Whether the URL names this machine: `localhost` or a loopback address literal. */
export function isLoopbackHost(url: URL): boolean {
  const host = bareHost(url);
  if (isLoopbackName(host)) return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

/**
 * Why the sender must not connect to `address` for a URL (undefined when it may). Loopback addresses are
 * reachable only through a loopback URL, so a public name cannot be pointed at this machine.
 */
export function refusedAddress(address: string, loopbackUrl: boolean, policy: WebhookUrlPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  const range = ipaddr.process(address).range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback') return loopbackUrl ? undefined : `${address} is a loopback address, reachable only through a localhost URL`;
  if (NEVER.has(range)) return `${address} is in the ${range} range, where no receiver can be`;
  if (policy.allowPrivate) return undefined;
  return `${address} is in a private range (${range}); the operator can allow private ranges with TYCHO_WEBHOOK_ALLOW_PRIVATE=on`;
}

/** The endpoint URL as sent, checked: absolute HTTPS (or loopback/allowed HTTP), no credentials, an allowed host. */
export function checkWebhookUrl(raw: string, policy: WebhookUrlPolicy, pointer = '/url'): string {
  const shape = 'an absolute https:// URL such as "https://hooks.example.com/moonbase"';
  if (raw.length > MAX_URL_LENGTH) throw invalidAt(pointer, `url must be at most ${MAX_URL_LENGTH} characters, got ${raw.length}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidAt(pointer, `url must be ${shape}; got "${raw}"`);
  }
  const loopback = isLoopbackHost(url);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidAt(pointer, `url must be ${shape}; "${url.protocol}" is not HTTPS`);
  if (url.protocol === 'http:' && !loopback && !policy.allowHttp) {
    throw invalidAt(pointer, `url must be ${shape}: plain http:// is accepted only for localhost, 127.0.0.0/8 and ::1 (or when the operator sets TYCHO_WEBHOOK_ALLOW_HTTP=on)`);
  }
  if (url.username !== '' || url.password !== '') throw invalidAt(pointer, `url must be ${shape} without user name or password`);
  // The URL standard parses port 0, but nothing can be reached there: every delivery would fail.
  if (url.port === '0') throw invalidAt(pointer, `url must be ${shape} with a port from 1 to 65535 (or none); got port 0`);
  const host = bareHost(url);
  if (ipaddr.isValid(host)) {
    const problem = refusedAddress(host, loopback, policy);
    if (problem) throw invalidAt(pointer, `url must be ${shape} of a public host: ${problem}`);
  }
  // Kept as sent, as the hosted service echoes it; the sender parses it again.
  return raw;
}
