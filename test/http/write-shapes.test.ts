// Creates and upserts run statements built once per shape (store/sql/shapes.ts, write-together.ts): these
// tests reuse each shape with other values — identifier matches on a number, a text and both, index rows of
// different counts — and check through HTTP that every write landed on its own item with its own values.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { assertInvalid, email, int, makeCollection, makeField, makeItem, text } from '../helpers/items.ts';

for (const engine of ENGINES) {
  describe(`writes through prepared shapes (${engine})`, () => {
    let h: Harness;
    let ref: string;
    before(async () => {
      h = await createHarness(engine);
      ref = (await makeCollection(h, 'Shaped')).ref;
      await makeField(h, ref, { name: 'Code', type: 'field/text/single_line' });
      await makeField(h, ref, { name: 'Num', type: 'field/number/unitless_integer' });
      await makeField(h, ref, { name: 'Emails', type: 'field/email', cardinality: 'many' });
    });
    after(() => h.close());

    const upsert = (identifiers: Record<string, unknown>, values: Record<string, unknown> = {}) =>
      h.post(`/v0/collections/${ref}/items/upsert`, { identifiers, values });
    const owners = async (value: string) => {
      const res = await h.post(`/v0/collections/${ref}/items/search`, { filter: { op: 'eq', field: 'emails', value } });
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((r: { data: { id: string } }) => r.data.id).sort();
    };

    it('upserts matching on a number, a text or both find their own item each time a match is reused', async () => {
      const a = await makeItem(h, ref, { code: text('a'), num: int(1) });
      const b = await makeItem(h, ref, { code: text('b'), num: int(2) });
      const expectations: [Record<string, unknown>, string][] = [
        [{ num: int(2) }, b.id],
        [{ code: text('a') }, a.id],
        [{ num: int(1) }, a.id],
        [{ code: text('b') }, b.id],
        [{ code: text('b'), num: int(2) }, b.id],
        [{ num: int(2), code: text('b') }, b.id],
        [{ num: int(1) }, a.id],
      ];
      for (const [i, [identifiers, id]] of expectations.entries()) {
        const res = await upsert(identifiers, { emails: [email(`u${i}@shapes.example`)] });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.id, id, JSON.stringify(identifiers));
        assert.equal(res.body.values.emails[0].data, `u${i}@shapes.example`);
      }
      const both = await upsert({ code: text('a'), num: int(2) });
      assert.equal(both.status, 409, both.text);
      assert.equal(errorOf(both).status, '409');
      const created = await upsert({ num: int(3) }, { code: text('c') });
      assert.equal(created.status, 201, created.text);
      assert.notEqual(created.body.id, a.id);
      assert.notEqual(created.body.id, b.id);
      assert.equal(created.body.values.num.data, 3);
      assert.equal((await upsert({ num: int(3) })).body.id, created.body.id);
      // A refused identifier in between leaves the statements as they were.
      assertInvalid(await upsert({ num: text('three') }), '/identifiers/num');
      assert.equal((await upsert({ code: text('a') })).body.id, a.id);
    });

    it('creates and updates with different numbers of index rows keep each item’s own values', async () => {
      const x = await makeItem(h, ref, { emails: ['x1', 'x2', 'x3'].map((e) => email(`${e}@shapes.example`)) });
      const y = await makeItem(h, ref, { emails: [email('y1@shapes.example')] });
      const z = await makeItem(h, ref, { emails: ['z1', 'z2', 'z3'].map((e) => email(`${e}@shapes.example`)) });
      for (const [owner, names] of [[x, ['x1', 'x2', 'x3']], [y, ['y1']], [z, ['z1', 'z2', 'z3']]] as const) {
        for (const name of names) assert.deepEqual(await owners(`${name}@shapes.example`), [owner.id], name);
      }
      const patched = await h.patch(`/v0/collections/${ref}/items/${z.id}`, { values: { emails: [email('z9@shapes.example')] } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(await owners('z1@shapes.example'), []);
      assert.deepEqual(await owners('z9@shapes.example'), [z.id]);
      assert.deepEqual(await owners('x3@shapes.example'), [x.id]);
      const got = await h.get(`/v0/collections/${ref}/items/${x.id}`);
      assert.deepEqual(got.body.values.emails.map((v: { data: string }) => v.data), ['x1@shapes.example', 'x2@shapes.example', 'x3@shapes.example']);
    });

    it('each create records its own item_created activity', async () => {
      const made = [await makeItem(h, ref, { code: text('p') }), await makeItem(h, ref, { code: text('q') })];
      for (const item of made) {
        const res = await h.get(`/v0/activities?constituent_entity_type[eq]=item&constituent_entity_id[eq]=${item.id}&type[eq]=activity/item_created`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.data.length, 1);
        const object = res.body.data[0].constituents.find((c: { relation: string }) => c.relation === 'object');
        assert.equal(object.entity.id, item.id);
      }
    });
  });
}
