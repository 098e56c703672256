// Activities table and its per-constituent index.
import type { Kysely } from 'kysely';
import type { ActivityRepo } from '../store.ts';
import type { Database } from './schema.ts';

export function activityRepo(db: Kysely<Database>): ActivityRepo {
  return {
    async insert(activity) {
      await db
        .insertInto('activities')
        .values({
          id: activity.id,
          org_id: activity.orgId,
          type: activity.type,
          occurred_at: activity.occurredAt,
          constituents: JSON.stringify(activity.constituents),
        })
        .execute();
      if (activity.constituents.length === 0) return;
      await db
        .insertInto('activity_entities')
        .values(
          activity.constituents.map((c) => ({
            activity_id: activity.id,
            org_id: activity.orgId,
            entity_type: c.entity.type,
            entity_id: c.entity.id,
            relation: c.relation,
            occurred_at: activity.occurredAt,
          })),
        )
        .execute();
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
      return rows.map((r) => ({ id: r.id, orgId: r.org_id, type: r.type, occurredAt: r.occurred_at, constituents: JSON.parse(r.constituents) }));
    },
  };
}
