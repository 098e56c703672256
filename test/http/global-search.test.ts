// POST /v0/search?query=… (reference §5.20): items by prefix of their text values (through the index) and files
// by name, ranked exact before prefix, items before files within a rank; at most 50 results, no pagination.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, type Harness } from '../helpers/harness.ts';
import { email, int, makeCollection, makeField, makeItem, text, val } from '../helpers/items.ts';
import { postMultipart } from '../helpers/multipart.ts';

const search = async (h: Harness, query: string, key?: string) => {
  const res = await h.post(`/v0/search?query=${encodeURIComponent(query)}`, undefined, key ? { key } : {});
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.type, 'list');
  assert.equal(res.body.meta, undefined);
  for (const r of res.body.data) assert.equal(r.type, 'search_result');
  return res.body.data.map((r: any) => r.data);
};

for (const engine of ENGINES) {
  describe(`global search (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('finds items by a prefix of any text-like value, case-insensitively, exact matches first', async () => {
      const longer = await makeItem(h, 'organizations', { name: text('Zyxcorp International') });
      const exact = await makeItem(h, 'organizations', { name: text('Zyxcorp') });
      const byEmail = await makeItem(h, 'people', { name: text('Pat'), email: [email('pat@zyxcorp.example')] });
      const found = await search(h, 'ZYXCORP');
      assert.deepEqual(found.map((i: any) => i.id), [exact.id, longer.id]);
      assert.equal(found[0].type, 'item');
      assert.deepEqual(found[0], exact);
      // Other values than the name, and only prefixes (not substrings).
      assert.deepEqual((await search(h, 'pat@zyx')).map((i: any) => i.id), [byEmail.id]);
      assert.deepEqual(await search(h, 'corp international'), []);
    });

    it('does not match numbers, options or relation ids', async () => {
      const c = await makeCollection(h, 'Scores');
      await makeField(h, c.id, { type: 'field/number/unitless_integer', name: 'Points' });
      await makeItem(h, c.id, { name: text('Qwerty'), points: int(4242) });
      assert.deepEqual(await search(h, '4242'), []);
      assert.equal((await search(h, 'qwer')).length, 1);
    });

    it('finds files by name (contains, case-insensitive), after items of the same rank', async () => {
      const up = await postMultipart(h, '/v0/files', [{ name: 'name', value: 'Blorbo plan.pdf' }, { name: 'file', filename: 'b.pdf', content: 'x', contentType: 'application/pdf' }]);
      assert.equal(up.status, 201, up.text);
      const other = await postMultipart(h, '/v0/files', [{ name: 'name', value: 'The blorbo notes' }, { name: 'file', filename: 'n.txt', content: 'y', contentType: 'text/plain' }]);
      const item = await makeItem(h, 'organizations', { name: text('Blorbo Ltd') });
      const found = await search(h, 'blorbo');
      assert.deepEqual(found.map((r: any) => [r.type, r.id]), [['item', item.id], ['file', up.body.id], ['file', other.body.id]]);
      assert.equal(typeof found[1].download_url, 'string');
      assert.deepEqual(found[1].associations, []);
      // Case beyond ASCII (was: SQL's lower() folded ASCII letters only, so these found nothing).
      const ecole = await postMultipart(h, '/v0/files', [{ name: 'name', value: 'École Σοφία Report.pdf' }, { name: 'file', filename: 'e.pdf', content: 'z', contentType: 'application/pdf' }]);
      for (const query of ['école', 'ÉCOLE', 'σοφία', 'ΣΟΦΊΑ']) assert.deepEqual((await search(h, query)).map((r: any) => r.id), [ecole.body.id], query);
    });

    it('stays inside the organization', async () => {
      const mine = await makeItem(h, 'organizations', { name: text('Privata') });
      const other = await h.newOrg();
      assert.deepEqual(await search(h, 'privata', other.key), []);
      assert.deepEqual((await search(h, 'privata')).map((i: any) => i.id), [mine.id]);
      // A read, so a read-only key may search.
      assert.equal((await search(h, 'privata', await h.readOnlyKey())).length, 1);
    });

    it('returns at most 50 results', async () => {
      for (let i = 0; i < 55; i++) await makeItem(h, 'organizations', { name: text(`Capped ${String(i).padStart(2, '0')}`) });
      const found = await search(h, 'capped');
      assert.equal(found.length, 50);
      assert.equal(found[0].values.name.data, 'Capped 00');
    });

    it('a missing or blank query is a 400 naming query; identifiers match as written', async () => {
      for (const url of ['/v0/search', '/v0/search?query=', '/v0/search?query=%20%20']) {
        const res = await h.post(url);
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.errors[0].source.parameter, 'query');
      }
      const c = await makeCollection(h, 'Codes');
      await makeField(h, c.id, { type: 'field/identifier', name: 'Code' });
      const item = await makeItem(h, c.id, { name: text('coded'), code: val('identifier', 'AbC-77') });
      assert.deepEqual((await search(h, 'AbC-7')).map((i: any) => i.id), [item.id]);
      // Other values are matched lower-cased, whatever the query's case; identifiers only as written.
      assert.deepEqual((await search(h, 'CoDeD')).map((i: any) => i.id), [item.id]);
      assert.deepEqual(await search(h, 'abc-7'), []);
    });
  });
}
