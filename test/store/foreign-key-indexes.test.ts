// Deleting a parent row makes the database look for the rows that reference it. Where no index leads with the
// referencing column, that is a scan of the whole child table — every organization's rows — for each parent
// row deleted, with the write lock held. So every foreign key's column leads some index: deleting a sandbox's
// organization row, too, looks up each table referencing it by index.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ENGINES } from '../helpers/harness.ts';
import { openStoreWithRaw, type RawStore } from '../helpers/raw-store.ts';

interface Reference {
  child: string;
  column: string;
  parent: string;
}

/** Each single-column foreign key, and the first column of each index, as the engine's catalogue lists them. */
async function catalogue(db: RawStore, engine: string): Promise<{ references: Reference[]; leading: Set<string> }> {
  if (engine === 'sqlite') {
    const references = await sql<Reference>`
      select m.name as child, f."from" as "column", f."table" as parent
      from sqlite_master m, pragma_foreign_key_list(m.name) f where m.type = 'table'`.execute(db.raw);
    const leading = await sql<{ key: string }>`
      select m.name || '.' || i.name as key
      from sqlite_master m, pragma_index_list(m.name) l, pragma_index_info(l.name) i
      where m.type = 'table' and i.seqno = 0`.execute(db.raw);
    return { references: references.rows, leading: new Set(leading.rows.map((r) => r.key)) };
  }
  const references = await sql<Reference>`
    select t.relname as child, a.attname as "column", p.relname as parent
    from pg_constraint c
    join pg_class t on t.oid = c.conrelid join pg_class p on p.oid = c.confrelid
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    where c.contype = 'f' and t.relnamespace = current_schema()::regnamespace`.execute(db.raw);
  const leading = await sql<{ key: string }>`
    select t.relname || '.' || a.attname as key
    from pg_index x
    join pg_class t on t.oid = x.indrelid
    join pg_attribute a on a.attrelid = x.indrelid and a.attnum = x.indkey[0]
    where t.relnamespace = current_schema()::regnamespace`.execute(db.raw);
  return { references: references.rows, leading: new Set(leading.rows.map((r) => r.key)) };
}

for (const engine of ENGINES) {
  describe(`every foreign key's column leads an index (${engine})`, () => {
    let db: RawStore;
    before(async () => {
      db = await openStoreWithRaw(engine);
    });
    after(() => db.close());

    it('lists no foreign key whose children a parent delete would find by scanning', async () => {
      const { references, leading } = await catalogue(db, engine);
      assert.ok(references.some((r) => r.child === 'activity_entities' && r.parent === 'activities'), 'the catalogue query finds the foreign keys');
      const unindexed = references.filter((r) => !leading.has(`${r.child}.${r.column}`));
      assert.deepEqual(unindexed.map((r) => `${r.child}.${r.column} → ${r.parent}`), []);
    });
  });
}
