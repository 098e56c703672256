// Liveness and readiness probes; no authentication.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { checkReady } from '../../domain/health.ts';
import type { Store } from '../../domain/ports/store.ts';
import type { BlobStore } from '../../domain/ports/blob-store.ts';
import { doc } from '../schemas/common.ts';

const docs = {
  liveness: doc('Health', 'Liveness probe', 'Answers 200 while the process runs; it touches neither the database nor the blob store.'),
  readiness: doc('Health', 'Readiness probe', 'Answers 200 when the database and the blob store answer, 503 otherwise.'),
};

const Status = <T extends string>(status: T) => Type.Object({ status: Type.Literal(status) }, { examples: [{ status }] });

export const healthRoutes: FastifyPluginAsyncTypebox<{ store: Store; blobs: BlobStore }> = async (app, { store, blobs }) => {
  app.get('/healthz', { schema: { ...docs.liveness, response: { 200: Status('ok') } } }, async () => ({ status: 'ok' as const }));
  app.get('/readyz', { schema: { ...docs.readiness, response: { 200: Status('ready') } } }, async (request) => {
    try {
      await checkReady(store, blobs);
    } catch (error) {
      request.log.warn({ err: error }, 'the database or the blob store did not answer the readiness probe');
      throw new AppError('service_unavailable', 'The service is temporarily unavailable; retry later.');
    }
    return { status: 'ready' as const };
  });
};
