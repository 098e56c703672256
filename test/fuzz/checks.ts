// What every response must satisfy, as documented in docs/behaviour.md ("Requests and errors"):
// - no 5xx (and no hang, and no request slower than FUZZ_SLOW_MS);
// - every 4xx is the errors envelope with one error whose status is the response's, as a string, and a title;
//   400/408/409/413/415/422/431 carry a `code`; 400 and 422 carry a `detail`; 403/404/429 carry none;
// - a 422 points at what failed (`source.pointer` into the body or `source.parameter`), unless its code is
//   `invalid_state` (the target's state refuses the request); a 400 about a query
//   parameter, a header or a cursor names it in `source.parameter`;
// - every 409 carries `x-should-retry: false`;
// - every status is one the OpenAPI document lists for the operation (runner.ts, checkDocumented);
// - a request that failed wrote nothing (checked by the caller with database fingerprints).
import type { WireResponse } from './harness.ts';

export type ViolationKind = '5xx' | 'hang' | 'slow' | 'envelope' | 'source' | 'data-changed' | 'access' | 'undocumented';

export interface Violation {
  kind: ViolationKind;
  message: string;
  /** Groups findings with the same cause; the fuzzer reports each signature of an operation once. */
  signature: string;
}

/** Server error text with ids, numbers and quoted parts blurred, so that one cause gives one signature. */
export function causeOf(serverError: string | undefined): string {
  if (!serverError) return 'no error logged';
  return serverError
    .replace(/\(at .*$/, '')
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '"…"')
    .replace(/[1-9A-HJ-NP-Za-km-z]{22}/g, '<id>')
    .replace(/\d+/g, 'N')
    .trim()
    .slice(0, 160);
}

const SOURCE_CODES = new Set(['invalid_parameter', 'invalid_header', 'invalid_cursor']);
const CODED = new Set([400, 408, 409, 413, 415, 422, 431]);
const BARE = new Set([403, 404, 429]);

export function checkResponse(res: WireResponse, slowMs: number, method = 'GET'): Violation[] {
  const out: Violation[] = [];
  if (res.hung) return [{ kind: 'hang', message: 'no response within the hang limit', signature: 'hang' }];
  if (res.ms > slowMs) out.push({ kind: 'slow', message: `took ${Math.round(res.ms)} ms (limit ${slowMs} ms)`, signature: 'slow' });
  if (res.status >= 500) {
    const cause = res.serverErrors[0];
    out.push({ kind: '5xx', message: `status ${res.status}; server logged: ${res.serverErrors.join(' | ') || 'nothing'}`, signature: `${res.status} ${causeOf(cause)}` });
  }
  if (res.status >= 200 && res.status < 300 && /^application\/json/.test(String(res.headers['content-type'] ?? '')) && res.text !== '' && res.body === undefined && method !== 'HEAD') {
    out.push({ kind: 'envelope', message: `${res.status} says JSON but the body does not parse: ${res.text.slice(0, 300)}`, signature: `${res.status} body is not JSON` });
  }
  // HEAD: app.inject hands back the body Fastify wrote, which Node's HTTP server drops on a real socket for
  // HEAD (checked by hand: error answers there have none), so there is no body to judge.
  if (method !== 'HEAD' && res.status >= 400 && res.status < 500) out.push(...checkErrorBody(res));
  return out;
}

function checkErrorBody(res: WireResponse): Violation[] {
  const status = res.status;
  const bad = (reason: string): Violation => ({ kind: 'envelope', message: `${status} ${reason}; body: ${res.text.slice(0, 400)}`, signature: `${status} ${reason}` });
  const body = res.body;
  const contentType = String(res.headers['content-type'] ?? '');
  if (!/^application\/json/.test(contentType)) return [bad(`content-type is "${contentType}", not JSON`)];
  if (!body || typeof body !== 'object' || body.type !== 'errors' || !Array.isArray(body.errors)) return [bad('body is not the errors envelope')];
  if (body.errors.length !== 1) return [bad(`envelope holds ${body.errors.length} errors`)];
  const error = body.errors[0];
  const out: Violation[] = [];
  if (!error || typeof error !== 'object' || error.type !== 'error') return [bad('error object without type "error"')];
  if (error.status !== String(status)) out.push(bad(`error status ${JSON.stringify(error.status)} differs from the response status`));
  if (typeof error.title !== 'string' || error.title === '') out.push(bad('error without a title'));
  if (CODED.has(status) && typeof error.code !== 'string') out.push(bad('error without a code'));
  if ((status === 400 || status === 422) && typeof error.detail !== 'string') out.push(bad('validation error without a detail'));
  if (BARE.has(status) && error.detail !== undefined) out.push(bad('detail on a bare status'));
  if (status === 409 && res.headers['x-should-retry'] !== 'false') out.push(bad('409 without x-should-retry: false'));
  const source = error.source;
  const pointer = source?.pointer;
  const parameter = source?.parameter;
  if (pointer !== undefined && (typeof pointer !== 'string' || (pointer !== '' && !pointer.startsWith('/')))) {
    out.push({ kind: 'source', message: `${status} source.pointer ${JSON.stringify(pointer)} is not a JSON pointer; body: ${res.text.slice(0, 400)}`, signature: `${status} bad pointer` });
  }
  // invalid_state: the target's state (a sent message, a funnel in use) refuses the request, not an input.
  if (status === 422 && error.code !== 'invalid_state' && typeof pointer !== 'string' && !(typeof parameter === 'string' && parameter !== '')) {
    out.push({ kind: 'source', message: `422 (${error.code}) without source.pointer or source.parameter; body: ${res.text.slice(0, 400)}`, signature: `422 ${error.code} without source` });
  }
  if (status === 400 && SOURCE_CODES.has(error.code) && !(typeof parameter === 'string' && parameter !== '')) {
    out.push({ kind: 'source', message: `400 ${error.code} without a named source.parameter; body: ${res.text.slice(0, 400)}`, signature: `400 ${error.code} without parameter` });
  }
  return out;
}
