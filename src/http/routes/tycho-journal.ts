// Tycho extension: /v0/tycho/journal — the organization's last requests, newest first, filtered by path,
// method, status and time; and clearing it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clearJournal, listJournal } from '../../domain/journal.ts';
import { badParameter } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import type { JournalQuery } from '../../domain/ports/toolkit-store.ts';
import { JournalEntryWire, JournalQueryString, PlainList, renderJournalEntry, toolkitSchema } from '../schemas/tycho.ts';
import { NoContent } from '../schemas/common.ts';
import type { RouteDeps } from '../route-deps.ts';
import type { JournalBuffer } from '../journal-buffer.ts';
import type { Static } from 'typebox';

function journalQuery(q: Static<typeof JournalQueryString>): JournalQuery {
  const query: JournalQuery = { limit: q.limit ?? 100 };
  if (q.path !== undefined) query.path = q.path;
  if (q.path_prefix !== undefined) query.pathPrefix = q.path_prefix;
  if (q.method !== undefined) query.method = q.method;
  if (q.status !== undefined) {
    const exact = !q.status.endsWith('xx');
    const from = exact ? Number(q.status) : Number(q.status[0]) * 100;
    query.statusFrom = from;
    query.statusTo = exact ? from : from + 99;
  }
  if (q.since !== undefined) query.since = new Date(q.since).toISOString();
  if (q.until !== undefined) query.until = new Date(q.until).toISOString();
  if (q.before !== undefined) {
    // An id that names no entry would page from nowhere in particular: refused like any bad cursor.
    if (!isId(q.before)) throw badParameter('before', `before must be the id of a journal entry (the last of the page before), got "${q.before}"`);
    query.before = q.before;
  }
  return query;
}

export const journalRoutes: FastifyPluginAsyncTypebox<RouteDeps & { journal: JournalBuffer | undefined }> = async (app, { store, journal }) => {
  app.get(
    '/tycho/journal',
    {
      schema: toolkitSchema(
        'List journaled requests',
        "The organization's last requests (TYCHO_JOURNAL_SIZE, default 1,000), newest first: method, path, query, status, latency, request id, headers and bodies (cut at 4 KiB; Authorization and secrets redacted). `before` takes the last id of a page for the next one.",
        [400],
        { querystring: JournalQueryString, response: { 200: PlainList(JournalEntryWire) } },
      ),
    },
    async (req) => {
      // Everything this process has answered is in the journal before it is read.
      await journal?.flush();
      return { type: 'list' as const, data: (await listJournal(store, req.principal.orgId, journalQuery(req.query))).map(renderJournalEntry) };
    },
  );

  app.delete(
    '/tycho/journal',
    { schema: toolkitSchema('Clear the journal', "Forgets the organization's journaled requests.", [], { response: { 204: NoContent } }) },
    async (req, reply) => {
      await journal?.flush();
      await clearJournal(store, req.principal.orgId);
      return reply.code(204).send();
    },
  );
};
