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
import { createItem } from '../../src/domain/item-writes.ts';
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
