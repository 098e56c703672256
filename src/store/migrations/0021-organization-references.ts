// `items`, `fields` and `message_attachments` lose their foreign key to `organizations`. It was redundant — each
// row's collection or message already belongs to the organization — and no index leads with their `org_id`, so
// deleting an organization (a sandbox) made the database scan each table, every organization's rows, to check
// that none still pointed at it; each item insert also paid a lookup of its organization. The `org_id` columns
// stay: queries use them.
//
// PostgreSQL drops the constraints. SQLite cannot drop a constraint, so each table is rebuilt from its own
// definition without the reference (SQLite's documented procedure: copy into a new table, drop the old one,
// rename, recreate the indexes). It runs with foreign keys off (sqlite/open.ts), else dropping `items` would
// delete every row of `item_values` through its cascade; the references of other tables to the rebuilt one
// follow its name, and the check at the end of the migrations proves them intact.
import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

const TABLES = ['items', 'fields', 'message_attachments'] as const;

/** How SQLite keeps the reference in a table's definition: Kysely wrote it so. */
const SQLITE_REFERENCE = ' references "organizations" ("id")';

export async function up(db: Kysely<unknown>, types: ColumnTypes): Promise<void> {
  for (const table of TABLES) {
    if (types.engine === 'sqlite') await rebuildWithoutReference(db, table);
    else await dropPostgresReference(db, table);
  }
}

async function dropPostgresReference(db: Kysely<unknown>, table: string): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    select c.conname as name from pg_constraint c
    where c.contype = 'f' and c.conrelid = ${table}::regclass and c.confrelid = 'organizations'::regclass`.execute(db);
  for (const { name } of rows) await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(name)}`.execute(db);
}

async function rebuildWithoutReference(db: Kysely<unknown>, table: string): Promise<void> {
  const definitions = await sql<{ type: string; sql: string }>`
    select type, sql from sqlite_master where tbl_name = ${table} and sql is not null order by type = 'table' desc`.execute(db);
  const [create, ...indexes] = definitions.rows;
  if (create?.type !== 'table') throw new Error(`migration 0021: table ${table} not found`);
  const parts = create.sql.split(SQLITE_REFERENCE);
  if (parts.length === 1) return;
  if (parts.length !== 2) throw new Error(`migration 0021: ${table} references organizations ${parts.length - 1} times`);
  const rebuilt = `${table}_rebuilt`;
  const head = `CREATE TABLE "${table}"`;
  if (!create.sql.startsWith(head)) throw new Error(`migration 0021: unexpected definition of ${table}: ${create.sql.slice(0, 80)}`);
  await sql.raw(`CREATE TABLE "${rebuilt}"${parts.join('').slice(head.length)}`).execute(db);
  await sql.raw(`insert into "${rebuilt}" select * from "${table}"`).execute(db);
  await sql.raw(`drop table "${table}"`).execute(db);
  await sql.raw(`alter table "${rebuilt}" rename to "${table}"`).execute(db);
  for (const index of indexes) await sql.raw(index.sql).execute(db);
}
