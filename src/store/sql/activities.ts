// Activities table and its per-constituent index. The feed of one entity walks the index by time.
import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely';
import type { Activity, ActivityQuery } from '../../domain/activity.ts';
import { emptyPageEdges, mapPage, type PageRequest } from '../../domain/pagination.ts';
import type { ActivityRepo } from '../../domain/ports/store.ts';
import type { ActivitiesTable, Database } from './schema.ts';
import { fetchPage, fetchSegments, mapPosition, type OrderKey, type Runner } from './keyset.ts';
import { writeTogether, type Write } from './write-together.ts';
import { Binder, bindAll, compilable, shapesOf } from './shapes.ts';
import { jsonRows } from './json-rows.ts';
import type { Engine } from './sql-store.ts';
import { DELIVERY_COLUMNS, deliveryRow, forEnabledEndpoints } from './webhooks.ts';
import { executeUnread } from './statement-marks.ts';

export const toActivity = (r: Selectable<ActivitiesTable>): Activity => ({
  id: r.id,
  orgId: r.org_id,
  type: r.type,
  occurredAt: r.occurred_at,
  constituents: JSON.parse(r.constituents),
});

/**
 * `outboxWritten` is told of every write of webhook outbox rows (the store wakes the delivery worker once the
 * transaction commits) and answers whether to announce them to other processes now.
 */
export function activityRepo(db: Kysely<Database>, engine: Pick<Engine, 'name' | 'writableCtes' | 'announce'>, outboxWritten: () => boolean): ActivityRepo {
  const shapes = shapesOf(engine);
  return {
    async insert(activity, deliveries = []) {
      // Every create records one: the statement is a shape (write-together.ts).
      const binder = new Binder();
      const { bind } = binder;
      const row = {
        id: bind(activity.id),
        org_id: bind(activity.orgId),
        type: bind(activity.type),
        occurred_at: bind(activity.occurredAt),
        constituents: bind(JSON.stringify(activity.constituents)),
      };
      const feedRows = activity.constituents.map((c) => ({
        activity_id: row.id,
        org_id: row.org_id,
        entity_type: bind(c.entity.type),
        entity_id: bind(c.entity.id),
        relation: bind(c.relation),
        occurred_at: row.occurred_at,
      }));
      const outboxRows = deliveries.map((d) => bindAll(deliveryRow(d), bind));
      const writes: [Write, ...Write[]] = [(q) => q.insertInto('activities').values(row)];
      if (feedRows.length > 0) writes.push((q) => q.insertInto('activity_entities').values(feedRows));
      if (outboxRows.length > 0) writes.push((q) => q.insertInto('webhook_deliveries').columns(DELIVERY_COLUMNS).expression(forEnabledEndpoints(outboxRows)));
      await writeTogether(db, engine, `activities.insert ${feedRows.length} ${outboxRows.length}`, binder, writes);
      if (deliveries.length === 0) return;
      // Other processes' delivery workers hear of the outbox rows at commit, or soon after (sql-store.ts).
      if (outboxWritten()) await engine.announce(db, 'webhook_deliveries');
    },
    async restate(orgId, type, object, occurredAt, constituents) {
      const stated = JSON.stringify(constituents);
      /** The feed row naming `object` as the object. */
      const objectRow = (w: ExpressionBuilder<Database, 'activity_entities'>) =>
        w.and([w('entity_type', '=', object.type), w('entity_id', '=', object.id), w('relation', '=', 'object')]);
      // The activities to restate: of `type`, naming `object`, and not already as stated. Every statement
      // below picks them so, and none is waited for (they travel with the commit on PostgreSQL): the object's
      // feed row is kept and moved, the others replaced, and the activity itself changed last.
      const differing = () =>
        db
          .selectFrom('activities as a')
          .select('a.id')
          .where('a.org_id', '=', orgId)
          .where('a.type', '=', type)
          .where('a.id', 'in', db.selectFrom('activity_entities').select('activity_id').where('org_id', '=', orgId).where(objectRow))
          .where((w) => w.or([w('a.occurred_at', '<>', occurredAt), w('a.constituents', '<>', stated)]));
      await executeUnread(db, db.deleteFrom('activity_entities').where('activity_id', 'in', differing()).where((w) => w.not(objectRow(w))));
      const others = constituents.filter((c) => !(c.relation === 'object' && c.entity.type === object.type && c.entity.id === object.id));
      if (others.length > 0) {
        const rows = JSON.stringify(others.map((c) => ({ entity_type: c.entity.type, entity_id: c.entity.id, relation: c.relation })));
        await executeUnread(
          db,
          compilable(
            db,
            sql`insert into activity_entities (activity_id, org_id, entity_type, entity_id, relation, occurred_at)
              select a.id, a.org_id, r.entity_type, r.entity_id, r.relation, ${occurredAt}
              from activities as a cross join (${jsonRows(engine, 'activity_entities', ['entity_type', 'entity_id', 'relation'], rows)}) as r
              where a.id in (${differing()})`,
          ),
        );
      }
      await executeUnread(db, db.updateTable('activity_entities').set({ occurred_at: occurredAt }).where('activity_id', 'in', differing()).where(objectRow));
      await executeUnread(db, db.updateTable('activities').set({ occurred_at: occurredAt, constituents: stated }).where('org_id', '=', orgId).where('id', 'in', differing()));
    },
    async listByEntity(orgId, entityType, entityId) {
      const rows = await db
        .selectFrom('activities as a')
        .innerJoin('activity_entities as e', 'e.activity_id', 'a.id')
        .selectAll('a')
        .where('e.org_id', '=', orgId)
        .where('e.entity_type', '=', entityType)
        .where('e.entity_id', '=', entityId)
        .orderBy('a.occurred_at', 'desc')
        .orderBy('a.id', 'desc')
        .execute();
      return rows.map(toActivity);
    },
    async list(orgId, query, page) {
      // Built once per shape (shapes.ts): which parts the query and the page have, with slots for their values.
      const { bind, values } = new Binder();
      const optional = (value: string | undefined) => (value === undefined ? undefined : bind(value));
      const { entity } = query;
      const shape: ActivityQuery = {
        ...(entity ? { entity: { type: bind(entity.type), id: optional(entity.id), relation: optional(entity.relation) as typeof entity.relation } } : {}),
        ...(query.types ? { types: query.types.map(bind) } : {}),
        ...(query.alsoInvolving ? { alsoInvolving: query.alsoInvolving.map((o) => ({ type: bind(o.type), id: bind(o.id) })) } : {}),
        occurredFrom: optional(query.occurredFrom),
        occurredTo: optional(query.occurredTo),
      };
      const pageShape: PageRequest = { limit: page.limit, after: mapPosition(page.after, bind), before: mapPosition(page.before, bind) };
      const org = bind(orgId);
      const key = `activities.list ${JSON.stringify(shape)} ${JSON.stringify(pageShape)}`;
      const { q, keys } = shapes.memo(key, () => feedQuery(db, org, shape));
      const run: Runner = async (label, build) => (await db.executeQuery(shapes.statement(`${key} ${label}`, values, build))).rows;
      const result = await fetchSegments([{ query: q, keys, holds: () => true }], pageShape, (r) => ({ key: [r.k_time], id: r.k_id }), run);
      // The shape's anchor holds slots: an empty page's way back is made from this read's own.
      return mapPage(emptyPageEdges(result, page), toActivity);
    },
    async find(orgId, id) {
      const row = await db.selectFrom('activities').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return row && toActivity(row);
    },
    async inOrder(orgId, types, page) {
      let q = db.selectFrom('activities as a').selectAll('a').where('a.org_id', '=', orgId);
      if (types) q = types.length > 0 ? q.where('a.type', 'in', types) : q.where(sql<boolean>`1 = 0`);
      const result = await fetchPage(q, [{ column: 'a.id', desc: false }], page, (r) => ({ key: [], id: r.id }));
      return mapPage(result, toActivity);
    },
  };
}

