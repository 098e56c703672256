// Liveness and readiness probes; no authentication.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../domain/errors.ts';
import { checkReady } from '../../domain/health.ts';
import type { Store } from '../../domain/ports/store.ts';
import type { BlobStore } from '../../domain/ports/blob-store.ts';

export const healthRoutes: FastifyPluginAsyncTypebox<{ store: Store; blobs: BlobStore }> = async (app, { store, blobs }) => {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request) => {
    try {
      await checkReady(store, blobs);
    } catch (error) {
      request.log.warn({ err: error }, 'the database or the blob store did not answer the readiness probe');
      throw new AppError('service_unavailable', 'The service is temporarily unavailable; retry later.');
    }
    return { status: 'ready' };
  });
};
