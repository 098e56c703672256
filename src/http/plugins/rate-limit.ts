// Per-organization rate limits with separate read and write budgets (hosted defaults: 100 reads and 25 writes
// per second), in fixed one-second windows. Over budget → 429 with Retry-After, retry-after-ms and the IETF
// RateLimit / RateLimit-Policy fields, and the request is not processed.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { systemClock } from '../../domain/clock.ts';
import type { Scope } from '../../domain/api-keys.ts';
import type { RateCounter } from '../rate-counters.ts';
import { requiredScope } from './auth.ts';

export interface RateLimits {
  reads: number;
  writes: number;
  counter: RateCounter;
  /** Milliseconds since the epoch; tests pin it. By default the caller's organization's clock. */
  now?: () => number;
}

const WINDOW_MS = 1000;
const POLICY: Record<Scope, string> = { read: 'reads', write: 'writes' };

function setHeaders(reply: FastifyReply, scope: Scope, quota: number, remaining: number, resetMs: number): void {
  const policy = POLICY[scope];
  reply.header('RateLimit-Policy', `"${policy}";q=${quota};w=${WINDOW_MS / 1000}`);
  reply.header('RateLimit', `"${policy}";r=${Math.max(0, remaining)};t=${Math.ceil(resetMs / 1000)}`);
}

/** Registers the limiter on an authenticated scope; runs after authentication, before any work. */
export function registerRateLimit(app: FastifyInstance, limits: RateLimits): void {
  const now = limits.now ?? (() => systemClock().getTime());
  app.addHook('onRequest', async (request, reply) => {
    const scope = requiredScope(request);
    const quota = scope === 'read' ? limits.reads : limits.writes;
    const time = now();
    const windowStart = time - (time % WINDOW_MS);
    const count = await limits.counter.hit(`tycho:rl:${request.principal.orgId}:${scope}:${windowStart}`, WINDOW_MS * 2);
    const resetMs = windowStart + WINDOW_MS - time;
    setHeaders(reply, scope, quota, quota - count, resetMs);
    if (count > quota) {
      reply.header('Retry-After', String(Math.max(1, Math.ceil(resetMs / 1000))));
      reply.header('retry-after-ms', String(resetMs));
      throw new AppError('rate_limited');
    }
  });
}
