// The schema cache (store/sql/schema-cache.ts) across connections and rollbacks: where the engine's change
// tokens are exact (SQLite) the organization's schema tag is remembered instead of read on every request, so
// these pin that a remembered tag never hides a schema change — another process's (a second store on the
// same database, as the CLI beside a server), or one rolled back.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open-store.ts';
import { ENGINES, throwawayPostgres } from '../helpers/harness.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { createField } from '../../src/domain/collection-fields.ts';
import { createItem, deleteItem, updateItem } from '../../src/domain/item-writes.ts';
import { prepareQueryFor, serveItem, servePage } from '../../src/domain/item-reads.ts';
import { REPLACE } from '../../src/domain/item-values.ts';
import { servedJson } from '../../src/domain/item-wire.ts';
import { loadSchema } from '../../src/domain/collection-schema.ts';
import type { Principal } from '../../src/domain/api-keys.ts';
import type { Store } from '../../src/domain/ports/store.ts';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { bumpSchemaTag, SchemaCache } from '../../src/store/sql/schema-cache.ts';
import type { Database } from '../../src/store/sql/schema.ts';

for (const engine of ENGINES) {
  describe(`schema cache (${engine})`, () => {
    let first: Store;
    let second: Store;
    let cleanup: () => Promise<void>;
    let principal: Principal;
    before(async () => {
      if (engine === 'sqlite') {
        const dir = mkdtempSync(join(tmpdir(), 'tycho-schema-cache-'));
        const path = join(dir, 'tycho.sqlite');
        first = await openStore({ engine: 'sqlite', path });
        second = await openStore({ engine: 'sqlite', path });
        cleanup = async () => rmSync(dir, { recursive: true, force: true });
      } else {
        const database = await throwawayPostgres();
        first = await openStore({ engine: 'postgres', url: database.url, poolSize: 2 });
        second = await openStore({ engine: 'postgres', url: database.url, poolSize: 2 });
        cleanup = () => database.drop();
      }
      const { organization } = await ensureOrganization(first, 'schema-cache');
      principal = { orgId: organization.id, scope: 'write', actor: { id: 'test', type: 'api_key' } };
    });
    after(async () => {
      await first.close();
      await second.close();
      await cleanup();
    });

    const refs = async (store: Store) => [...(await loadSchema(store, principal.orgId, 'deals'))!.byRef.keys()];

    it('sees a field another connection added, on the next read and the next write', async () => {
      await createItem(first, principal, 'deals', { values: {} });
      assert.equal((await refs(first)).includes('region'), false);
      await createField(second, principal.orgId, 'deals', { type: 'field/text/single_line', name: 'Region' });
      assert.equal((await refs(first)).includes('region'), true);
      const { item, schema } = await createItem(first, principal, 'deals', { values: { region: { type: 'value/text/single_line', data: 'EMEA' } } });
      assert.deepEqual(item.values[schema.byRef.get('region')!.id], ['EMEA']);
    });

    it('serves items read under the schema loaded last only while that schema is current', async () => {
      const served = async (store: Store, id: string) => {
        const { schema, item } = await serveItem(store, principal.orgId, 'deals', id);
        return JSON.parse(servedJson(item, schema)).values;
      };
      /** The page of items sorted by `sort`, as a list request reads it. */
      const page = async (store: Store, sort: string[]) => {
        const read = await servePage(store, principal.orgId, 'deals', (schema) => prepareQueryFor(store, principal.orgId, schema, { sort }, () => ({ parameter: 'sort[]' })), () => ({ limit: 100 }));
        return read.page.rows.map((item) => JSON.parse(servedJson(item, read.schema)));
      };
      const { item } = await createItem(first, principal, 'deals', { values: {} });
      assert.equal('size' in (await served(first, item.id)), false);
      const inPage = async (sort: string[]) => (await page(first, sort)).find((i) => i.id === item.id);
      assert.equal('size' in (await inPage([])).values, false);
      // The other process adds a field and gives the item a value in it: the item's stored wire form is rendered
      // under a schema this one has not loaded. Shown by the one it loaded, the value would be missing.
      await createField(second, principal.orgId, 'deals', { type: 'field/number/unitless_integer', name: 'Size' });
      await updateItem(second, principal, 'deals', item.id, { values: { size: { type: 'value/number/unitless_integer', data: 12 } } }, REPLACE);
      const size = { type: 'value/number/unitless_integer', data: 12 };
      assert.deepEqual((await served(first, item.id)).size, size);
      await createField(second, principal.orgId, 'deals', { type: 'field/number/unitless_integer', name: 'Weight' });
      await updateItem(second, principal, 'deals', item.id, { values: { weight: size } }, REPLACE);
      assert.deepEqual((await inPage([])).values.weight, size);
      // A sort by a field the schema loaded last does not have is judged by the current one.
      await createField(second, principal.orgId, 'deals', { type: 'field/number/unitless_integer', name: 'Rank' });
      assert.deepEqual((await inPage(['rank'])).values.size, size);
      await deleteItem(second, principal, 'deals', item.id);
      await assert.rejects(served(first, item.id), { code: 'not_found' });
    });

    it('forgets a field whose creation rolled back', async () => {
      await assert.rejects(
        first.transaction(async (tx) => {
          await createField(tx, principal.orgId, 'deals', { type: 'field/text/single_line', name: 'Ghost' });
          assert.equal((await refs(tx)).includes('ghost'), true, 'the transaction sees its own field');
          throw new Error('roll back');
        }, principal.orgId),
        /roll back/,
      );
      assert.equal((await refs(first)).includes('ghost'), false);
      await assert.rejects(createItem(first, principal, 'deals', { values: { ghost: { type: 'value/text/single_line', data: 'boo' } } }), /ghost/);
    });
  });
}

describe('schema cache: tags read inside write transactions', () => {
  // A write's transaction reads the tag under the schema lock; where tokens are exact, a tag remembered there
  // saves that statement on every later write, unless the transaction changed a schema itself.
  let token = 0;
  const engine = { exactChangeTokens: true, changeToken: async () => String(token), announce: async () => void token++ };
  const tagReads = { count: 0 };
  let db: Kysely<Database>;
  before(async () => {
    db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }),
      log: (event) => {
        if (event.query.sql.startsWith('select "schema_tag"')) tagReads.count++;
      },
    });
    await sql`create table organizations (id text primary key, schema_tag text)`.execute(db);
    await sql`insert into organizations values ('org', 'first')`.execute(db);
  });
  after(() => db.destroy());

  it('remembers a tag read in a transaction that changed no schema', async () => {
    const cache = new SchemaCache(engine);
    assert.equal(await db.transaction().execute((trx) => cache.tag(trx, 'org', true)), 'first');
    assert.equal(await db.transaction().execute((trx) => cache.tag(trx, 'org', true)), 'first');
    assert.equal(tagReads.count, 1);
  });

  it('does not remember one read after the transaction changed a schema, which may yet roll back', async () => {
    const cache = new SchemaCache(engine);
    tagReads.count = 0;
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await bumpSchemaTag(trx, engine, 'org');
        assert.notEqual(await cache.tag(trx, 'org', true), 'first');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal(await db.transaction().execute((trx) => cache.tag(trx, 'org', true)), 'first');
    assert.equal(tagReads.count, 2);
  });
});
