// The request journal: one row per request, the newest N kept per organization.
import type { Kysely, Selectable } from 'kysely';
import type { JournalEntry, JournalRepo } from '../../domain/ports/toolkit-store.ts';
import type { Database, RequestJournalTable } from './schema.ts';
import { json } from './records.ts';

const toEntry = (row: Selectable<RequestJournalTable>): JournalEntry => ({
  id: row.id,
  orgId: row.org_id,
  requestId: row.request_id,
  method: row.method,
  path: row.path,
  query: row.query,
  status: row.status,
  latencyMs: row.latency_ms,
  requestHeaders: json.parse(row.request_headers),
  requestBody: row.request_body,
  responseBody: row.response_body,
  occurredAt: row.occurred_at,
});

export function journalRepo(db: Kysely<Database>): JournalRepo {
  return {
    async insertMany(all, keep) {
      // Requests to an organization deleted since (a sandbox) are no longer anyone's to read.
      const orgIds = [...new Set(all.map((e) => e.orgId))];
      const live = new Set((await db.selectFrom('organizations').select('id').where('id', 'in', orgIds).execute()).map((r) => r.id));
      const entries = all.filter((e) => live.has(e.orgId));
      if (entries.length === 0) return;
      await db
        .insertInto('request_journal')
        .values(
          entries.map((entry) => ({
            id: entry.id,
            org_id: entry.orgId,
            request_id: entry.requestId,
            method: entry.method,
            path: entry.path,
            query: entry.query,
            status: entry.status,
            latency_ms: entry.latencyMs,
            request_headers: json.text(entry.requestHeaders),
            request_body: entry.requestBody,
            response_body: entry.responseBody,
            occurred_at: entry.occurredAt,
          })),
        )
        .execute();
      for (const orgId of live) {
        // Everything older than the oldest kept entry goes: one statement on the (org_id, id) index.
        const oldestKept = db
          .selectFrom('request_journal')
          .select('id')
          .where('org_id', '=', orgId)
          .orderBy('id', 'desc')
          .limit(1)
          .offset(keep - 1);
        await db.deleteFrom('request_journal').where('org_id', '=', orgId).where('id', '<', oldestKept).execute();
      }
    },
    async list(orgId, query) {
      let q = db.selectFrom('request_journal').selectAll().where('org_id', '=', orgId);
      if (query.path !== undefined) q = q.where('path', '=', query.path);
      if (query.pathPrefix !== undefined) q = q.where('path', '>=', query.pathPrefix).where('path', '<', `${query.pathPrefix}\u{10FFFF}`);
      if (query.method !== undefined) q = q.where('method', '=', query.method);
      if (query.statusFrom !== undefined) q = q.where('status', '>=', query.statusFrom);
      if (query.statusTo !== undefined) q = q.where('status', '<=', query.statusTo);
      if (query.since !== undefined) q = q.where('occurred_at', '>=', query.since);
      if (query.until !== undefined) q = q.where('occurred_at', '<', query.until);
      if (query.before !== undefined) q = q.where('id', '<', query.before);
      return (await q.orderBy('id', 'desc').limit(query.limit).execute()).map(toEntry);
    },
    async clear(orgId) {
      await db.deleteFrom('request_journal').where('org_id', '=', orgId).execute();
    },
  };
}
