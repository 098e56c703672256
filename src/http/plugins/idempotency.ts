// Idempotency-Key on every POST, PATCH and DELETE of /v0 (domain/idempotency.ts): claimed once the body is
// parsed and before it is validated (a request the schema refuses is answered, and kept, like any other),
// noted as written by each write transaction its handler commits, settled with the answer when it is sent; a
// replay is sent with `Idempotent-Replayed: true`.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { finished } from 'node:stream/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../domain/clock.ts';
import { AppError } from '../../domain/errors.ts';
import {
  checkIdempotencyKey,
  claimIdempotencyKey,
  claimInProgress,
  fingerprintOf,
  noteClaimWrote,
  runClaimed,
  settleIdempotencyKey,
  streamedFingerprint,
} from '../../domain/idempotency.ts';
import type { Store } from '../../domain/ports/store.ts';
import { requiredScope } from './auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The claimed key, and the request's fingerprint once its body has been received whole (else undefined). */
    idempotency?: { key: string; claimedAtMs: number; fingerprint: () => string | undefined };
  }
}

const METHODS = new Set(['POST', 'PATCH', 'DELETE']);
/** The response headers a replay repeats; the others (request id, rate limits) describe the new request. */
const REPLAYED_HEADERS = ['content-type', 'location'];

/**
 * The SHA-256 of a multipart body's bytes with its boundary taken out: clients pick a new boundary on every
 * send, so a retry differs from the first request there only. Fed in chunks; a boundary may straddle two.
 */
function boundaryBlindHash(boundary: string | undefined): { update(chunk: Buffer): void; digest(): string } {
  const hash = createHash('sha256');
  const needle = Buffer.from(boundary ?? '');
  let carry = Buffer.alloc(0);
  return {
    update(chunk) {
      if (needle.length === 0) return void hash.update(chunk);
      const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      let start = 0;
      for (let at = bytes.indexOf(needle, start); at !== -1; at = bytes.indexOf(needle, start)) {
        hash.update(bytes.subarray(start, at)).update('\u0000boundary\u0000');
        start = at + needle.length;
      }
      // What could be the start of a boundary waits for the next chunk.
      const kept = Math.max(start, bytes.length - (needle.length - 1));
      hash.update(bytes.subarray(start, kept));
      carry = Buffer.from(bytes.subarray(kept));
    },
    digest: () => hash.update(carry).digest('hex'),
  };
}

/**
 * A body the handler streams (an upload) is known by its bytes (`boundaryBlindHash`), taken as the handler
 * reads them: watching takes nothing from the handler (the stream stays paused until the handler reads it).
 */
function watchStreamedBody(raw: IncomingMessage): { digest: () => string | undefined; readRest: () => Promise<string> } {
  const boundary = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^";\s]+))/i.exec(raw.headers['content-type'] ?? '');
  const hash = boundaryBlindHash(boundary?.[1] ?? boundary?.[2]);
  let ended = false;
  raw.on('data', (chunk: Buffer) => hash.update(chunk));
  raw.once('end', () => (ended = true));
  raw.pause();
  let digest: string | undefined;
  const whole = () => (ended ? (digest ??= hash.digest()) : undefined);
  return {
    digest: whole,
    // A retry answered from a kept answer is read to its end (and dropped) to tell whether it is the same upload.
    async readRest() {
      raw.resume();
      await finished(raw).catch(() => undefined);
      const known = whole();
      if (known === undefined) throw new AppError('invalid_body', 'the request body was cut off before its end; send it whole');
      return known;
    },
  };
}

/**
 * The request's Idempotency-Key, when it is a write. Reads sent as POST (item search, global search) ignore it
 * as GET does: they change nothing a retry could repeat, and keeping their answers for a day let any key, a
 * read-only one too, fill the disk with them.
 */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined || !METHODS.has(request.method) || requiredScope(request) === 'read') return undefined;
  return Array.isArray(header) ? header.join(',') : header;
}

export function registerIdempotency(app: FastifyInstance, store: Store, clock: Clock): void {
  // Every write transaction of a request holding a claim notes in it that the request wrote (see preHandler).
  store.beforeCommit(noteClaimWrote);
  // A malformed key is refused before the body is read (a client waiting on `Expect: 100-continue` gets the
  // refusal, not a 100).
  // Synchronous: it runs on every request, most of which carry no key.
  app.addHook('onRequest', (request, _reply, done) => {
    const key = idempotencyKeyOf(request);
    try {
      if (key !== undefined) checkIdempotencyKey(key);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
  app.addHook('preValidation', async (request, reply) => {
    const key = idempotencyKeyOf(request);
    if (key === undefined) return;
    const streamed = request.body === undefined && request.isMultipart() ? watchStreamedBody(request.raw) : undefined;
    // A body without JSON and not streamed is absent (a DELETE): its length, if any, stands for it.
    const body = request.body ?? (streamed ? 'stream' : (request.headers['content-length'] ?? ''));
    const head = fingerprintOf({ method: request.method, url: request.url, contentType: request.headers['content-type'] ?? '', body });
    const claim = await claimIdempotencyKey(store, { principal: request.principal, key, fingerprint: head, ...(streamed ? { streamedBody: streamed.readRest } : {}) }, clock, Date.now());
    if (claim.kind === 'claimed') {
      // A body that is not streamed was read whole before the claim.
      const fingerprint = () => {
        if (!streamed) return head;
        const digest = streamed.digest();
        return digest === undefined ? undefined : streamedFingerprint(head, digest);
      };
      request.idempotency = { key, claimedAtMs: claim.claimedAtMs, fingerprint };
      return;
    }
    const { status, headers, body: answer } = claim.response;
    // A string with its content type is sent as it is, not serialised again.
    return reply.code(status).headers(headers).header('idempotent-replayed', 'true').send(answer);
  });
  // The handler of a request holding a claim runs as its work: its transactions then note the claim written in
  // their own commit, and a claim its process left unanswered is run again only if nothing of it committed.
  app.addHook('preHandler', (request, _reply, done) => {
    const claim = request.idempotency;
    if (claim) runClaimed(claimInProgress(request.principal, claim.key, claim.claimedAtMs), done);
    else done();
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = undefined;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    await settleIdempotencyKey(store, request.principal, claim.key, claim.claimedAtMs, { status: reply.statusCode, headers, body }, claim.fingerprint());
    return payload;
  });
}
