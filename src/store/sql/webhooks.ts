// Webhook endpoints (with a row per subscribed event type for the outbox's lookup), the delivery outbox, its
// attempt log, and the endpoint leases that let several processes share the sending. On PostgreSQL a claim
// skips endpoint rows another process is claiming (FOR NO KEY UPDATE SKIP LOCKED); SQLite has one writer at a time.
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { mapPage } from '../../domain/pagination.ts';
import type { HistoryCutoff, WebhookDeliveryRepo, WebhookEndpointRepo } from '../../domain/ports/store.ts';
import type { DueTimes } from '../../domain/due-times.ts';
import type { EndpointStatus, WebhookEndpoint } from '../../domain/webhook-endpoints.ts';
import type { WebhookAttempt } from '../../domain/webhook-delivery.ts';
import { DUE_AT_ONCE, type DeliveryStatus, type WebhookDelivery } from '../../domain/webhook-outbox.ts';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './schema.ts';
import { fetchPage } from './keyset.ts';
import { json } from './records.ts';
import { toActivity } from './activities.ts';
import { changeCache, type ChangeCache } from '../../domain/change-cache.ts';
import type { Engine } from './sql-store.ts';
import { dueBy } from './due-times.ts';
import type { Write } from './write-together.ts';
import { compilable, shapesOf, slot } from './shapes.ts';
import { insertJsonRows, jsonRows } from './json-rows.ts';
import { plannedPerRequest, unread } from './statement-marks.ts';

/** Written into the statement, not bound: the outbox's work indexes are partial, on `status = 'pending'` (migration 0023). */
const PENDING = sql.lit('pending');

