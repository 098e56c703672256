// Entity links (associations of notes, files and tagsets today). Reads by source walk the primary key, reads
// by target the `links_to` index; either is one index range scan per request, whatever the table's size.
import type { Kysely, Selectable } from 'kysely';
import type { Link, LinkRepo, LinkTarget } from '../../domain/ports/store.ts';
import type { Database, LinksTable } from './schema.ts';
import { executeUnread } from './statement-marks.ts';

/** Rows per insert and ids per `in` list: 7 parameters a row stays far below SQLite's and PostgreSQL's limits. */
const CHUNK = 500;

const toLink = (r: Selectable<LinksTable>): Link => ({
  fromType: r.from_type,
  fromId: r.from_id,
  role: r.role,
  position: r.position,
  toType: r.to_type,
  toId: r.to_id,
});

/** The links to `target`, in the order of the `links_to` index (exported so tests can check its plan). */
export function linksTo(db: Kysely<Database>, orgId: string, target: LinkTarget, fromType?: string) {
  let query = db.selectFrom('links').selectAll().where('org_id', '=', orgId).where('to_type', '=', target.type);
  query = target.id === null ? query.where('to_id', 'is', null) : query.where('to_id', '=', target.id);
  if (fromType !== undefined) query = query.where('from_type', '=', fromType);
  return query.orderBy('from_type').orderBy('from_id');
}

export function linkRepo(db: Kysely<Database>): LinkRepo {
  const insertRows = async (orgId: string, links: Link[]) => {
    for (let i = 0; i < links.length; i += CHUNK) {
      const rows = links.slice(i, i + CHUNK).map((l) => ({
        org_id: orgId,
        from_type: l.fromType,
        from_id: l.fromId,
        role: l.role,
        position: l.position,
        to_type: l.toType,
        to_id: l.toId,
      }));
      await db.insertInto('links').values(rows).execute();
    }
  };
  return {
    async replace(orgId, fromType, fromId, role, targets) {
      await executeUnread(db, db.deleteFrom('links').where('org_id', '=', orgId).where('from_type', '=', fromType).where('from_id', '=', fromId).where('role', '=', role));
      await insertRows(
        orgId,
        targets.map((t, position) => ({ fromType, fromId, role, position, toType: t.type, toId: t.id })),
      );
    },
    insertMany: insertRows,
    async targetsOf(orgId, fromType, fromIds, role) {
      const result = new Map<string, LinkTarget[]>();
      const ids = [...new Set(fromIds)];
      for (let i = 0; i < ids.length; i += CHUNK) {
        const rows = await db
          .selectFrom('links')
          .select(['from_id', 'to_type', 'to_id'])
          .where('org_id', '=', orgId)
          .where('from_type', '=', fromType)
          .where('from_id', 'in', ids.slice(i, i + CHUNK))
          .where('role', '=', role)
          .orderBy('from_id')
          .orderBy('position')
          .execute();
        for (const r of rows) {
          let targets = result.get(r.from_id);
          if (!targets) result.set(r.from_id, (targets = []));
          targets.push({ type: r.to_type, id: r.to_id });
        }
      }
      return result;
    },
    async sourcesOf(orgId, target, fromType) {
      return (await linksTo(db, orgId, target, fromType).execute()).map(toLink);
    },
    async deleteEntity(orgId, type, id) {
      await executeUnread(db, db.deleteFrom('links').where('org_id', '=', orgId).where('from_type', '=', type).where('from_id', '=', id));
      await executeUnread(db, db.deleteFrom('links').where('org_id', '=', orgId).where('to_type', '=', type).where('to_id', '=', id));
    },
  };
}