/** The feed's rows that `query` selects, and the keys of its order: newest first. */
function feedQuery(db: Kysely<Database>, orgId: string, query: ActivityQuery) {
  const { entity } = query;
  // With an entity, the constituent index drives (its time column orders the walk); otherwise the feed's own.
  let q = entity
    ? db
        .selectFrom('activity_entities as e')
        .innerJoin('activities as a', 'a.id', 'e.activity_id')
        .selectAll('a')
        .select(['e.occurred_at as k_time', 'e.activity_id as k_id'])
        .where('e.org_id', '=', orgId)
        .where('e.entity_type', '=', entity.type)
    : db.selectFrom('activities as a').selectAll('a').select(['a.occurred_at as k_time', 'a.id as k_id']).where('a.org_id', '=', orgId);
  if (entity?.id !== undefined) q = q.where(sql.ref('e.entity_id'), '=', entity.id);
  if (entity?.relation !== undefined) q = q.where(sql.ref('e.relation'), '=', entity.relation);
  if (query.types) q = query.types.length > 0 ? q.where('a.type', 'in', query.types) : q.where(sql<boolean>`1 = 0`);
  for (const other of query.alsoInvolving ?? []) {
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('activity_entities as x')
          .select(sql<number>`1`.as('one'))
          .whereRef('x.activity_id', '=', 'a.id')
          .where('x.entity_type', '=', other.type)
          .where('x.entity_id', '=', other.id),
      ),
    );
  }
  const time = entity ? 'e.occurred_at' : 'a.occurred_at';
  if (query.occurredFrom !== undefined) q = q.where(sql.ref(time), '>=', query.occurredFrom);
  if (query.occurredTo !== undefined) q = q.where(sql.ref(time), '<=', query.occurredTo);
  if (entity && entity.id === undefined) q = q.distinct();
  const keys: OrderKey[] = [
    { column: time, desc: true },
    { column: entity ? 'e.activity_id' : 'a.id', desc: true },
  ];
  return { q, keys };
}
