// Idempotency-Key (as the IETF draft and Stripe have it): the first answer to a write sent with a key is kept
// for 24 hours per credential (API key or token subject) and key; a retry of the same request gets it again,
// the same key on another request is refused (422), and a retry while the first is still being answered is
// refused (409). Per credential, so that an answer is only ever replayed to the credential that was allowed
// to make the request. The claim is one insert on the (organization, key) primary key, the stored key naming
// the credential too, so exactly one request wins it in every process.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { AppError } from './errors.ts';
import { timestamp, type Clock } from './clock.ts';
import type { IdempotencyRecord, StoredResponse } from './ports/toolkit-store.ts';
import type { Store } from './ports/store.ts';
import type { Principal } from './api-keys.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** An unanswered claim this old (system time) was left by a process that died: the next retry takes it over. */
export const ABANDONED_CLAIM_MS = 60_000;

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * What a request is, for telling a retry from another request under the same key: method, target, media type
 * (without parameters: a multipart boundary is new on every send) and the body — its JSON with keys in
 * order, so that a client rebuilding the same object in another key order sends the same request. A body the
 * handler streams (an upload) is not read yet: its fingerprint is completed with the digest of its bytes
 * (`streamedFingerprint`) once they have been read.
 */
export function fingerprintOf(parts: { method: string; url: string; contentType: string; body: unknown }): string {
  const mediaType = parts.contentType.split(';')[0]!.trim().toLowerCase();
  const body = typeof parts.body === 'string' ? parts.body : canonicalJson(parts.body);
  return createHash('sha256').update(`${parts.method}\n${parts.url}\n${mediaType}\n${body}`).digest('hex');
}

/** The fingerprint of a request whose streamed body has the SHA-256 `bodyDigest` (hex) (`fingerprintOf` gave `head`). */
export const streamedFingerprint = (head: string, bodyDigest: string): string => `${head}:${bodyDigest}`;

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** The key as stored: the credential that sent it, and the key itself. */
export const credentialKey = (principal: Principal, key: string): string => `${principal.actor.type}:${principal.actor.id}:${key}`;

/** Credentials minted by the request are not kept in its stored answer (keys are stored only as hashes). */
const MINTED_CREDENTIALS = new Set(['api_key']);

/** The answer as kept for replays: a newly made API key in it is replaced by a note saying why it is gone. */
export function keptBody(body: string): string {
  if (!body.includes('"api_key"')) return body;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return body;
    for (const name of MINTED_CREDENTIALS) if (typeof parsed[name] === 'string') parsed[name] = NOT_KEPT;
    return JSON.stringify(parsed);
  } catch {
    return body;
  }
}

export const NOT_KEPT = '[not kept: shown only in the first answer]';

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
  claim: {
    principal: Principal;
    key: string;
    fingerprint: string;
    /** For a streamed body: reads the rest of it and gives its digest, to compare it with a kept answer's request. */
    streamedBody?: () => Promise<string>;
  },
  clock: Clock,
  realNow: number,
): Promise<Claim> {
  const shown = claim.key;
  const request = { orgId: claim.principal.orgId, key: credentialKey(claim.principal, claim.key), fingerprint: claim.fingerprint };
  const now = clock();
  await store.idempotency.expire(request.orgId, new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString());
  for (let attempt = 0; attempt < 3; attempt++) {
    // The fraction tells this claim from another made in the same millisecond, for the conditional writes.
    const record: IdempotencyRecord = { ...request, createdAt: timestamp(() => now), claimedAtMs: realNow + Math.random() };
    if (await store.idempotency.claim(record)) return { kind: 'claimed', claimedAtMs: record.claimedAtMs };
    const existing = await store.idempotency.find(request.orgId, request.key);
    // Gone between the two statements (expired, released): claim again.
    if (!existing) continue;
    // A kept answer's streamed request is known by its bytes too; one still in progress by its head alone.
    const same =
      existing.response && claim.streamedBody
        ? existing.fingerprint === streamedFingerprint(request.fingerprint, await claim.streamedBody())
        : existing.fingerprint === request.fingerprint;
    if (!same) {
      throw new AppError(
        'idempotency_key_reused',
        `the Idempotency-Key ${JSON.stringify(shown)} was first used with a different request (method, path, query or body); use a new key for a new request`,
        { parameter: 'Idempotency-Key' },
      );
    }
    if (existing.response) return { kind: 'replay', response: existing.response };
    if (realNow - existing.claimedAtMs < ABANDONED_CLAIM_MS) {
      throw new AppError('idempotency_key_in_use', `a request with the Idempotency-Key ${JSON.stringify(shown)} is still being processed; retry after it is answered`);
    }
    // Abandoned (its process died). Taken over only if none of its writes committed.
    if (existing.wrote) {
      throw new AppError(
        'idempotency_answer_lost',
        `the request with the Idempotency-Key ${JSON.stringify(shown)} made its changes, but the server stopped before it could keep the answer; read the resources it changed rather than sending it again`,
      );
    }
    await store.idempotency.release(request.orgId, request.key, existing.claimedAtMs);
  }
  throw new AppError('idempotency_key_in_use', `the Idempotency-Key ${JSON.stringify(shown)} is contended; retry`);
}

/** The claim of the request in progress, where it holds one (the HTTP layer runs its handler in it). */
export interface ClaimInProgress {
  orgId: string;
  /** As stored (`credentialKey`). */
  key: string;
  claimedAtMs: number;
}

const claims = new AsyncLocalStorage<ClaimInProgress>();

/**
 * Runs `fn` (and all it starts) as the work of the request holding `claim`. A context is entered only for
 * requests with a key: once one is, Node tracks every promise (time contexts, clock.ts, say why that costs).
 */
export function runClaimed<T>(claim: ClaimInProgress, fn: () => T): T {
  return claims.run(claim, fn);
}

/** The claim of `principal`'s request with `key`, made at `claimedAtMs`, as `runClaimed` takes it. */
export const claimInProgress = (principal: Principal, key: string, claimedAtMs: number): ClaimInProgress => ({
  orgId: principal.orgId,
  key: credentialKey(principal, key),
  claimedAtMs,
});

/**
 * For `store.beforeCommit`: a transaction of a request holding a claim notes in the claim that it wrote, in the
 * same commit, so that after a crash the claim says exactly whether the request changed anything.
 */
export async function noteClaimWrote(tx: Store): Promise<void> {
  const claim = claims.getStore();
  if (claim) await tx.idempotency.markWritten(claim.orgId, claim.key, claim.claimedAtMs);
}

/**
 * Keeps the answer (below 500) for replays, with the request's final fingerprint. A server error frees the
 * key so that a retry runs again, and so does a request whose body was not received whole (`fingerprint`
 * undefined: the client went away mid-upload, and its retry is the request it meant to send).
 */
export async function settleIdempotencyKey(store: Store, principal: Principal, key: string, claimedAtMs: number, response: StoredResponse, fingerprint: string | undefined): Promise<void> {
  const stored = credentialKey(principal, key);
  if (response.status >= 500 || fingerprint === undefined) await store.idempotency.release(principal.orgId, stored, claimedAtMs);
  else await store.idempotency.complete(principal.orgId, stored, claimedAtMs, { ...response, body: keptBody(response.body) }, fingerprint);
}
