// Tycho extension, unauthenticated page: the operator console at /console/, a static single-page app built from
// console/ by Vite when the package is installed (`npm install` runs `prepare`). It signs in with an API key
// and calls the public API like any client, so it needs nothing from the server beyond its files.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { AppError } from '../../domain/errors.ts';
import { PROJECT_ROOT } from '../../project-root.ts';

export const CONSOLE_DIST = join(PROJECT_ROOT, 'console', 'dist');

/** Its own scripts and styles only, and calls to this server. */
const CONSOLE_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; frame-ancestors 'self'";

export async function registerConsole(app: FastifyInstance, dist = CONSOLE_DIST): Promise<void> {
  app.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/'));
  if (!existsSync(`${dist}/index.html`)) {
    app.get('/console/*', { schema: { hide: true } }, async () => {
      throw new AppError('service_unavailable', 'the console is not built; run `npm run build:console` (npm install does it)');
    });
    return;
  }
  await app.register(fastifyStatic, {
    root: dist,
    prefix: '/console/',
    // Built assets carry content hashes in their names; index.html must always be fresh.
    cacheControl: false,
    setHeaders: (res, path) => {
      res.setHeader('content-security-policy', CONSOLE_CSP);
      res.setHeader('cache-control', path.endsWith('index.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
    },
  });
}
