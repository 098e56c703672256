// Idempotency-Key on every POST, PATCH and DELETE of /v0 (domain/idempotency.ts): claimed once the body is
// parsed and before it is validated (a request the schema refuses is answered, and kept, like any other),
// settled with the answer when it is sent; a replay is sent with `Idempotent-Replayed: true`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../domain/clock.ts';
import { checkIdempotencyKey, claimIdempotencyKey, fingerprintOf, settleIdempotencyKey } from '../../domain/idempotency.ts';
import type { Store } from '../../domain/ports/store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { key: string; claimedAtMs: number };
  }
}

const METHODS = new Set(['POST', 'PATCH', 'DELETE']);
/** The response headers a replay repeats; the others (request id, rate limits) describe the new request. */
const REPLAYED_HEADERS = ['content-type', 'location'];

/** A multipart body is read by the handler, so it is known by its length only. */
function bodyOf(request: FastifyRequest): unknown {
  if (request.body !== undefined) return request.body;
  return request.headers['content-length'] ?? '';
}

export function registerIdempotency(app: FastifyInstance, store: Store, clock: Clock): void {
  app.addHook('preValidation', async (request, reply) => {
    const header = request.headers['idempotency-key'];
    if (header === undefined || !METHODS.has(request.method)) return;
    const key = Array.isArray(header) ? header.join(',') : header;
    checkIdempotencyKey(key);
    const fingerprint = fingerprintOf({ method: request.method, url: request.url, contentType: request.headers['content-type'] ?? '', body: bodyOf(request) });
    const claim = await claimIdempotencyKey(store, { principal: request.principal, key, fingerprint }, clock, Date.now());
    if (claim.kind === 'claimed') {
      request.idempotency = { key, claimedAtMs: claim.claimedAtMs };
      return;
    }
    const { status, headers, body } = claim.response;
    // A string with its content type is sent as it is, not serialised again.
    return reply.code(status).headers(headers).header('idempotent-replayed', 'true').send(body);
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
    await settleIdempotencyKey(store, request.principal, claim.key, claim.claimedAtMs, { status: reply.statusCode, headers, body });
    return payload;
  });
}