const toEndpoint = (r: Selectable<WebhookEndpointsTable>): WebhookEndpoint => ({
  id: r.id,
  orgId: r.org_id,
  url: r.url,
  status: r.status as EndpointStatus,
  secret: r.secret,
  subscriptions: json.parse<{ id: string; event_type: string }[]>(r.subscriptions).map((s) => ({ id: s.id, eventType: s.event_type })),
  failingSince: r.failing_since,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The columns an update writes: not the secret, nor the lease (the worker's). */
const editable = (e: WebhookEndpoint) => ({
  url: e.url,
  status: e.status,
  subscriptions: json.text(e.subscriptions.map((s) => ({ id: s.id, event_type: s.eventType }))),
  failing_since: e.failingSince,
  updated_at: e.updatedAt,
});

/** Subscribed endpoint ids by organization and event type, as every recorded activity asks for them. */
export type SubscriptionCache = ChangeCache<string, string[]>;

export const subscriptionCache = (engine: Pick<Engine, 'changeToken'>): SubscriptionCache => changeCache(() => engine.changeToken('webhook_endpoints'), 10_000);

export function webhookEndpointRepo(db: Kysely<Database>, engine: Pick<Engine, 'name' | 'announce'>, cache: SubscriptionCache): WebhookEndpointRepo {
  const skipLocked = engine.name === 'postgres';
  // A transaction that changed endpoints reads its own state, never the cache (which it must not fill either:
  // it may yet roll back).
  let changedHere = false;
  const changed = async () => {
    changedHere = true;
    await engine.announce(db, 'webhook_endpoints');
  };
  const subscribe = async (e: WebhookEndpoint) => {
    await db.deleteFrom('webhook_subscriptions').where('endpoint_id', '=', e.id).execute();
    if (e.subscriptions.length === 0) return;
    await db
      .insertInto('webhook_subscriptions')
      .values(e.subscriptions.map((s) => ({ org_id: e.orgId, event_type: s.eventType, endpoint_id: e.id })))
      .execute();
  };
  /**
   * Endpoints with a delivery due by `due`, asked of each endpoint (`webhook_deliveries_endpoint_due`), so that
   * no backlog of endpoints that cannot take it hides another's; only the listed organizations' when `due`
   * names no time for the others.
   */
  const withDueWork = (due: DueTimes) => {
    let endpoints = db
      .selectFrom('webhook_endpoints as w')
      .selectAll('w')
      .where('w.status', '=', 'enabled')
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('webhook_deliveries as d')
            .select('d.id')
            .whereRef('d.endpoint_id', '=', 'w.id')
            .where('d.status', '=', PENDING)
            .where(dueBy('d.org_id', 'd.next_attempt_at', due)),
        ),
      );
    // With no time for the others, no other organization's endpoint need be asked (dueBy alone would say no).
    if (due.others === undefined && due.orgs.length > 0) endpoints = endpoints.where('w.org_id', 'in', due.orgs.map((o) => o.orgId));
    return endpoints;
  };
  return {
    async anyEnabled() {
      return (await db.selectFrom('webhook_endpoints').select('id').where('status', '=', 'enabled').limit(1).executeTakeFirst()) !== undefined;
    },
    async insert(e) {
      await db
        .insertInto('webhook_endpoints')
        .values({ id: e.id, org_id: e.orgId, secret: e.secret, ...editable(e), lease_owner: null, lease_until: null, created_at: e.createdAt })
        .execute();
      await subscribe(e);
      await changed();
    },
    async update(e) {
      await db.updateTable('webhook_endpoints').set(editable(e)).where('org_id', '=', e.orgId).where('id', '=', e.id).execute();
      await subscribe(e);
      await changed();
    },
    async delete(orgId, id) {
      // Foreign keys cascade to subscriptions, deliveries and attempts.
      await db.deleteFrom('webhook_endpoints').where('org_id', '=', orgId).where('id', '=', id).execute();
      await changed();
    },
    async find(orgId, id) {
      const row = await db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return row && toEndpoint(row);
    },
    async list(orgId, page) {
      const q = db.selectFrom('webhook_endpoints as w').selectAll('w').where('w.org_id', '=', orgId);
      return mapPage(await fetchPage(q, [{ column: 'w.id', desc: false }], page, (r) => ({ key: [], id: r.id })), toEndpoint);
    },
    async subscribed(orgId, eventType) {
      const read = async () => {
        const rows = await db
          .selectFrom('webhook_subscriptions as s')
          .innerJoin('webhook_endpoints as w', 'w.id', 's.endpoint_id')
          .select('s.endpoint_id')
          .where('s.org_id', '=', orgId)
          .where('s.event_type', '=', eventType)
          .where('w.status', '=', 'enabled')
          .execute();
        return rows.map((r) => r.endpoint_id);
      };
      return changedHere ? read() : cache.get(`${orgId}\u0000${eventType}`, read);
    },
    async claimDue(claim) {
      // Those `owner` holds a lease on already that lasts past `keepUntil`: taken back with a read. The
      // statement below leases only others, so the two never return the same endpoint.
      const kept = await withDueWork(claim.due)
        .where('w.lease_owner', '=', claim.owner)
        .where('w.lease_until', '>', claim.keepUntil)
        .orderBy('w.id')
        .limit(claim.limit)
        .execute();
      if (kept.length === claim.limit) return kept.map(toEndpoint);
      // Those enabled and free (or `owner`'s, running out), leased, in one statement; when nothing is due it
      // changes no row and writes nothing.
      let free = withDueWork(claim.due)
        .clearSelect()
        .select('w.id')
        .where((eb) =>
          eb.or([
            eb('w.lease_until', 'is', null),
            eb('w.lease_until', '<=', claim.leaseNow),
            eb.and([eb('w.lease_owner', '=', claim.owner), eb('w.lease_until', '<=', claim.keepUntil)]),
          ]),
        )
        .orderBy('w.id')
        .limit(claim.limit - kept.length);
      // NO KEY UPDATE: the lease is no key, and a create writing a delivery holds KEY SHARE on the endpoint (the
      // foreign key's check) until it commits; FOR UPDATE would skip every endpoint with events being written.
      if (skipLocked) free = free.forNoKeyUpdate().skipLocked();
      const rows = await db
        .updateTable('webhook_endpoints')
        .set({ lease_owner: claim.owner, lease_until: claim.leaseUntil })
        .where('id', 'in', free)
        .returningAll()
        .execute();
      return [...kept, ...rows].map(toEndpoint);
    },
    async renewLease(id, owner, leaseUntil) {
      const result = await db.updateTable('webhook_endpoints').set({ lease_until: leaseUntil }).where('id', '=', id).where('lease_owner', '=', owner).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async releaseLease(id, owner) {
      await db.updateTable('webhook_endpoints').set({ lease_owner: null, lease_until: null }).where('id', '=', id).where('lease_owner', '=', owner).execute();
    },
    async leasedElsewhere(due, owner, leaseNow) {
      const row = await withDueWork(due).clearSelect().select('w.id').where('w.lease_until', '>', leaseNow).where('w.lease_owner', '<>', owner).limit(1).executeTakeFirst();
      return row !== undefined;
    },
    async releaseLeases(owner) {
      await db.updateTable('webhook_endpoints').set({ lease_owner: null, lease_until: null }).where('lease_owner', '=', owner).execute();
    },
    async setHealth(id, failingSince, disable = false) {
      await db
        .updateTable('webhook_endpoints')
        .set({ failing_since: failingSince, ...(disable ? { status: 'disabled' } : {}) })
        .where('id', '=', id)
        .execute();
      if (disable) await changed();
    },
  };
}

const toDelivery = (r: Selectable<WebhookDeliveriesTable>): WebhookDelivery => ({
  id: r.id,
  orgId: r.org_id,
  endpointId: r.endpoint_id,
  activityId: r.activity_id,
  status: r.status as DeliveryStatus,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lastAttemptAt: r.last_attempt_at,
  resends: r.resends,
});

export const deliveryRow = (d: WebhookDelivery): WebhookDeliveriesTable => ({
  id: d.id,
  org_id: d.orgId,
  endpoint_id: d.endpointId,
  activity_id: d.activityId,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: d.nextAttemptAt,
  last_attempt_at: d.lastAttemptAt,
  resends: d.resends,
});

/** Every column of a delivery row, as `deliveryRow` fills them. */
export const DELIVERY_COLUMNS = ['id', 'org_id', 'endpoint_id', 'activity_id', 'status', 'attempts', 'next_attempt_at', 'last_attempt_at', 'resends'] as const satisfies readonly (keyof WebhookDeliveriesTable)[];
const INTEGER_COLUMNS = new Set<string>(['attempts', 'resends'] satisfies (keyof WebhookDeliveriesTable)[]);

/**
 * The outbox rows of an activity, kept only where their endpoint still exists and is enabled when the
 * statement runs: which endpoints subscribe comes from a cache that another process's change reaches moments
 * after its commit (a delivery for an endpoint deleted meanwhile failed the create on its foreign key).
 */
export function forEnabledEndpoints(rows: WebhookDeliveriesTable[]): RawBuilder<unknown> {
  const value = (row: WebhookDeliveriesTable, column: (typeof DELIVERY_COLUMNS)[number]) =>
    INTEGER_COLUMNS.has(column) ? sql`cast(${row[column]} as integer)` : sql`cast(${row[column]} as text)`;
  const selects = rows.map(
    (row) => sql`select ${sql.join(DELIVERY_COLUMNS.map((c) => value(row, c)))} from webhook_endpoints where id = ${row.endpoint_id} and status = 'enabled'`,
  );
  return sql.join(selects, sql` union all `);
}

/** The columns a round's record writes: every attempt's, and each delivery's outcome (matched by id and re-sends). */
const ATTEMPT_COLUMNS = ['id', 'org_id', 'endpoint_id', 'delivery_id', 'attempted_at', 'status_code', 'latency_ms', 'error', 'response_excerpt'] as const satisfies readonly (keyof WebhookAttemptsTable)[];
const OUTCOME_COLUMNS = ['id', 'status', 'next_attempt_at', 'last_attempt_at', 'resends'] as const satisfies readonly (keyof WebhookDeliveriesTable)[];

/** `outboxWritten` is told of every write that makes a delivery due at once, and answers as in activityRepo. */
export function webhookDeliveryRepo(db: Kysely<Database>, engine: Pick<Engine, 'name' | 'announce'>, outboxWritten: () => boolean): WebhookDeliveryRepo {
  // A round's record is two statements whatever its size, each prepared once: its rows travel as one JSON
  // parameter (json-rows.ts). A statement per row cost the writer (on SQLite, the API thread) a trip through the
  // query executor per row, which took more of its time than SQLite's work on the row; a statement built for
  // each round size, its building and preparing.
  const shapes = shapesOf(engine);
  const dueAtOnce = async (write: Write) => {
    await write(db).execute();
    if (outboxWritten()) await engine.announce(db, 'webhook_deliveries');
  };
  // Both read a range of each of the organization's endpoints: attempts by id, deliveries by event (both
  // time-ordered ids).
  const endpointsOf = (orgId: string) => db.selectFrom('webhook_endpoints').select('id').where('org_id', '=', orgId);
  /** The organization's attempts made before the cut-off. */
  const oldAttempts = (orgId: string, before: HistoryCutoff, limit: number) =>
    db.selectFrom('webhook_attempts').select('id').where('endpoint_id', 'in', endpointsOf(orgId)).where('id', '<', before.id).limit(limit);
  /** Its deliveries of events from before the cut-off that are finished and were last attempted before it too (a re-send restarts the clock). */
  const finishedDeliveries = (orgId: string, before: HistoryCutoff, limit: number) =>
    db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', 'in', endpointsOf(orgId))
      .where('activity_id', '<', before.id)
      .where('status', '!=', PENDING)
      .where('last_attempt_at', '<', before.at)
      .limit(limit);
  return {
    async insertMany(deliveries) {
      if (deliveries.length > 0) await dueAtOnce((q) => q.insertInto('webhook_deliveries').values(deliveries.map(deliveryRow)));
    },
    async resend(d) {
      await dueAtOnce((q) =>
        q
          .updateTable('webhook_deliveries')
          .set((eb) => ({ status: 'pending', attempts: 0, next_attempt_at: DUE_AT_ONCE, resends: eb('resends', '+', 1) }))
          .where('id', '=', d.id)
          .where('org_id', '=', d.orgId),
      );
    },
    async saveOutcomes(records) {
      if (records.length === 0) return;
      const rows = records.map((r) => ({ id: r.delivery.id, status: r.status, next_attempt_at: r.nextAttemptAt, last_attempt_at: r.attemptedAt, resends: r.delivery.resends }));
      // Planned for each round: a plan kept per connection is the one made when the connection first sent the
      // statement, in a new database while deliveries were few, and hashed the whole table (a sequential scan)
      // on every round after, however far it grew (13–32 ms a round at 30,000 deliveries).
      await db.executeQuery(
        unread(
          // A delivery re-sent meanwhile keeps the re-send's state.
          plannedPerRequest(shapes.statement('webhook_deliveries.saveOutcomes', [JSON.stringify(rows)], () => {
            // PostgreSQL takes a JSON row set for 100 rows whatever it holds, and below ~20,000 deliveries would
            // rather hash the whole table than look 100 ids up (3.8 ms a round of 28 at 7,000 deliveries): the
            // ids again, as an array, make it look each one up in the primary key (0.5 ms).
            const byId = engine.name === 'postgres' ? sql`and d.id = any(array(${jsonRows(engine, 'webhook_deliveries', ['id'], slot(0))}))` : sql``;
            return compilable(
              db,
              sql`update webhook_deliveries as d
                set status = o.status, attempts = d.attempts + 1, next_attempt_at = o.next_attempt_at, last_attempt_at = o.last_attempt_at
                from (${jsonRows(engine, 'webhook_deliveries', OUTCOME_COLUMNS, slot(0))}) as o
                where d.id = o.id and d.resends = o.resends ${byId}`,
            );
          })),
        ),
      );
    },
    async findByActivity(orgId, endpointId, activityId) {
      const row = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('activity_id', '=', activityId)
        .where('endpoint_id', '=', endpointId)
        .orderBy('id')
        .executeTakeFirst();
      return row && toDelivery(row);
    },
    async due(endpointId, now, limit) {
      const rows = await db
        .selectFrom('webhook_deliveries as d')
        .leftJoin('activities as a', 'a.id', 'd.activity_id')
        .selectAll('d')
        .select(['a.type as a_type', 'a.occurred_at as a_occurred_at', 'a.constituents as a_constituents'])
        .where('d.endpoint_id', '=', endpointId)
        .where('d.status', '=', PENDING)
        // An expression, not the column: the planner then walks this endpoint's pending rows in id order
        // (webhook_deliveries_endpoint_pending) and stops at `limit`, rather than sorting every organization's due rows.
        .where(sql<string>`coalesce(d.next_attempt_at, '')`, '<=', now)
        .orderBy('d.id')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        delivery: toDelivery(r),
        activity:
          r.a_type === null
            ? undefined
            : toActivity({ id: r.activity_id, org_id: r.org_id, type: r.a_type, occurred_at: r.a_occurred_at!, constituents: r.a_constituents! }),
      }));
    },
    async insertAttempts(attempts) {
      if (attempts.length === 0) return;
      const rows = attempts.map(
        (a): WebhookAttemptsTable => ({
          id: a.id,
          org_id: a.orgId,
          endpoint_id: a.endpointId,
          delivery_id: a.deliveryId,
          attempted_at: a.attemptedAt,
          status_code: a.statusCode,
          latency_ms: Math.round(a.latencyMs),
          error: a.error,
          response_excerpt: a.responseExcerpt,
        }),
      );
      await db.executeQuery(
        unread(
          // An attempt whose delivery went meanwhile (its endpoint or organization deleted while it was in flight)
          // is not recorded: there is nothing left to record it against.
          shapes.statement('webhook_attempts.insert', [JSON.stringify(rows)], () =>
            compilable(db, insertJsonRows(engine, 'webhook_attempts', ATTEMPT_COLUMNS, slot(0), sql`exists (select 1 from webhook_deliveries as d where d.id = r.delivery_id)`)),
          ),
        ),
      );
    },
    async attempts(orgId, endpointId, page) {
      const q = db
        .selectFrom('webhook_attempts as t')
        .innerJoin('webhook_deliveries as d', 'd.id', 't.delivery_id')
        .innerJoin('activities as a', 'a.id', 'd.activity_id')
        .selectAll('t')
        .select(['d.activity_id', 'a.type as event_type'])
        .where('t.org_id', '=', orgId)
        .where('t.endpoint_id', '=', endpointId);
      const result = await fetchPage(q, [{ column: 't.id', desc: true }], page, (r) => ({ key: [], id: r.id }));
      return mapPage(
        result,
        (r): WebhookAttempt => ({
          id: r.id,
          orgId: r.org_id,
          endpointId: r.endpoint_id,
          deliveryId: r.delivery_id,
          activityId: r.activity_id,
          eventType: r.event_type,
          attemptedAt: r.attempted_at,
          statusCode: r.status_code,
          latencyMs: r.latency_ms,
          error: r.error,
          responseExcerpt: r.response_excerpt,
        }),
      );
    },
    async hasHistoryBefore(orgId, before) {
      const [attempt] = await oldAttempts(orgId, before, 1).execute();
      if (attempt) return true;
      const [delivery] = await finishedDeliveries(orgId, before, 1).execute();
      return delivery !== undefined;
    },
    async pruneHistory(orgId, before, limit) {
      const attempts = await db.deleteFrom('webhook_attempts').where('id', 'in', oldAttempts(orgId, before, limit)).executeTakeFirst();
      // Any attempt of theirs still there (the batch above cut short) goes with them: the foreign key cascades.
      const deliveries = await db.deleteFrom('webhook_deliveries').where('id', 'in', finishedDeliveries(orgId, before, limit)).executeTakeFirst();
      return Number(attempts.numDeletedRows) + Number(deliveries.numDeletedRows);
    },
    async pendingCount() {
      const row = await db.selectFrom('webhook_deliveries').select(sql<number>`count(*)`.as('n')).where('status', '=', PENDING).executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
