// An organization's whole state, read, written and deleted generically: the tables come from the database's
// catalogue, so a table added by a later migration is covered without a change here. A table with an `org_id`
// column belongs to an organization; a table without one must say below how its rows do (a parent table), or
// that it is global — `Database` makes that declaration compulsory for every table it lists.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { OrgRows, OrgStateRepo } from '../../domain/ports/toolkit-store.ts';

type Row = Record<string, unknown>;
import type { Database } from './schema.ts';
import { announceSchemaChange, bumpSchemaTag } from './schema-cache.ts';
import { CHANGE_TOPICS, type Engine } from './sql-store.ts';
import { insertJsonRows } from './json-rows.ts';
import { plannedPerRequest } from './statement-marks.ts';

type WithOrgId = { [N in keyof Database]: Database[N] extends { org_id: string } ? N : never }[keyof Database];
type WithoutOrgId = Exclude<keyof Database, WithOrgId>;

/** Tables without `org_id`: the owned table (and the column pointing at its `id`) their rows hang off, or 'global'. */
const OWNED_THROUGH: Record<WithoutOrgId, { parent: WithOrgId; column: string } | 'global'> = {
  organizations: 'global',
  settings: 'global',
  item_values: { parent: 'items', column: 'item_id' },
};

/**
 * Tables with `org_id` where no index leads with it: their rows are found through the indexed column that points
 * at a parent row, so reading or deleting an organization never scans other organizations' rows. (Items must not
 * get such an index: SQLite's planner, without statistics, would walk it for lookups the value index answers.)
 * A table added without either makes test/store/org-state-plans.test.ts fail.
 */
const FOUND_THROUGH: Partial<Record<WithOrgId, { parent: WithOrgId; column: string }>> = {
  items: { parent: 'collections', column: 'collection_id' },
  fields: { parent: 'collections', column: 'collection_id' },
  message_attachments: { parent: 'inbox_messages', column: 'message_id' },
  webhook_deliveries: { parent: 'webhook_endpoints', column: 'endpoint_id' },
  webhook_attempts: { parent: 'webhook_endpoints', column: 'endpoint_id' },
};

/**
 * Owned tables that are not the organization's data: its credentials and the toolkit's records about it. The
 * Idempotency-Key answers among them: a restore or reset retried with its key must find its own claim (a
 * restore replacing them ran again and undid the writes since), and a clone must not replay its source's.
 */
const OUTSIDE_STATE: readonly WithOrgId[] = ['api_keys', 'org_clocks', 'snapshots', 'request_journal', 'idempotency_keys'];

/** The column naming a file's contents in the blob store, in any table. */
const BLOB_KEY = 'blob_key';

/** Ids per statement where rows are deleted by id. */
const DELETE_BATCH = 1000;

/** Kysely's own bookkeeping. */
const MIGRATION_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

interface OwnedTable {
  name: string;
  columns: string[];
  /** How a row is found for the organization: by its own org_id, or through its parent's. */
  through?: { parent: string; column: string };
  state: boolean;
}

/** What the catalogue says, in an order where every table comes after the tables it references. */
interface Catalogue {
  tables: OwnedTable[];
  byName: Map<string, OwnedTable>;
}

/** The engine-specific catalogue queries. */
interface CatalogueQueries {
  tables(db: Kysely<Database>): Promise<string[]>;
  columns(db: Kysely<Database>, table: string): Promise<string[]>;
  references(db: Kysely<Database>, table: string): Promise<string[]>;
}

const SQLITE: CatalogueQueries = {
  async tables(db) {
    const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db);
    return rows.rows.map((r) => r.name);
  },
  async columns(db, table) {
    return (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows.map((r) => r.name);
  },
  async references(db, table) {
    return (await sql<{ parent: string }>`select "table" as parent from pragma_foreign_key_list(${table})`.execute(db)).rows.map((r) => r.parent);
  },
};

const POSTGRES: CatalogueQueries = {
  async tables(db) {
    const rows = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
    return rows.rows.map((r) => r.name);
  },
  async columns(db, table) {
    const rows = await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(db);
    return rows.rows.map((r) => r.name);
  },
  async references(db, table) {
    const rows = await sql<{ parent: string }>`
      select distinct p.relname as parent from pg_constraint c
      join pg_class t on t.oid = c.conrelid join pg_class p on p.oid = c.confrelid
      where c.contype = 'f' and t.relname = ${table} and t.relnamespace = current_schema()::regnamespace`.execute(db);
    return rows.rows.map((r) => r.parent);
  },
};

