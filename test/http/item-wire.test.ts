// Items are answered from their stored wire forms (domain/item-wire.ts). Every schema change that alters how an
// item looks must show at once in retrieve, list, search and global search — byte for byte what rendering the item's values
// under the current schema gives — and a write stores the new form again.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, type Harness } from '../helpers/harness.ts';
import { createCollection, createField } from '../helpers/fields.ts';
import { loadSchema } from '../../src/domain/collection-schema.ts';
import { renderItem, wireTag } from '../../src/domain/item-wire.ts';

for (const engine of ENGINES) {
  describe(`stored wire forms follow the schema (${engine})`, () => {
    let h: Harness;
    let c: any;
    let tier: any;
    let stage: any;
    let itemId: string;
    before(async () => {
      h = await createHarness(engine);
      c = await createCollection(h, 'Wire Deps');
      await createField(h, c.id, { type: 'field/text/single_line', name: 'Label' });
      await createField(h, c.id, { type: 'field/email', name: 'Mail' });
      tier = await createField(h, c.id, { type: 'field/choice', name: 'Tier', options: [{ name: 'Gold', color: 'amber' }, { name: 'Silver' }] });
      stage = await createField(h, c.id, { type: 'field/stage', name: 'Stage', stages: [{ name: 'Open', step_type: 'active' }, { name: 'Won', step_type: 'success' }] });
      const created = await h.post(`/v0/collections/${c.id}/items`, {
        values: {
          label: { type: 'value/text/single_line', data: 'Acme' },
          mail: { type: 'value/email', data: 'hello@acme.example' },
          tier: { type: 'value/choice', data: { type: 'choice_field_option', id: tier.options[0].id } },
          stage: { type: 'value/funnel_step', data: { type: 'funnel_step', id: stage.funnel.steps[0].id } },
        },
      });
      assert.equal(created.status, 201, created.text);
      itemId = created.body.id;
      // Updated later than created, so an answer that mixed up the two times would show.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const updated = await h.patch(`/v0/collections/${c.id}/items/${itemId}`, { values: { label: { type: 'value/text/single_line', data: 'Acme Ltd' } } });
      assert.equal(updated.status, 200, updated.text);
      assert.notEqual(updated.body.values.updated_at.data, updated.body.values.created_at.data);
    });
    after(() => h.close());

    /** The item as rendered now from its values (what the answers must equal), and whether its stored form is current. */
    async function rendered(): Promise<{ json: string; current: boolean }> {
      const schema = await loadSchema(h.store, h.orgId, c.id);
      const [item] = await h.store.items.findMany(h.orgId, [itemId]);
      const served = await h.store.items.serveOne(h.orgId, c.id, itemId, wireTag(schema));
      return { json: JSON.stringify(renderItem(item!, schema)), current: served !== undefined && 'wire' in served };
    }

    /** Retrieve, list and search answer the same bytes for the item, which are the rendering's; returns the values. */
    async function answered(): Promise<Record<string, any>> {
      const { json } = await rendered();
      const retrieved = await h.get(`/v0/collections/${c.id}/items/${itemId}`);
      assert.equal(retrieved.status, 200, retrieved.text);
      assert.equal(retrieved.text, json);
      const listed = await h.get(`/v0/collections/${c.id}/items`);
      assert.ok(listed.text.includes(`"data":[${json}]`), listed.text);
      const searched = await h.post(`/v0/collections/${c.id}/items/search`, {});
      assert.ok(searched.text.includes(`"data":[{"type":"search_result","data":${json}}]`), searched.text);
      const mail = [retrieved.body.values.mail].flat()[0].data;
      const found = await h.post(`/v0/search?query=${encodeURIComponent(mail)}`);
      assert.ok(found.text.includes(`{"type":"search_result","data":${json}}`), found.text);
      return retrieved.body.values;
    }

    it('answers a new item from its stored form, as rendering would', async () => {
      assert.equal((await rendered()).current, true);
      const values = await answered();
      assert.equal(values.tier.data.name, 'Gold');
      assert.equal(values.stage.data.name, 'Open');
    });

    it('leaves stored forms current when a change shows nowhere (a field renamed)', async () => {
      const res = await h.patch(`/v0/collections/${c.id}/fields/${tier.id}`, { type: 'field/choice', name: 'Level' });
      assert.equal(res.status, 200, res.text);
      assert.equal((await rendered()).current, true);
      await answered();
    });

    it('shows a renamed and recoloured choice option', async () => {
      const res = await h.patch(`/v0/collections/${c.id}/fields/${tier.id}`, {
        type: 'field/choice',
        options: [{ id: tier.options[0].id, name: 'Platinum', color: 'purple' }, { id: tier.options[1].id, name: 'Silver' }],
      });
      assert.equal(res.status, 200, res.text);
      assert.equal((await rendered()).current, false);
      const values = await answered();
      assert.equal(values.tier.data.name, 'Platinum');
      assert.equal(values.tier.data.color, 'purple');
    });

    it('shows a renamed funnel step', async () => {
      const funnel = stage.funnel;
      const res = await h.patch(`/v0/funnels/${funnel.id}`, {
        steps: [{ id: funnel.steps[0].id, name: 'Opened', step_type: 'active' }, { id: funnel.steps[1].id, name: 'Won', step_type: 'success' }],
      });
      assert.equal(res.status, 200, res.text);
      assert.equal((await answered()).stage.data.name, 'Opened');
    });

    it('shows a field turned from one value to many as a list', async () => {
      const mail = (await h.get(`/v0/collections/${c.id}/fields/mail`)).body;
      const res = await h.patch(`/v0/collections/${c.id}/fields/${mail.id}`, { type: 'field/email', cardinality: 'many' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await answered()).mail, [{ type: 'value/email', data: 'hello@acme.example' }]);
    });

    it('drops the value of a deleted choice option and the values of a deleted field', async () => {
      const res = await h.patch(`/v0/collections/${c.id}/fields/${tier.id}`, { type: 'field/choice', options: [{ id: tier.options[1].id, name: 'Silver' }] });
      assert.equal(res.status, 200, res.text);
      assert.equal((await answered()).tier, undefined);
      assert.equal((await h.delete(`/v0/collections/${c.id}/fields/label`)).status, 204);
      const values = await answered();
      assert.equal(values.label, undefined);
      assert.equal(values.mail[0].data, 'hello@acme.example');
    });

    it('stores the current form again when the item is written', async () => {
      const res = await h.patch(`/v0/collections/${c.id}/items/${itemId}`, { values: { mail: [{ type: 'value/email', data: 'new@acme.example' }] } });
      assert.equal(res.status, 200, res.text);
      const { json, current } = await rendered();
      assert.equal(current, true);
      assert.equal(res.text, json);
      assert.equal((await answered()).mail[0].data, 'new@acme.example');
    });

    it('renders selected fields (include) from the values, whatever the stored form', async () => {
      const listed = await h.get(`/v0/collections/${c.id}/items?include[]=mail`);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(Object.keys(listed.body.data[0].values), ['mail']);
      const searched = await h.post(`/v0/collections/${c.id}/items/search`, { include: ['stage'] });
      assert.deepEqual(Object.keys(searched.body.data[0].data.values), ['stage']);
    });
  });
}
