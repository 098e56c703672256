// Items table (the values document) and the item_values index kept beside it.
import { sql, type ExpressionBuilder, type Kysely, type QueryCreator, type Selectable, type SelectQueryBuilder } from 'kysely';
import { pageColumns, queryItems, servedBody, servedRow } from './item-queries.ts';
import type { IndexEntry, IndexKey, Item } from '../../domain/items.ts';
import type { ServedItem } from '../../domain/item-wire.ts';
import type { ItemRepo, LockMode } from '../../domain/ports/store.ts';
import type { Database, ItemsTable } from './schema.ts';
import type { Engine } from './sql-store.ts';
import { writeTogether, type Write } from './write-together.ts';
import { Binder, shapesOf, slot } from './shapes.ts';
import { executeUnread } from './statement-marks.ts';

/** What an item is read with to be changed: everything but its wire form, which a write renders afresh. */
const ITEM_COLUMNS = ['id', 'org_id', 'collection_id', 'doc', 'created_at', 'updated_at'] as const;
/** Runs of an upsert's match while writers it waited for keep changing which items hold its keys. */
const MATCH_ATTEMPTS = 3;
type ItemRow = Pick<Selectable<ItemsTable>, (typeof ITEM_COLUMNS)[number]>;

export const toItem = (row: ItemRow): Item => ({
  id: row.id,
  orgId: row.org_id,
  collectionId: row.collection_id,
  values: JSON.parse(row.doc),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

type IndexRow = Database['item_values'];

/** `bind` puts the values in a shape's slots (shapes.ts); by default they are written as they are. */
const indexRows = (itemId: string, entries: IndexEntry[], bind: <T>(value: T) => T = (value) => value): IndexRow[] =>
  entries.map((e) => ({
    item_id: bind(itemId),
    field_id: bind(e.fieldId),
    position: bind(e.position),
    key_text: bind(e.text),
    key_rev: bind(e.suffix ?? null),
    key_num: bind(e.num),
  }));

const BATCH = 500;

/** An index row of `fieldId` with exactly this key (null parts compared as null). */
const holdsKey = (eb: ExpressionBuilder<Database & { v: Database['item_values'] }, 'v'>, fieldId: string, key: IndexKey) =>
  eb.and([
    eb('v.field_id', '=', fieldId),
    key.text === null ? eb('v.key_text', 'is', null) : eb('v.key_text', '=', key.text),
    key.num === null ? eb('v.key_num', 'is', null) : eb('v.key_num', '=', key.num),
  ]);

const sameKey = (a: IndexEntry, b: IndexEntry) => a.text === b.text && a.num === b.num && (a.suffix ?? null) === (b.suffix ?? null);

/** Index rows, inserted. */
const insertRows = (q: QueryCreator<Database>, rows: IndexRow[]) => q.insertInto('item_values').values(rows);

/** Index rows, written over whatever the same field and position held. */
const upsertRows = (q: QueryCreator<Database>, rows: IndexRow[]) =>
  insertRows(q, rows).onConflict((oc) =>
    oc.columns(['item_id', 'field_id', 'position']).doUpdateSet((eb) => ({
      key_text: eb.ref('excluded.key_text'),
      key_rev: eb.ref('excluded.key_rev'),
      key_num: eb.ref('excluded.key_num'),
    })),
  );

/**
 * What turns the index entries of `fieldIds` from `previous` into `entries`: the entries that differ (to
 * upsert), and per field that lost values, the first position to delete.
 */
function indexChange(fieldIds: string[], entries: IndexEntry[], previous: IndexEntry[]) {
  const before = new Map(previous.map((e) => [`${e.fieldId}/${e.position}`, e]));
  const changed = entries.filter((e) => {
    const old = before.get(`${e.fieldId}/${e.position}`);
    return !old || !sameKey(old, e);
  });
  const count = (list: IndexEntry[], fieldId: string) => list.filter((e) => e.fieldId === fieldId).length;
  const shrunk = fieldIds.map((fieldId) => ({ fieldId, kept: count(entries, fieldId) })).filter(({ fieldId, kept }) => kept < count(previous, fieldId));
  return { changed, shrunk };
}

/**
 * `serveOne` with the organization's current schema tag, read by the same statement (so in the same snapshot):
 * one round trip where the tag cannot be remembered. Undefined when the organization is gone.
 */
export async function serveOneTagged(
  db: Kysely<Database>,
  engine: Pick<Engine, 'name'>,
  orgId: string,
  collectionId: string,
  id: string,
  wireTag: string,
): Promise<{ schemaTag: string; served: ServedItem | undefined } | undefined> {
  const statement = shapesOf(engine).statement('items.serveOneTagged', [wireTag, id, orgId, collectionId], () =>
    (db.selectFrom('organizations as o') as SelectQueryBuilder<any, any, any>)
      .leftJoin('items as i', (join) => join.on('i.id', '=', slot(1)).onRef('i.org_id', '=', 'o.id').on('i.collection_id', '=', slot(3)))
      .select(['o.schema_tag', ...pageColumns(slot(0))])
      .where('o.id', '=', slot(2)),
  );
  const [row] = (await db.executeQuery(statement)).rows as Record<string, any>[];
  if (!row) return undefined;
  return { schemaTag: row.schema_tag, served: row.id === null ? undefined : servedRow(row, orgId, collectionId) };
}

export function itemRepo(db: Kysely<Database>, engine: Pick<Engine, 'name' | 'rowLocks' | 'writableCtes' | 'readAhead'>): ItemRepo {
  /**
   * Writes the item's row with `head` (built over `binder`'s slots), and index rows with `rows`: the first batch
   * in the same statement where the engine can. `key` names the head's shape.
   */
  const withIndexRows = async (key: string, binder: Binder, head: Write, itemId: string, entries: IndexEntry[], rows: typeof insertRows) => {
    const first = indexRows(itemId, entries.slice(0, BATCH), binder.bind);
    await writeTogether(db, engine, `${key} ${first.length}`, binder, first.length === 0 ? [head] : [head, (q) => rows(q, first)]);
    for (let i = BATCH; i < entries.length; i += BATCH) await rows(db, indexRows(itemId, entries.slice(i, i + BATCH))).execute();
  };
  /** Locks the rows a read returns, in id order so that two transactions locking overlapping sets cannot deadlock. */
  const locking = (mode: LockMode | undefined) => (engine.rowLocks ? mode : undefined);
  /** Item ids of the organization among `ids` (index rows carry no organization of their own). */
  const ownedIds = (orgId: string) => db.selectFrom('items').select('id').where('org_id', '=', orgId);
  /** Distinct ids of the organization's items that have index rows matching what the caller adds. */
  const itemsWithValues = (orgId: string) =>
    db.selectFrom('item_values as v').innerJoin('items as i', 'i.id', 'v.item_id').select('v.item_id').distinct().where('i.org_id', '=', orgId);
  /** Counts distinct items of the organization with values of `fieldId`, under the caller's extra conditions. */
  const countValueHolders = (orgId: string, fieldId: string) =>
    db
      .selectFrom('item_values as v')
      .innerJoin('items as i', 'i.id', 'v.item_id')
      .select(sql<number>`count(distinct v.item_id)`.as('n'))
      .where('i.org_id', '=', orgId)
      .where('v.field_id', '=', fieldId);
  const ids = async (query: { execute(): Promise<{ item_id: string }[]> }) => (await query.execute()).map((r) => r.item_id);
  const shapes = shapesOf(engine);

  return {
    async insert(item, wire, entries) {
      const binder = new Binder();
      const { bind } = binder;
      const row = {
        id: bind(item.id),
        org_id: bind(item.orgId),
        collection_id: bind(item.collectionId),
        doc: bind(JSON.stringify(item.values)),
        wire: bind(wire.json),
        wire_tag: bind(wire.tag),
        created_at: bind(item.createdAt),
        updated_at: bind(item.updatedAt),
      };
      await withIndexRows('items.insert', binder, (q) => q.insertInto('items').values(row), item.id, entries, insertRows);
    },
    async update(item, wire, entries, fieldIds, previous) {
      const binder = new Binder();
      const { bind } = binder;
      const set = { doc: bind(JSON.stringify(item.values)), wire: bind(wire.json), wire_tag: bind(wire.tag), updated_at: bind(item.updatedAt) };
      const [id, orgId] = [bind(item.id), bind(item.orgId)];
      const saveDoc: Write = (q) => q.updateTable('items').set(set).where('id', '=', id).where('org_id', '=', orgId);
      const kept = fieldIds === undefined ? entries : entries.filter((e) => fieldIds.includes(e.fieldId));
      if (fieldIds !== undefined && previous !== undefined) {
        const { changed, shrunk } = indexChange(fieldIds, kept, previous);
        await withIndexRows('items.update', binder, saveDoc, item.id, changed, upsertRows);
        if (shrunk.length === 0) return;
        await db
          .deleteFrom('item_values')
          .where('item_id', '=', item.id)
          .where((eb) => eb.or(shrunk.map(({ fieldId, kept }) => eb.and([eb('field_id', '=', fieldId), eb('position', '>=', kept)]))))
          .execute();
        return;
      }
      if (fieldIds?.length !== 0) {
        let removal = db.deleteFrom('item_values').where('item_id', '=', item.id);
        if (fieldIds !== undefined) removal = removal.where('field_id', 'in', fieldIds);
        await removal.execute();
      }
      await withIndexRows('items.update replacing', binder, saveDoc, item.id, kept, insertRows);
    },
    async delete(orgId, id) {
      await executeUnread(db, db.deleteFrom('item_values').where('item_id', 'in', ownedIds(orgId).where('id', '=', id)));
      await executeUnread(db, db.deleteFrom('items').where('org_id', '=', orgId).where('id', '=', id));
    },
    async findMany(orgId, ids, lock) {
      const rows: ItemRow[] = [];
      const mode = locking(lock);
      // Locks are taken batch after batch, so the batches follow one global order too.
      const ordered = mode ? [...new Set(ids)].sort() : ids;
      for (let i = 0; i < ordered.length; i += BATCH) {
        const batch = ordered.slice(i, i + BATCH);
        const read = db.selectFrom('items').select(ITEM_COLUMNS).where('org_id', '=', orgId).where('id', 'in', batch);
        if (mode === undefined) rows.push(...(await read.execute()));
        // KEY SHARE holders coexist and keep the row from being deleted or locked FOR UPDATE until they end.
        else if (mode === 'shared') rows.push(...(await read.orderBy('id').forKeyShare().execute()));
        else rows.push(...(await read.orderBy('id').forUpdate().execute()));
      }
      const byId = new Map(rows.map((r) => [r.id, toItem(r)]));
      return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
    },
    query: (orgId, query, page) => queryItems(db, shapes, orgId, query, page),
    serve: (orgId, query, page, wireTag) => queryItems(db, shapes, orgId, query, page, wireTag),
    async serveOne(orgId, collectionId, id, wireTag): Promise<ServedItem | undefined> {
      const statement = shapes.statement('items.serveOne', [wireTag, id, orgId, collectionId], () =>
        (db.selectFrom('items as i') as SelectQueryBuilder<any, any, any>)
          .select(pageColumns(slot(0)))
          .where('i.id', '=', slot(1))
          .where('i.org_id', '=', slot(2))
          .where('i.collection_id', '=', slot(3)),
      );
      const [row] = (await db.executeQuery(statement)).rows;
      return row && servedRow(row as Record<string, any>, orgId, collectionId);
    },
    async serveMany(orgId, ids, wireTags) {
      const served = new Map<string, ServedItem>();
      for (let i = 0; i < ids.length; i += BATCH) {
        const batch = [...new Set(ids.slice(i, i + BATCH))];
        const { bind, values } = new Binder();
        // No tag is empty: without tags every item comes with its values.
        const [owner, tags, wanted] = [bind(orgId), (wireTags.length > 0 ? wireTags : ['']).map(bind), batch.map(bind)];
        // A shape per number of tags and of ids (a search's few dozen, at most a batch).
        const statement = shapes.statement(`items.serveMany ${tags.length} ${wanted.length}`, values, () =>
          (db.selectFrom('items as i') as SelectQueryBuilder<any, any, any>)
            .select(['i.id', 'i.collection_id', servedBody(sql`in (${sql.join(tags)})`)])
            .where('i.org_id', '=', owner)
            .where('i.id', 'in', wanted),
        );
        for (const row of (await db.executeQuery(statement)).rows as Record<string, any>[]) served.set(row.id, servedRow(row, orgId, row.collection_id));
      }
      return ids.flatMap((id) => (served.has(id) ? [served.get(id)!] : []));
    },
    async idsWithValues(orgId, fieldIds) {
      return fieldIds.length === 0 ? [] : ids(itemsWithValues(orgId).where('v.field_id', 'in', fieldIds));
    },
    async idsWithRelationsInto(orgId, fieldId, collectionIds) {
      if (collectionIds.length === 0) return [];
      return ids(
        itemsWithValues(orgId)
          .innerJoin('items as target', 'target.id', 'v.key_text')
          .where('v.field_id', '=', fieldId)
          .where('target.collection_id', 'in', collectionIds),
      );
    },
    async idsReferencing(orgId, itemId) {
      const relationFields = db.selectFrom('fields').select('id').where('org_id', '=', orgId).where('type', '=', 'field/relation');
      const rows = await db
        .selectFrom('item_values')
        .select('item_id')
        .distinct()
        .where('field_id', 'in', relationFields)
        .where('key_text', '=', itemId)
        .execute();
      return rows.map((r) => r.item_id);
    },
    async idsWithKey(orgId, fieldId, key) {
      return ids(itemsWithValues(orgId).where((eb) => holdsKey(eb, fieldId, key)));
    },
    async idsByTextKey(orgId, fieldId, keys) {
      const holders = new Map<string, string[]>();
      if (keys.length === 0) return holders;
      const rows = await itemsWithValues(orgId).select('v.key_text').where('v.field_id', '=', fieldId).where('v.key_text', 'in', [...new Set(keys)]).orderBy('v.item_id').execute();
      for (const { item_id, key_text } of rows) holders.set(key_text!, [...(holders.get(key_text!) ?? []), item_id]);
      return holders;
    },
    async withKeys(orgId, keys, lock) {
      if (keys.length === 0) return [];
      // Every upsert matches here: a shape per lock mode and per key's null parts.
      const { values, bind } = new Binder();
      const bound = keys.map(({ fieldId, key }) => ({ fieldId: bind(fieldId), key: { text: key.text === null ? null : bind(key.text), num: key.num === null ? null : bind(key.num) } }));
      const owner = bind(orgId);
      const mode = locking(lock);
      const shape = `items.withKeys ${keys.map(({ key }) => `${key.text === null ? '-' : 't'}${key.num === null ? '-' : 'n'}`).join(',')}`;
      const holders = () => db.selectFrom('item_values as v').select('v.item_id').where((eb) => eb.or(bound.map(({ fieldId, key }) => holdsKey(eb, fieldId, key))));
      const holding = () => db.selectFrom('items').select('id').where('org_id', '=', owner).where('id', 'in', holders());
      const statement = shapes.statement(`${shape} ${mode}`, values, () => {
        const read = db.selectFrom('items').select(ITEM_COLUMNS).where('org_id', '=', owner).where('id', 'in', holders()).orderBy('id');
        return mode === undefined ? read : mode === 'shared' ? read.forKeyShare() : read.forUpdate();
      });
      if (mode !== 'exclusive' || !engine.readAhead) return (await db.executeQuery(statement)).rows.map(toItem);
      // The items are chosen by the statement's snapshot, taken before it waited for their locks: a writer it
      // waited for may have taken a key from one (a PATCH) or given it to another (a merge), and the rows come
      // back locked all the same. The holders are read again by a statement sent right behind it (the same
      // round trip), whose snapshot is taken after that wait; where they differ, the match runs again.
      for (let attempt = 1; ; attempt++) {
        const locked = await engine.readAhead(db, { compile: () => statement });
        const after = await engine.readAhead(db, { compile: () => shapes.statement(`${shape} holders`, values, holding) });
        const rows = (await locked.answer()).map((r) => toItem(r as Selectable<ItemsTable>));
        const now = new Set((await after.answer()).map((r) => (r as { id: string }).id));
        if ((now.size === rows.length && rows.every((r) => now.has(r.id))) || attempt === MATCH_ATTEMPTS) return rows;
      }
    },
    async countWithSeveralValues(orgId, fieldId) {
      const row = await countValueHolders(orgId, fieldId).where('v.position', '>', 0).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async countWithoutValue(orgId, collectionId, fieldId) {
      const row = await db
        .selectFrom('items as i')
        .select(sql<number>`count(*)`.as('n'))
        .where('i.org_id', '=', orgId)
        .where('i.collection_id', '=', collectionId)
        .where((eb) =>
          eb.not(eb.exists(eb.selectFrom('item_values as v').select('v.item_id').whereRef('v.item_id', '=', 'i.id').where('v.field_id', '=', fieldId))),
        )
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async countWithDuplicateValues(orgId, fieldId) {
      const row = await countValueHolders(orgId, fieldId)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('item_values as w')
              .select('w.item_id')
              .where('w.field_id', '=', fieldId)
              .whereRef('w.item_id', '<>', 'v.item_id')
              .where(sql<boolean>`w.key_text is not distinct from v.key_text`)
              .where(sql<boolean>`w.key_num is not distinct from v.key_num`),
          ),
        )
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
