// The search index follows every item write, whichever entries the write rewrites: a field losing values
// (positions past its new last one go), gaining values, changing one value in place, or written unchanged.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, type Harness } from '../helpers/harness.ts';
import { email, int, makeCollection, makeField, makeItem } from '../helpers/items.ts';

for (const engine of ENGINES) {
  describe(`the item index after updates (${engine})`, () => {
    let h: Harness;
    let ref: string;
    before(async () => {
      h = await createHarness(engine);
      ref = (await makeCollection(h, 'Index Probes')).ref;
      await makeField(h, ref, { type: 'field/email', name: 'Emails', cardinality: 'many' });
      await makeField(h, ref, { type: 'field/number/unitless_integer', name: 'Score' });
    });
    after(() => h.close());

    /** Ids of the items whose field `field` equals `value`, as search finds them. */
    const found = async (field: string, value: unknown): Promise<string[]> => {
      const res = await h.post(`/v0/collections/${ref}/items/search`, { filter: { op: 'eq', field, value } });
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((r: any) => r.data.id);
    };
    const patch = async (id: string, values: Record<string, unknown>) => {
      const res = await h.patch(`/v0/collections/${ref}/items/${id}`, { values });
      assert.equal(res.status, 200, res.text);
    };

    it('a field that loses values is no longer found by them; the value kept still is', async () => {
      const item = await makeItem(h, ref, { emails: ['a@one.test', 'b@one.test', 'c@one.test'].map(email) });
      await patch(item.id, { emails: [email('b@one.test')] });
      assert.deepEqual(await found('emails', 'a@one.test'), []);
      assert.deepEqual(await found('emails', 'c@one.test'), []);
      assert.deepEqual(await found('emails', 'b@one.test'), [item.id]);
    });

    it('a field that gains values, or has one changed in place, is found by the new values only', async () => {
      const item = await makeItem(h, ref, { emails: [email('d@two.test')], score: int(1) });
      await patch(item.id, { emails: ['e@two.test', 'f@two.test', 'g@two.test'].map(email), score: int(2) });
      assert.deepEqual(await found('emails', 'd@two.test'), []);
      for (const value of ['e@two.test', 'f@two.test', 'g@two.test']) assert.deepEqual(await found('emails', value), [item.id]);
      assert.deepEqual(await found('score', 1), []);
      assert.deepEqual(await found('score', 2), [item.id]);
    });

    it('an upsert that writes the values an item already has leaves it findable by them', async () => {
      const item = await makeItem(h, ref, { emails: ['h@three.test', 'i@three.test'].map(email), score: int(7) });
      const res = await h.post(`/v0/collections/${ref}/items/upsert`, {
        identifiers: { emails: email('h@three.test') },
        values: { emails: ['h@three.test', 'i@three.test'].map(email), score: int(7) },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, item.id);
      assert.deepEqual(await found('emails', 'i@three.test'), [item.id]);
      assert.deepEqual(await found('score', 7), [item.id]);
    });

    it('clearing a field removes all its values from the index', async () => {
      const item = await makeItem(h, ref, { emails: ['j@four.test', 'k@four.test'].map(email) });
      await patch(item.id, { emails: null });
      assert.deepEqual(await found('emails', 'j@four.test'), []);
      assert.deepEqual(await found('emails', 'k@four.test'), []);
    });
  });
}
