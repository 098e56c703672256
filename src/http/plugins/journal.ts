// Records every authenticated /v0 request in its organization's journal (domain/journal.ts) as its answer
// is sent, through the buffer that writes entries in batches (journal-buffer.ts), which makes an entry only of
// a request it writes. The journal's own calls are not recorded.
import type { FastifyInstance } from 'fastify';
import { newId } from '../../domain/ids.ts';
import { timestamp } from '../../domain/clock.ts';
import type { JournalBuffer } from '../journal-buffer.ts';
import { holdBody } from '../../domain/journal.ts';

/** The journal's own route, as Fastify names the route a request matched (whatever its spelling: `%6aournal`). */
const JOURNAL_ROUTE = '/v0/tycho/journal';

export function registerJournal(app: FastifyInstance, journal: JournalBuffer | undefined): void {
  if (!journal) return;
  app.addHook('onSend', async (request, reply, payload) => {
    // Before authentication succeeded there is no organization to file it under.
    if (!request.principal || request.routeOptions.url === JOURNAL_ROUTE) return payload;
    const isMultipart = request.headers['content-type']?.startsWith('multipart/') ?? false;
    const requestBody = request.body !== undefined ? JSON.stringify(request.body) : isMultipart ? '[multipart body not recorded]' : undefined;
    const responseBody = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    journal.add({
      id: newId(),
      occurredAt: timestamp(),
      orgId: request.principal.orgId,
      requestId: request.id,
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      latencyMs: reply.elapsedTime,
      headers: request.headers,
      requestBody: holdBody(requestBody),
      responseBody: holdBody(responseBody),
    });
    return payload;
  });
}
