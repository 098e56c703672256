// Global search reads item values by prefix through the item_values_text index: one range scan per field and
// prefix, stopped after the result cap, all in one statement (a union on SQLite; on PostgreSQL a lateral join
// that also finds the organization's fields of each type) — checked on the query plan at 40,000 values beside
// 20,000 fields of other organizations (never on time).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { fieldsOfTypes, textPrefixByType, textPrefixUnion } from '../../src/store/sql/search.ts';
import { newId } from '../../src/domain/ids.ts';
import { ENGINES } from '../helpers/harness.ts';
import { openStoreWithRaw } from '../helpers/raw-store.ts';

const ITEMS = 20_000;
const FIELDS = 20_000;

for (const engine of ENGINES) {
  describe(`global search: item values by prefix are one bounded index range scan (${engine})`, () => {
    let db: Awaited<ReturnType<typeof openStoreWithRaw>>;
    const orgId = newId();
    before(async () => {
      db = await openStoreWithRaw(engine);
      await db.store.organizations.insert({ id: orgId, name: `search-${orgId}`, createdAt: new Date().toISOString() });
      const now = new Date().toISOString();
      await db.raw
        .insertInto('collections')
        .values({ id: 'c1', org_id: orgId, ref: 'things', name: 'Things', description: null, icon_name: 'box', kind: 'custom', created_at: now, updated_at: now })
        .execute();
      // Two text fields: names spread over the alphabet, and a second field sharing the prefixes.
      for (let start = 0; start < ITEMS; start += 500) {
        const ids = Array.from({ length: 500 }, (_, i) => `i${String(start + i).padStart(6, '0')}`);
        await db.raw.insertInto('items').values(ids.map((id) => ({ id, org_id: orgId, collection_id: 'c1', doc: '{}', created_at: now, updated_at: now }))).execute();
        await db.raw
          .insertInto('item_values')
          .values(
            ids.flatMap((id, i) => {
              const name = `${String.fromCharCode(97 + ((start + i) % 26))}name ${start + i}`;
              return [
                { item_id: id, field_id: 'f_name', position: 0, key_text: name, key_rev: [...name].reverse().join(''), key_num: null },
                { item_id: id, field_id: 'f_other', position: 0, key_text: name, key_rev: [...name].reverse().join(''), key_num: null },
              ];
            }),
          )
          .execute();
      }
      const field = (id: string, type: string, org: string, n: number) => ({
        id, org_id: org, collection_id: 'c1', ref: `f${n}`, name: `F${n}`, description: null, type, cardinality: 'one', required: 0, is_unique: 0,
        readonly: 0, kind: 'custom', funnel_id: null, config: '{}', default_values: '[]', created_at: now, updated_at: now,
      });
      await db.raw.insertInto('fields').values([field('f_name', 'field/text/single_line', orgId, -1), field('f_other', 'field/email', orgId, -2)]).execute();
      // Fields of many organizations, as sandboxes and tenants leave them: the search reads only its own.
      for (let start = 0; start < FIELDS; start += 500) {
        const rows = Array.from({ length: 500 }, (_, i) =>
          field(newId(), Math.floor((start + i) / 200) % 2 === 0 ? 'field/text/single_line' : 'field/number/unitless_integer', `org-${(start + i) % 200}`, start + i),
        );
        await db.raw.insertInto('fields').values(rows).execute();
      }
      await db.store.analyze();
      if (engine === 'postgres') await sql`vacuum analyze item_values`.execute(db.raw);
      if (engine === 'postgres') await sql`vacuum analyze fields`.execute(db.raw);
    });
    after(() => db.close());
    const legs = [
      { fieldId: 'f_name', prefix: 'cname 1' },
      { fieldId: 'f_other', prefix: 'dname 2' },
      { fieldId: 'f_name', prefix: 'nothing' },
    ];
    const typeOf: Record<string, string> = { f_name: 'field/text/single_line', f_other: 'field/email' };
    /** The engine's form of the statement for `legs`: by field on SQLite, by the fields' types on PostgreSQL. */
    const prefixQuery = (limit: number) =>
      engine === 'sqlite'
        ? textPrefixUnion(db.raw, legs, limit)
        : textPrefixByType(db.raw, orgId, legs.map((l) => typeOf[l.fieldId]), legs.map((l) => l.prefix), limit);

    it('finds the values of each field starting with its prefix, up to the cap for each', async () => {
      const rows: { field_id: string; key_text: string | null; collection_id?: string }[] = await prefixQuery(5).execute();
      const of = (fieldId: string, prefix: string) => rows.filter((r) => r.field_id === fieldId && r.key_text!.startsWith(prefix)).map((r) => r.key_text);
      assert.equal(rows.length, 10);
      if (engine === 'postgres') assert.ok(rows.every((r) => r.collection_id === 'c1'));
      assert.equal(of('f_name', 'cname 1').length, 5);
      assert.equal(of('f_other', 'dname 2').length, 5);
      // The first in key order of each.
      const names = Array.from({ length: ITEMS }, (_, i) => `${String.fromCharCode(97 + (i % 26))}name ${i}`);
      assert.deepEqual(of('f_name', 'cname 1'), names.filter((n) => n.startsWith('cname 1')).sort().slice(0, 5));
    });

    it("the organization's text fields are read through the fields_org_type index, not by scanning every organization's", async () => {
      const compiled = fieldsOfTypes(db.raw, 'org-7', ['field/text/single_line', 'field/email']).compile();
      const prefix = engine === 'sqlite' ? 'explain query plan ' : 'explain ';
      const result = await db.raw.executeQuery<Record<string, unknown>>(CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]));
      const text = result.rows.map((r) => String(r.detail ?? r['QUERY PLAN'])).join('\n');
      assert.match(text, engine === 'sqlite' ? /SEARCH fields USING (COVERING )?INDEX fields_org_type \(org_id=\? AND type=\?\)/ : /Index (Only )?Scan (using|on) fields_org_type/, text);
      assert.doesNotMatch(text, /\bSCAN fields\b|Seq Scan/, text);
      assert.equal((await db.raw.executeQuery(compiled)).rows.length, 50);
    });

    it('the query searches the item_values_text index by (field_id, key_text range) for every leg: no scan, no sort', async () => {
      const compiled = prefixQuery(50).compile();
      const prefix = engine === 'sqlite' ? 'explain query plan ' : 'explain ';
      const result = await db.raw.executeQuery<Record<string, unknown>>(CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]));
      const text = result.rows.map((r) => String(r.detail ?? r['QUERY PLAN'])).join('\n');
      if (engine === 'sqlite') {
        const searches = text.match(/SEARCH item_values USING (COVERING )?INDEX item_values_text \(field_id=\? AND key_text>\? AND key_text<\?\)/g) ?? [];
        assert.equal(searches.length, legs.length, text);
        assert.doesNotMatch(text, /\bSCAN item_values\b|TEMP B-TREE/, text);
      } else {
        // The organization's fields through fields_org_type (never every organization's), paired with the legs
        // of the arrays; then for each pair (a nested loop) one capped scan of item_values_text.
        assert.match(text, /(Index|Index Only|Bitmap Index) Scan (using|on) fields_org_type/, text);
        assert.match(text, /Nested Loop[\s\S]*Function Scan[\s\S]*Limit[\s\S]*Index (Only )?Scan using item_values_text on item_values/, text);
        assert.doesNotMatch(text, /Seq Scan|Sort/, text);
      }
    });
  });
}
