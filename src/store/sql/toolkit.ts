// The toolkit's own tables: organization clocks, snapshots and stored Idempotency-Key answers.
import type { Kysely } from 'kysely';
import type { ClockRepo, IdempotencyRepo, SnapshotData, SnapshotRepo } from '../../domain/ports/toolkit-store.ts';
import type { Database } from './schema.ts';
import { json } from './records.ts';
import { executeUnread } from './statement-marks.ts';
import type { Engine } from './sql-store.ts';

export function clockRepo(db: Kysely<Database>, engine: Pick<Engine, 'changeToken' | 'announce'>): ClockRepo {
  return {
    changeToken: () => engine.changeToken('clocks'),
    async find(orgId) {
      const row = await db.selectFrom('org_clocks').selectAll().where('org_id', '=', orgId).executeTakeFirst();
      return row && { frozenAt: row.frozen_at, offsetMs: row.offset_ms };
    },
    async save(orgId, setting) {
      const values = { frozen_at: setting.frozenAt, offset_ms: setting.offsetMs };
      await db
        .insertInto('org_clocks')
        .values({ org_id: orgId, ...values })
        .onConflict((oc) => oc.column('org_id').doUpdateSet(values))
        .execute();
      await engine.announce(db, 'clocks');
    },
    async remove(orgId) {
      await db.deleteFrom('org_clocks').where('org_id', '=', orgId).execute();
      await engine.announce(db, 'clocks');
    },
    async list() {
      const rows = await db.selectFrom('org_clocks').selectAll().orderBy('org_id').execute();
      return rows.map((row) => ({ orgId: row.org_id, setting: { frozenAt: row.frozen_at, offsetMs: row.offset_ms } }));
    },
  };
}

export function snapshotRepo(db: Kysely<Database>): SnapshotRepo {
  const info = ['id', 'org_id', 'name', 'rows', 'created_at'] as const;
  const toInfo = (row: { id: string; org_id: string; name: string; rows: number; created_at: string }) => ({
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    rows: row.rows,
    createdAt: row.created_at,
  });
  return {
    async insert(snapshot, data) {
      await db
        .insertInto('snapshots')
        .values({ id: snapshot.id, org_id: snapshot.orgId, name: snapshot.name, rows: snapshot.rows, created_at: snapshot.createdAt, data: json.text(data) })
        .execute();
    },
    async find(orgId, name) {
      const row = await db.selectFrom('snapshots').select(info).where('org_id', '=', orgId).where('name', '=', name).executeTakeFirst();
      return row && toInfo(row);
    },
    async data(id) {
      const row = await db.selectFrom('snapshots').select('data').where('id', '=', id).executeTakeFirstOrThrow();
      return json.parse<SnapshotData>(row.data);
    },
    async list(orgId) {
      return (await db.selectFrom('snapshots').select(info).where('org_id', '=', orgId).orderBy('id').execute()).map(toInfo);
    },
    async delete(id) {
      await db.deleteFrom('snapshots').where('id', '=', id).execute();
    },
  };
}

export function idempotencyRepo(db: Kysely<Database>): IdempotencyRepo {
  return {
    async claim(record) {
      const result = await db
        .insertInto('idempotency_keys')
        .values({
          org_id: record.orgId,
          key: record.key,
          fingerprint: record.fingerprint,
          status: null,
          headers: null,
          body: null,
          created_at: record.createdAt,
          claimed_at_ms: record.claimedAtMs,
        })
        .onConflict((oc) => oc.columns(['org_id', 'key']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    async find(orgId, key) {
      const row = await db.selectFrom('idempotency_keys').selectAll().where('org_id', '=', orgId).where('key', '=', key).executeTakeFirst();
      if (!row) return undefined;
      return {
        orgId: row.org_id,
        key: row.key,
        fingerprint: row.fingerprint,
        createdAt: row.created_at,
        claimedAtMs: row.claimed_at_ms,
        wrote: row.wrote === 1,
        ...(row.status !== null ? { response: { status: row.status, headers: json.parse<Record<string, string>>(row.headers ?? '{}'), body: row.body ?? '' } } : {}),
      };
    },
    async complete(orgId, key, claimedAtMs, response, fingerprint) {
      await db
        .updateTable('idempotency_keys')
        .set({ fingerprint, status: response.status, headers: json.text(response.headers), body: response.body })
        .where('org_id', '=', orgId)
        .where('key', '=', key)
        .where('claimed_at_ms', '=', claimedAtMs)
        .execute();
    },
    async markWritten(orgId, key, claimedAtMs) {
      await executeUnread(
        db,
        db.updateTable('idempotency_keys').set({ wrote: 1 }).where('org_id', '=', orgId).where('key', '=', key).where('claimed_at_ms', '=', claimedAtMs).where('wrote', '=', 0),
      );
    },
    async release(orgId, key, claimedAtMs) {
      await db.deleteFrom('idempotency_keys').where('org_id', '=', orgId).where('key', '=', key).where('claimed_at_ms', '=', claimedAtMs).execute();
    },
    async expire(orgId, createdBefore) {
      await db.deleteFrom('idempotency_keys').where('org_id', '=', orgId).where('created_at', '<', createdBefore).execute();
    },
  };
}
