// Records every authenticated /v0 request in its organization's journal (domain/journal.ts), before the
// answer is sent, so a client that got its answer finds the request already journaled. The journal's own
// calls are not recorded.
import type { FastifyInstance } from 'fastify';
import { recordRequest } from '../../domain/journal.ts';
import type { Store } from '../../domain/ports/store.ts';

export const JOURNAL_PATH = '/v0/tycho/journal';

export function registerJournal(app: FastifyInstance, store: Store, keep: number): void {
  if (keep <= 0) return;
  app.addHook('onSend', async (request, reply, payload) => {
    // Before authentication succeeded there is no organization to file it under.
    if (!request.principal || request.url.startsWith(JOURNAL_PATH)) return payload;
    const isMultipart = request.headers['content-type']?.startsWith('multipart/') ?? false;
    const requestBody = request.body !== undefined ? JSON.stringify(request.body) : isMultipart ? '[multipart body not recorded]' : undefined;
    const responseBody = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    await recordRequest(
      store,
      {
        orgId: request.principal.orgId,
        requestId: request.id,
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        latencyMs: reply.elapsedTime,
        headers: request.headers,
        requestBody,
        responseBody,
      },
      keep,
    );
    return payload;
  });
}