const catalogues = new WeakMap<object, Promise<Catalogue>>();

async function readCatalogue(db: Kysely<Database>, queries: CatalogueQueries): Promise<Catalogue> {
  const declared = OWNED_THROUGH as Record<string, { parent: string; column: string } | 'global'>;
  const owned = new Map<string, OwnedTable & { references: string[] }>();
  for (const name of await queries.tables(db)) {
    if (MIGRATION_TABLES.has(name)) continue;
    const columns = await queries.columns(db, name);
    const declaration = declared[name] ?? (FOUND_THROUGH as Record<string, { parent: string; column: string }>)[name];
    if (declaration === 'global') continue;
    if (!columns.includes('org_id') && declaration === undefined) {
      throw new Error(`table ${name} has no org_id column and is not declared in OWNED_THROUGH (src/store/sql/org-state.ts)`);
    }
    const state = !(OUTSIDE_STATE as readonly string[]).includes(name);
    owned.set(name, { name, columns, state, references: await queries.references(db, name), ...(declaration ? { through: declaration } : {}) });
  }
  // Parents first: depth-first over the references, so inserts satisfy foreign keys and deletes run in reverse.
  const ordered: OwnedTable[] = [];
  const visited = new Set<string>();
  const visit = (name: string) => {
    const table = owned.get(name);
    if (!table || visited.has(name)) return;
    visited.add(name);
    for (const parent of [...table.references, ...(table.through ? [table.through.parent] : [])]) if (parent !== name) visit(parent);
    const { references: _, ...rest } = table;
    ordered.push(rest);
  };
  for (const name of [...owned.keys()].sort()) visit(name);
  return { tables: ordered, byName: new Map(ordered.map((t) => [t.name, t])) };
}

