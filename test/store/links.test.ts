// Entity links in the store: the LinkRepo's semantics (order kept, replace, what links to a target, deleting an
// entity's links), "everything linked to item X" as one index range scan at 100,000 links (checked on the
// query plan, never on time), and migration 0007 moving the JSON associations of notes, files and tagsets.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import * as links0007 from '../../src/store/migrations/0007-links.ts';
import { POSTGRES_TYPES, SQLITE_TYPES } from '../../src/store/migrations/column-types.ts';
import { linksTo } from '../../src/store/sql/links.ts';
import type { Link, Store } from '../../src/domain/ports/store.ts';
import { newId } from '../../src/domain/ids.ts';
import { createHarness, ENGINES, throwawayPostgres } from '../helpers/harness.ts';
import { openStoreWithRaw, rawPool } from '../helpers/raw-store.ts';
import { makeItem, text } from '../helpers/items.ts';
import { postMultipart } from '../helpers/multipart.ts';

async function newOrg(store: Store): Promise<string> {
  const id = newId();
  await store.organizations.insert({ id, name: `links-${id}`, createdAt: new Date().toISOString() });
  return id;
}

for (const engine of ENGINES) {
  describe(`links: the store's link repository (${engine})`, () => {
    let db: Awaited<ReturnType<typeof openStoreWithRaw>>;
    let orgId: string;
    before(async () => {
      db = await openStoreWithRaw(engine);
      orgId = await newOrg(db.store);
    });
    after(() => db.close());

    it('replace keeps the given order, replaces only its role, and targetsOf reads many sources at once', async () => {
      const { links } = db.store;
      await links.replace(orgId, 'note', 'n1', 'association', [{ type: 'item', id: 'b' }, { type: 'item', id: 'a' }]);
      await links.replace(orgId, 'note', 'n1', 'mention', [{ type: 'item', id: 'c' }]);
      await links.replace(orgId, 'note', 'n2', 'association', [{ type: 'item', id: 'a' }]);
      await links.replace(orgId, 'tagset', 't1', 'association', [{ type: 'calls', id: null }]);
      const targets = await links.targetsOf(orgId, 'note', ['n1', 'n2', 'n3'], 'association');
      assert.deepEqual(Object.fromEntries(targets), {
        n1: [{ type: 'item', id: 'b' }, { type: 'item', id: 'a' }],
        n2: [{ type: 'item', id: 'a' }],
      });
      await links.replace(orgId, 'note', 'n1', 'association', [{ type: 'item', id: 'a' }]);
      assert.deepEqual((await links.targetsOf(orgId, 'note', ['n1'], 'association')).get('n1'), [{ type: 'item', id: 'a' }]);
      assert.deepEqual((await links.targetsOf(orgId, 'note', ['n1'], 'mention')).get('n1'), [{ type: 'item', id: 'c' }]);
      assert.deepEqual((await links.targetsOf(orgId, 'tagset', ['t1'], 'association')).get('t1'), [{ type: 'calls', id: null }]);
    });

    it('sourcesOf lists what links to a target; deleteEntity removes links from and to the entity', async () => {
      const { links } = db.store;
      const sources = (await links.sourcesOf(orgId, { type: 'item', id: 'a' })).map((l) => `${l.fromType}:${l.fromId}:${l.role}`);
      assert.deepEqual(sources, ['note:n1:association', 'note:n2:association']);
      assert.deepEqual((await links.sourcesOf(orgId, { type: 'calls', id: null }, 'tagset')).map((l) => l.fromId), ['t1']);
      assert.deepEqual(await links.sourcesOf(orgId, { type: 'item', id: 'a' }, 'file'), []);
      const other = await newOrg(db.store);
      assert.deepEqual(await links.sourcesOf(other, { type: 'item', id: 'a' }), [], 'another organization sees none');

      await links.deleteEntity(orgId, 'item', 'a');
      assert.deepEqual(await links.sourcesOf(orgId, { type: 'item', id: 'a' }), []);
      assert.deepEqual((await links.targetsOf(orgId, 'note', ['n1'], 'mention')).get('n1'), [{ type: 'item', id: 'c' }], 'other targets stay');
      await links.deleteEntity(orgId, 'note', 'n1');
      assert.equal((await links.targetsOf(orgId, 'note', ['n1'], 'mention')).size, 0);
    });
  });

  describe(`links: "everything linked to item X" is one index range scan at 100,000 links (${engine})`, () => {
    let db: Awaited<ReturnType<typeof openStoreWithRaw>>;
    let orgId: string;
    const TOTAL = 100_000;
    const TARGETS = 5_000;
    before(async () => {
      db = await openStoreWithRaw(engine);
      orgId = await newOrg(db.store);
      // 10,000 sources of three kinds with 10 links each, spread over 5,000 items: about 20 links per item.
      const kinds = ['note', 'file', 'tagset'];
      let batch: Link[] = [];
      for (let n = 0; n < TOTAL; n++) {
        const source = Math.floor(n / 10);
        batch.push({ fromType: kinds[source % 3]!, fromId: `s${source}`, role: 'association', position: n % 10, toType: 'item', toId: `i${(n * 7919) % TARGETS}` });
        if (batch.length === 10_000) {
          const links = batch;
          await db.store.transaction((tx) => tx.links.insertMany(orgId, links));
          batch = [];
        }
      }
      await db.store.analyze();
      // Marks the pages all-visible, as autovacuum would, so PostgreSQL can answer from the index alone.
      if (engine === 'postgres') await sql`vacuum analyze links`.execute(db.raw);
    });
    after(() => db.close());

    const plan = async (query: { compile(): CompiledQuery }) => {
      const compiled = query.compile();
      const prefix = engine === 'sqlite' ? 'explain query plan ' : 'explain ';
      const result = await db.raw.executeQuery<Record<string, unknown>>(CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]));
      return result.rows.map((r) => String(r.detail ?? r['QUERY PLAN'])).join('\n');
    };

    it('holds 100,000 links, and an item has its ~20 sources', async () => {
      const count = await db.raw.selectFrom('links').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      assert.equal(Number(count.n), TOTAL);
      const sources = await db.store.links.sourcesOf(orgId, { type: 'item', id: 'i42' });
      assert.equal(sources.length, TOTAL / TARGETS);
      assert.ok(sources.every((l) => l.toId === 'i42'));
    });

    it('the query behind sourcesOf searches the links_to index (no table scan, no sort)', async () => {
      for (const fromType of [undefined, 'note']) {
        const text = await plan(linksTo(db.raw, orgId, { type: 'item', id: 'i42' }, fromType));
        if (engine === 'sqlite') {
          assert.match(text, /SEARCH links USING COVERING INDEX links_to \(org_id=\? AND to_type=\? AND to_id=\?/, text);
          assert.doesNotMatch(text, /\bSCAN\b|TEMP B-TREE/, text);
        } else {
          assert.match(text, /^Index Only Scan using links_to on links/, text);
          assert.doesNotMatch(text, /Seq Scan|Sort/, text);
        }
      }
    });

    it('the links of a page of sources are one search of the primary key', async () => {
      const query = db.raw
        .selectFrom('links')
        .select(['from_id', 'to_type', 'to_id'])
        .where('org_id', '=', orgId)
        .where('from_type', '=', 'note')
        .where('from_id', 'in', ['s0', 's3', 's6'])
        .where('role', '=', 'association')
        .orderBy('from_id')
        .orderBy('position');
      const text = await plan(query);
      if (engine === 'sqlite') {
        assert.match(text, /SEARCH links USING (PRIMARY KEY|INDEX sqlite_autoindex_links_1) \(org_id=\? AND from_type=\? AND from_id=\? AND role=\?/, text);
        assert.doesNotMatch(text, /\bSCAN\b/, text);
      } else {
        assert.match(text, /Index Scan using links_pkey on links|Index Only Scan using links_pkey/, text);
        assert.doesNotMatch(text, /Seq Scan/, text);
      }
    });
  });

  describe(`links: migration 0007 moves JSON associations into links (${engine})`, () => {
    it('notes, files and tagsets keep their associations, except pointers to items deleted before', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tycho-0007-'));
      const database = engine === 'postgres' ? await throwawayPostgres() : undefined;
      const env = { DATABASE_URL: database?.url ?? join(dir, 'tycho.sqlite') };
      try {
        let h = await createHarness(engine, { env });
        const ada = await makeItem(h, 'people', { name: text('Ada') });
        const acme = await makeItem(h, 'organizations', { name: text('Acme') });
        const gone = await makeItem(h, 'people', { name: text('Gone') });
        const note = (await h.post('/v0/notes', { body: 'n', associations: [{ type: 'item', id: acme.id }, { type: 'item', id: ada.id }] })).body;
        const file = (await postMultipart(h, '/v0/files', [{ name: 'file', filename: 'f.txt', content: 'f', contentType: 'text/plain' }, { name: 'associations', value: JSON.stringify([{ type: 'item', id: ada.id }]) }])).body;
        const tagset = (await h.post('/v0/tagsets', { name: 'T', associations: [{ type: 'meetings' }, { type: 'calls' }] })).body;
        const bare = (await h.post('/v0/notes', { body: 'no associations' })).body;
        assert.equal((await h.delete(`/v0/collections/people/items/${gone.id}`)).status, 204);
        await h.close();

        // The database as 0006 left it: JSON columns (one note still pointing at the deleted item), no links.
        const raw =
          engine === 'sqlite'
            ? new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(env.DATABASE_URL) }) })
            : new Kysely<any>({ dialect: new PostgresDialect({ pool: rawPool(env.DATABASE_URL) }) });
        await sql`drop table links`.execute(raw);
        for (const table of ['notes', 'files', 'tagsets']) await sql`alter table ${sql.table(table)} add column associations text not null default '[]'`.execute(raw);
        const pointer = (item: { id: string }, collection: string) => ({ id: item.id, type: 'item', collection: { id: collection, type: 'collection', ref: 'x' } });
        const stored = [pointer(acme, acme.collection?.id ?? 'c'), pointer(gone, 'c'), pointer(ada, 'c')];
        await sql`update notes set associations = ${JSON.stringify(stored)} where id = ${note.id}`.execute(raw);
        await sql`update files set associations = ${JSON.stringify([pointer(ada, 'c')])} where id = ${file.id}`.execute(raw);
        await sql`update tagsets set associations = ${JSON.stringify([{ type: 'meetings' }, { type: 'calls' }])} where id = ${tagset.id}`.execute(raw);
        // Run 0007 again by hand: forgetting it in kysely_migration would leave later migrations out of order.
        await links0007.up(raw, engine === 'sqlite' ? SQLITE_TYPES : POSTGRES_TYPES);
        await raw.destroy();

        h = await createHarness(engine, { env });
        assert.deepEqual((await h.get(`/v0/notes/${note.id}`)).body.associations, note.associations, 'order kept, the deleted item left out');
        assert.deepEqual((await h.get(`/v0/notes/${bare.id}`)).body.associations, []);
        assert.deepEqual((await h.get(`/v0/files/${file.id}`)).body.associations, file.associations);
        assert.deepEqual((await h.get(`/v0/tagsets/${tagset.id}`)).body.associations, [{ type: 'meetings' }, { type: 'calls' }]);
        await h.close();

        const check =
          engine === 'sqlite'
            ? new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(env.DATABASE_URL) }) })
            : new Kysely<any>({ dialect: new PostgresDialect({ pool: rawPool(env.DATABASE_URL) }) });
        const columns = (await check.introspection.getTables()).filter((t) => ['notes', 'files', 'tagsets'].includes(t.name)).flatMap((t) => t.columns.map((c) => c.name));
        await check.destroy();
        assert.ok(!columns.includes('associations'), 'the JSON columns are gone');
      } finally {
        await database?.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
