// Idempotency-Key (as the IETF draft and Stripe have it): the first answer to a write sent with a key is kept
// for 24 hours per organization and key; a retry of the same request gets it again, the same key on another
// request is refused (422), and a retry while the first is still being answered is refused (409). The claim
// is one insert on the (organization, key) primary key, so exactly one request wins it in every process.
import { createHash } from 'node:crypto';
import { AppError } from './errors.ts';
import { timestamp, type Clock } from './clock.ts';
import type { IdempotencyRecord, StoredResponse } from './ports/toolkit-store.ts';
import type { Store } from './ports/store.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** An unanswered claim this old (system time) was left by a process that died: the next retry takes it over. */
export const ABANDONED_CLAIM_MS = 60_000;

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/** What a request is, for telling a retry from another request under the same key. */
export function fingerprintOf(parts: { method: string; url: string; contentType: string; body: string }): string {
  return createHash('sha256').update(`${parts.method}\n${parts.url}\n${parts.contentType}\n${parts.body}`).digest('hex');
}

export function checkIdempotencyKey(key: string): void {
  if (!KEY_SHAPE.test(key)) {
    throw new AppError('invalid_header', 'header Idempotency-Key must be 1 to 255 printable ASCII characters without spaces, such as a UUID', { parameter: 'Idempotency-Key' });
  }
}

export type Claim = { kind: 'claimed'; claimedAtMs: number } | { kind: 'replay'; response: StoredResponse };

/**
 * Claims the key for this request, or returns the stored answer of the same request. `realNow` is the system
 * time (abandoned claims); the organization's clock decides the 24 hours.
 */
export async function claimIdempotencyKey(
  store: Store,
  request: { orgId: string; key: string; fingerprint: string },
  clock: Clock,
  realNow: number,
): Promise<Claim> {
  const now = clock();
  await store.idempotency.expire(request.orgId, new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString());
  for (let attempt = 0; attempt < 3; attempt++) {
    // The fraction tells this claim from another made in the same millisecond, for the conditional writes.
    const record: IdempotencyRecord = { ...request, createdAt: timestamp(() => now), claimedAtMs: realNow + Math.random() };
    if (await store.idempotency.claim(record)) return { kind: 'claimed', claimedAtMs: record.claimedAtMs };
    const existing = await store.idempotency.find(request.orgId, request.key);
    // Gone between the two statements (expired, released): claim again.
    if (!existing) continue;
    if (existing.fingerprint !== request.fingerprint) {
      throw new AppError(
        'idempotency_key_reused',
        `the Idempotency-Key ${JSON.stringify(request.key)} was first used with a different request (method, path, query or body); use a new key for a new request`,
        { parameter: 'Idempotency-Key' },
      );
    }
    if (existing.response) return { kind: 'replay', response: existing.response };
    if (realNow - existing.claimedAtMs < ABANDONED_CLAIM_MS) {
      throw new AppError('idempotency_key_in_use', `a request with the Idempotency-Key ${JSON.stringify(request.key)} is still being processed; retry after it is answered`);
    }
    await store.idempotency.release(request.orgId, request.key, existing.claimedAtMs);
  }
  throw new AppError('idempotency_key_in_use', `the Idempotency-Key ${JSON.stringify(request.key)} is contended; retry`);
}

/** Keeps the answer (below 500) for replays; a server error frees the key so that a retry runs again. */
export async function settleIdempotencyKey(store: Store, orgId: string, key: string, claimedAtMs: number, response: StoredResponse): Promise<void> {
  if (response.status >= 500) await store.idempotency.release(orgId, key, claimedAtMs);
  else await store.idempotency.complete(orgId, key, claimedAtMs, response);
}