export function orgStateRepo(db: Kysely<Database>, engine: Pick<Engine, 'name' | 'announce'>, cacheKey: object): OrgStateRepo {
  const queries = engine.name === 'postgres' ? POSTGRES : SQLITE;
  // The catalogue changes only with migrations, which run before the store opens.
  const catalogue = () => {
    let found = catalogues.get(cacheKey);
    if (!found) catalogues.set(cacheKey, (found = readCatalogue(db, queries)));
    return found;
  };
  /**
   * `from <table> c where …`: the organization's rows of `table`, reached from the organization through an index
   * at every step up to the table that holds its id. SQLite: joins, not `col in (subquery)` (with statistics it
   * estimates such a list by its average, and an organization's few rows in a collection that another
   * organization fills make it scan); it keeps the joins' nested loops on the indexes. PostgreSQL estimates a
   * join the same way and hashed a scan of every organization's items against a sandbox's collections (44 ms
   * beside 100,000 items): there each step's ids are read first and handed down as values, which its
   * statistics judge (planned per request: the values decide the plan).
   */
  const reach = async (found: Catalogue, table: OwnedTable, orgId: string): Promise<RawBuilder<unknown>> => {
    // From `table` (alias c) up to the table holding org_id, with the column naming each step's parent.
    const steps: { name: string; column?: string }[] = [];
    for (let step: OwnedTable | undefined = table; step; step = step.through && found.byName.get(step.through.parent)!) {
      steps.push({ name: step.name, ...(step.through ? { column: step.through.column } : {}) });
    }
    const alias = (n: number) => (n === 0 ? 'c' : `p${n}`);
    const owned = sql`${sql.ref(`${alias(steps.length - 1)}.org_id`)} = ${orgId}`;
    if (engine.name !== 'postgres') {
      const joins = steps.slice(1).map((s, i) => sql`join ${sql.table(s.name)} ${sql.raw(alias(i + 1))} on ${sql.ref(`${alias(i + 1)}.id`)} = ${sql.ref(`${alias(i)}.${steps[i]!.column}`)}`);
      return sql`from ${sql.table(table.name)} c ${sql.join(joins, sql` `)} where ${owned}`;
    }
    let condition = sql`org_id = ${orgId}`;
    for (let n = steps.length - 1; n > 0; n--) {
      const ids = (await readPlanned(sql<{ id: string }>`select id from ${sql.table(steps[n]!.name)} where ${condition}`)).map((r) => r.id);
      condition = among(steps[n - 1]!.column!, ids);
    }
    return sql`from ${sql.table(table.name)} c where ${condition}`;
  };
  /** Rows of a statement whose plan depends on its values (PostgreSQL: planned for them each time). */
  const readPlanned = async <R>(query: RawBuilder<R>): Promise<R[]> =>
    (await db.executeQuery(engine.name === 'postgres' ? plannedPerRequest(query.compile(db)) : query.compile(db))).rows;
  const rowsOf = async (found: Catalogue, table: OwnedTable, orgId: string, columns: RawBuilder<unknown> = sql`c.*`) =>
    readPlanned(sql<Row>`select ${columns} ${await reach(found, table, orgId)}`);
  /** `column` is one of `ids`, which travel as one parameter (a JSON array on SQLite, an array on PostgreSQL). */
  const among = (column: string, ids: string[]) =>
    engine.name === 'postgres' ? sql`${sql.ref(column)} = any(${ids}::text[])` : sql`${sql.ref(column)} in (select value from json_each(${JSON.stringify(ids)}))`;
  /**
   * A table found through a parent is deleted by id: the ids read first, through the indexes, then deleted
   * DELETE_BATCH at a time. PostgreSQL planned `in (select … the organization's rows)` as a hash of them over a
   * scan of the whole table, every organization's rows (121 ms of a sandbox's deletion beside 100,000 items).
   * A table without an id of its own (item_values) goes by its parent's ids.
   */
  const deleteRows = async (found: Catalogue, table: OwnedTable, orgId: string) => {
    if (!table.through) {
      await sql`delete from ${sql.table(table.name)} where org_id = ${orgId}`.execute(db);
      return;
    }
    const column = table.columns.includes('id') ? 'id' : table.through.column;
    const owner = column === 'id' ? table : found.byName.get(table.through.parent)!;
    const ids = (await readPlanned(sql<{ id: string }>`select c.id ${await reach(found, owner, orgId)}`)).map((r) => r.id);
    for (let i = 0; i < ids.length; i += DELETE_BATCH) {
      await sql`delete from ${sql.table(table.name)} where ${among(column, ids.slice(i, i + DELETE_BATCH))}`.execute(db);
    }
  };
  // Rows written behind the repositories' backs: whatever any process remembers of any of them goes.
  const announceAll = async () => {
    for (const topic of CHANGE_TOPICS) await (topic === 'schemas' ? announceSchemaChange(db, engine) : engine.announce(db, topic));
  };

  return {
    async read(orgId) {
      const tables: OrgRows = {};
      let count = 0;
      const found = await catalogue();
      for (const table of found.tables) {
        if (!table.state) continue;
        const rows = await rowsOf(found, table, orgId);
        count += rows.length;
        if (rows.length > 0) tables[table.name] = { columns: Object.keys(rows[0]!), json: JSON.stringify(rows) };
      }
      return { tables, rows: count };
    },
    async write(tables) {
      await announceAll();
      for (const table of (await catalogue()).tables) {
        const rows = tables[table.name];
        if (!table.state || rows === undefined) continue;
        // Only the columns both have: a snapshot taken before a migration added a column still loads.
        const columns = table.columns.filter((c) => rows.columns.includes(c));
        // One statement per table, whatever the number of rows.
        await insertJsonRows(engine, table.name, columns, rows.json).execute(db);
      }
    },
    async clear(orgId) {
      await announceAll();
      const found = await catalogue();
      for (const table of [...found.tables].reverse()) if (table.state) await deleteRows(found, table, orgId);
    },
    async removeOrganization(orgId) {
      await announceAll();
      const found = await catalogue();
      for (const table of [...found.tables].reverse()) await deleteRows(found, table, orgId);
      await db.deleteFrom('organizations').where('id', '=', orgId).execute();
    },
    async blobKeys(orgId) {
      const keys: string[] = [];
      const found = await catalogue();
      for (const table of found.tables) {
        if (!table.state || !table.columns.includes(BLOB_KEY)) continue;
        const rows = await rowsOf(found, table, orgId, sql.ref(`c.${BLOB_KEY}`));
        for (const row of rows) if (typeof row[BLOB_KEY] === 'string' && row[BLOB_KEY] !== '') keys.push(row[BLOB_KEY]);
      }
      return keys;
    },
    touchSchema: (orgId) => bumpSchemaTag(db, engine, orgId),
  };
}
