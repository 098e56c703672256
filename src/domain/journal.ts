// The request journal: what each organization's clients sent and got, newest first, for integration tests to
// assert on (like WireMock's). Bodies are cut to a few kilobytes, and credentials never reach the table:
// the Authorization header and every body or header property whose name says secret are replaced.
import type { JournalEntry, JournalQuery } from './ports/toolkit-store.ts';
import type { Store } from './ports/store.ts';

export const DEFAULT_JOURNAL_SIZE = 1000;
/** Characters of a body kept; the rest is replaced by a marker saying how much was cut. */
export const BODY_LIMIT = 4096;
export const REDACTED = '[redacted]';

// authorization, api-key, cookie, credential, password, passwd, secret, signature, token: grouped by first letter,
// which tests a long body's kept part in about half the time of the plain alternation.
const SECRET_NAME = /a(?:uthorization|pi[-_]?key)|c(?:ookie|redential)|passw(?:or)?d|s(?:ecret|ignature)|token/i;

/** `value` with every property whose name looks like a credential replaced, at any depth. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_NAME.test(k) ? REDACTED : redact(v)]));
  }
  return value;
}

export function truncate(text: string): string {
  return text.length <= BODY_LIMIT ? text : `${text.slice(0, BODY_LIMIT)}… [${text.length - BODY_LIMIT} more characters]`;
}

/** A body as the journal keeps it: JSON redacted then cut; anything else only cut. */
export function journalBody(text: string | undefined): string | null {
  if (text === undefined || text === '') return null;
  // Most bodies name no secret at all — at least not in the part that is kept: no need to parse them.
  if (!SECRET_NAME.test(text.length <= BODY_LIMIT ? text : text.slice(0, BODY_LIMIT))) return truncate(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return truncate(text);
  }
  return truncate(JSON.stringify(redact(parsed)));
}

/**
 * A body as it waits to be written: one of at most BODY_LIMIT characters as it was sent (made into the journal's
 * form only if it is written), a longer one already in that form — redacted and cut — so what waits is no
 * longer than what is kept.
 */
export type HeldBody = string | { kept: string | null } | undefined;

export function holdBody(text: string | undefined): HeldBody {
  return text === undefined || text.length <= BODY_LIMIT ? text : { kept: journalBody(text) };
}

const keptBody = (body: HeldBody): string | null => (typeof body === 'object' ? body.kept : journalBody(body));

/** A header's value as the journal records it: a repeated header's values joined. */
export const headerText = (value: string | string[]): string => (Array.isArray(value) ? value.join(', ') : value);

/** A request as it was answered: what its journal entry is made from, once it is written. */
export interface JournalRequest {
  /** The entry's id, and the time of the answer, taken then: they order the journal. */
  id: string;
  occurredAt: string;
  orgId: string;
  requestId: string;
  method: string;
  url: string;
  status: number;
  latencyMs: number;
  headers: Record<string, string | string[] | undefined>;
  requestBody: HeldBody;
  responseBody: HeldBody;
}

/** The journal's record of a request: query and headers redacted, bodies redacted and cut. */
export function journalEntry(request: JournalRequest): JournalEntry {
  const [path, query] = splitUrl(request.url);
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers.push([name, isSecretHeader(name) ? REDACTED : headerText(value)]);
  }
  const entry: JournalEntry = {
    id: request.id,
    orgId: request.orgId,
    requestId: request.requestId,
    method: request.method,
    path,
    query,
    status: request.status,
    latencyMs: Math.round(request.latencyMs * 1000) / 1000,
    // From pairs, so a header named __proto__ is an own property like any other.
    requestHeaders: Object.fromEntries(headers),
    requestBody: keptBody(request.requestBody),
    responseBody: keptBody(request.responseBody),
    occurredAt: request.occurredAt,
  };
  return entry;
}

/** Records entries (of any organizations) in one transaction, each organization keeping its newest `keep`. */
export function saveJournalEntries(store: Store, entries: JournalEntry[], keep: number): Promise<void> {
  return store.transaction((tx) => tx.journal.insertMany(entries, keep));
}

/** Header names repeat from request to request: each is checked once. */
const secretHeaders = new Map<string, boolean>();
const MAX_HEADER_NAMES = 1000;

function isSecretHeader(name: string): boolean {
  let secret = secretHeaders.get(name);
  if (secret === undefined) {
    secret = SECRET_NAME.test(name);
    if (secretHeaders.size < MAX_HEADER_NAMES) secretHeaders.set(name, secret);
  }
  return secret;
}

/** The path, and the query with the values of secret-looking parameters (`?api_key=…`) redacted. */
function splitUrl(url: string): [string, string] {
  const q = url.indexOf('?');
  if (q < 0) return [url, ''];
  const query = url.slice(q + 1);
  const redacted = query
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0]!;
      return SECRET_NAME.test(decodeURIComponentSafe(name)) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return [url.slice(0, q), redacted];
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export const listJournal = (store: Store, orgId: string, query: JournalQuery): Promise<JournalEntry[]> => store.journal.list(orgId, query);

export const clearJournal = (store: Store, orgId: string): Promise<void> => store.journal.clear(orgId);
