// Opt-in CORS for browser clients (TYCHO_CORS_ORIGINS): answers preflights and adds the CORS headers for the
// listed origins. Off unless origins are configured, so by default browsers on other origins cannot read
// answers. Bearer keys travel in a header, never in cookies, so credentials mode is not needed.
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** The request headers clients send beyond the CORS-safelisted ones. */
const ALLOWED_HEADERS = ['authorization', 'content-type', 'update-one-strategy', 'update-many-strategy', 'x-request-id', 'idempotency-key'];
/** Response headers scripts may read: the request id, rate-limit state, retry hints, downloads' file names. */
const EXPOSED_HEADERS = ['x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after', 'retry-after-ms', 'x-should-retry', 'content-disposition'];

export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  await app.register(cors, {
    origin: origins[0] === '*' ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    // Preflights are answered before authentication: a browser never sends credentials with them.
    hook: 'onRequest',
  });
}
