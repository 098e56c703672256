// Migration 0021 drops the foreign keys of `items`, `fields` and `message_attachments` to `organizations`. On
// SQLite that rebuilds each table: a database made before it keeps every row, every index and every other
// reference (an item's values still go with it; an item still needs its collection).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { ENGINES, throwawayPostgres } from '../helpers/harness.ts';
import { rawPool } from '../helpers/raw-store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { migrate } from '../../src/store/migrations/index.ts';
import { POSTGRES_TYPES, SQLITE_TYPES } from '../../src/store/migrations/column-types.ts';
import type { Database } from '../../src/store/sql/schema.ts';
import type { Store } from '../../src/domain/ports/store.ts';

const REBUILT = ['items', 'fields', 'message_attachments'] as const;
const NOW = '2026-11-27T00:00:00.000Z';

interface Reference {
  child: string;
  parent: string;
}

/** A database of one engine: raw handles on it, and the store as `serve` opens it. */
interface Setup {
  raw(): Kysely<Database>;
  open(): Promise<Store>;
  references(db: Kysely<Database>): Promise<Reference[]>;
  indexes(db: Kysely<Database>): Promise<string[]>;
  dispose(): Promise<void>;
}

async function setUp(engine: string): Promise<Setup> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'tycho-0021-'));
    const path = join(dir, 'tycho.sqlite');
    return {
      raw: () => {
        const database = new BetterSqlite3(path);
        database.pragma('foreign_keys = ON');
        return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
      },
      open: () => openStore({ engine: 'sqlite', path }),
      references: async (db) =>
        (await sql<Reference>`select m.name as child, f."table" as parent from sqlite_master m, pragma_foreign_key_list(m.name) f where m.type = 'table'`.execute(db)).rows,
      indexes: async (db) => (await sql<{ name: string }>`select name from sqlite_master where type = 'index' order by name`.execute(db)).rows.map((r) => r.name),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const database = await throwawayPostgres();
  return {
    raw: () => new Kysely<Database>({ dialect: new PostgresDialect({ pool: rawPool(database.url) }) }),
    open: () => openStore({ engine: 'postgres', url: database.url, poolSize: 2 }),
    references: async (db) =>
      (
        await sql<Reference>`
          select t.relname as child, p.relname as parent from pg_constraint c
          join pg_class t on t.oid = c.conrelid join pg_class p on p.oid = c.confrelid
          where c.contype = 'f' and t.relnamespace = current_schema()::regnamespace`.execute(db)
      ).rows,
    indexes: async (db) =>
      (await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() order by indexname`.execute(db)).rows.map((r) => r.name),
    dispose: () => database.drop(),
  };
}

/** One organization's rows in every rebuilt table and around them, written as the schema before 0021 holds them. */
async function fill(db: Kysely<Database>): Promise<void> {
  await db.insertInto('organizations').values({ id: 'org1', name: 'Before 0021', created_at: NOW }).execute();
  await db
    .insertInto('collections')
    .values({ id: 'col1', org_id: 'org1', ref: 'people', name: 'People', description: null, icon_name: 'person', kind: 'system', created_at: NOW, updated_at: NOW })
    .execute();
  await db
    .insertInto('fields')
    .values({
      id: 'fld1',
      org_id: 'org1',
      collection_id: 'col1',
      ref: 'name',
      name: 'Name',
      description: null,
      type: 'field/text/single_line',
      cardinality: 'one',
      required: 0,
      is_unique: 0,
      readonly: 0,
      kind: 'custom',
      funnel_id: null,
      config: '{}',
      default_values: '[]',
      created_at: NOW,
      updated_at: NOW,
    })
    .execute();
  for (const n of [1, 2, 3]) {
    const doc = JSON.stringify({ fld1: [{ type: 'value/text/single_line', data: `Person ${n}` }] });
    await db.insertInto('items').values({ id: `item${n}`, org_id: 'org1', collection_id: 'col1', doc, wire: `{"n":${n}}`, wire_tag: 'tag', created_at: NOW, updated_at: NOW }).execute();
    await db.insertInto('item_values').values({ item_id: `item${n}`, field_id: 'fld1', position: 0, key_text: `person ${n}`, key_rev: null, key_num: null }).execute();
  }
  await db.insertInto('inboxes').values({ id: 'inb1', org_id: 'org1', name: 'Sales', email: 'sales@example.com', created_at: NOW, updated_at: NOW }).execute();
  await db
    .insertInto('inbox_conversations')
    .values({ id: 'cnv1', org_id: 'org1', inbox_id: 'inb1', subject: 'Hello', state: 'unassigned', draft: 1, last_message_at: NOW, created_at: NOW, updated_at: NOW })
    .execute();
  await db
    .insertInto('inbox_messages')
    .values({ id: 'msg1', org_id: 'org1', inbox_id: 'inb1', conversation_id: 'cnv1', subject: 'Hello', body: 'Hi', draft: 1, lock_version: 0, addresses: '[]', created_at: NOW, sent_at: null })
    .execute();
  await db
    .insertInto('message_attachments')
    .values({ id: 'att1', org_id: 'org1', message_id: 'msg1', filename: 'a.txt', content_type: 'text/plain', size: 2, blob_key: 'blob1', created_at: NOW })
    .execute();
}

const rowsOf = async (db: Kysely<Database>) =>
  Object.fromEntries(await Promise.all([...REBUILT, 'item_values' as const].map(async (table) => [table, await db.selectFrom(table).selectAll().orderBy(sql.ref(table === 'item_values' ? 'item_id' : 'id')).execute()])));

for (const engine of ENGINES) {
  describe(`migration 0021, organization references (${engine})`, () => {
    let setup: Setup;
    let raw: Kysely<Database>;
    let before0021: { rows: Record<string, unknown[]>; indexes: string[]; references: Reference[] };
    let store: Store;

    before(async () => {
      setup = await setUp(engine);
      const old = setup.raw();
      await migrate(old, engine === 'sqlite' ? SQLITE_TYPES : POSTGRES_TYPES, '0020-foreign-key-indexes');
      await fill(old);
      before0021 = { rows: await rowsOf(old), indexes: await setup.indexes(old), references: await setup.references(old) };
      await old.destroy();
      store = await setup.open();
      raw = setup.raw();
    });
    after(async () => {
      await raw.destroy();
      await store.close();
      await setup.dispose();
    });

    it('starts from a schema whose rebuilt tables reference organizations', () => {
      for (const table of REBUILT) assert.ok(before0021.references.some((r) => r.child === table && r.parent === 'organizations'), table);
    });

    it('drops exactly those references and keeps every other one', async () => {
      const after0021 = await setup.references(raw);
      const dropped = (r: Reference) => r.parent === 'organizations' && (REBUILT as readonly string[]).includes(r.child);
      const key = (r: Reference) => `${r.child} → ${r.parent}`;
      assert.deepEqual(after0021.map(key).sort(), before0021.references.filter((r) => !dropped(r)).map(key).sort());
    });

    it('keeps every row and every index', async () => {
      assert.deepEqual(await rowsOf(raw), before0021.rows);
      // The store migrates to the latest step: the indexes later steps create or drop are not 0021's.
      const created = new Set(['fields_org_type', 'webhook_deliveries_endpoint_pending', 'webhook_deliveries_endpoint_activity', 'organizations_parent', 'webhook_deliveries_endpoint_due']);
      const dropped = new Set(['webhook_deliveries_activity', 'webhook_deliveries_endpoint', 'webhook_deliveries_due', 'webhook_deliveries_org_due']);
      assert.deepEqual(
        (await setup.indexes(raw)).filter((name) => !created.has(name)),
        before0021.indexes.filter((name) => !dropped.has(name)),
      );
    });

    it('still deletes an item’s values with it and refuses an item of no collection', async () => {
      await raw.deleteFrom('items').where('id', '=', 'item2').execute();
      assert.deepEqual((await raw.selectFrom('item_values').select('item_id').orderBy('item_id').execute()).map((r) => r.item_id), ['item1', 'item3']);
      await assert.rejects(
        raw.insertInto('items').values({ id: 'item9', org_id: 'org1', collection_id: 'nowhere', doc: '{}', wire: null, wire_tag: '', created_at: NOW, updated_at: NOW }).execute(),
        /foreign key/i,
      );
    });
  });
}
