import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { COLOR_NAMES, ID, TIMESTAMP, createCollection, createField } from '../helpers/fields.ts';

/** The 20 field types of seed §2.3, exact strings (each gets its own test below). */
const FIELD_TYPES = [
  'field/text/single_line',
  'field/text/multi_line',
  'field/identifier',
  'field/number/unitless_integer',
  'field/number/unitless_float',
  'field/number/monetary',
  'field/number/percentage',
  'field/boolean',
  'field/email',
  'field/uri/url',
  'field/uri/domain',
  'field/uri/social_x',
  'field/uri/social_linked_in',
  'field/telephone_number',
  'field/geo',
  'field/date',
  'field/datetime',
  'field/choice',
  'field/stage',
  'field/relation',
];

/** What each type needs besides type and name to be created. */
const EXTRAS: Record<string, Record<string, unknown>> = {
  'field/number/monetary': { default_unit: 'USD' },
  'field/choice': { options: [{ name: 'High', color: 'red' }] },
  'field/stage': { stages: [{ name: 'Open', step_type: 'active' }] },
  'field/relation': { relation_type: 'one_way', allowed_collections: [{ type: 'collection', ref: 'people' }] },
};

const COMMON_KEYS = [
  'cardinality', 'created_at', 'default_values', 'id', 'kind', 'name', 'readonly', 'ref', 'required', 'type', 'unique', 'updated_at',
];

/** The type-specific response properties each type must carry (and the only ones beyond the common set). */
const EXTRA_KEYS: Record<string, string[]> = {
  'field/number/monetary': ['default_unit'],
  'field/choice': ['options'],
  'field/stage': ['funnel'],
  'field/relation': ['allowed_collections', 'relation_type'],
};

function assertNewCustomField(field: any, type: string, name: string): void {
  assert.match(field.id, ID);
  assert.equal(field.type, type);
  assert.equal(field.name, name);
  assert.equal(field.kind, 'custom');
  assert.equal(field.readonly, false);
  assert.deepEqual(field.default_values, []);
  assert.equal(field.cardinality, 'one');
  assert.equal(field.required, false);
  assert.equal(field.unique, false);
  assert.equal('description' in field, false, 'description is omitted when unset');
  assert.match(field.created_at, TIMESTAMP);
  assert.match(field.updated_at, TIMESTAMP);
  assert.deepEqual(Object.keys(field).sort(), [...COMMON_KEYS, ...(EXTRA_KEYS[type] ?? [])].sort());
}

for (const engine of ENGINES) {
  describe(`fields: create and retrieve every type (${engine})`, () => {
    let h: Harness;
    let byId: any;
    let byRef: any;
    before(async () => {
      h = await createHarness(engine);
      byId = await createCollection(h, 'Typed by id');
      byRef = await createCollection(h, 'Typed by ref');
    });
    after(() => h.close());

    for (const [i, type] of FIELD_TYPES.entries()) {
      it(`creates ${type} on a collection addressed by id and by ref`, async () => {
        const name = `Field ${i}`;
        for (const collection of [byId.id, byRef.ref]) {
          const res = await h.post(`/v0/collections/${collection}/fields`, { type, name, ...EXTRAS[type] });
          assert.equal(res.status, 201, res.text);
          assertNewCustomField(res.body, type, name);
          assert.equal(res.body.ref, `field_${i}`);
        }
        // The field went to the collection named in the path, not elsewhere.
        for (const collection of [byId, byRef]) {
          const listed = (await h.get(`/v0/collections/${collection.ref}`)).body.fields.filter((f: any) => f.name === name);
          assert.equal(listed.length, 1);
          assert.equal(listed[0].type, type);
        }
      });
    }

    it('echoes the per-type extras', async () => {
      const money = await createField(h, byId.id, { type: 'field/number/monetary', name: 'Budget', default_unit: 'GBP' });
      assert.equal(money.default_unit, 'GBP');
      const choice = await createField(h, byId.id, { type: 'field/choice', name: 'Tier', options: [{ name: 'Gold', color: 'amber' }] });
      assert.equal(choice.options.length, 1);
      assert.equal(choice.options[0].name, 'Gold');
      const relation = await createField(h, byId.id, { type: 'field/relation', name: 'Owner', ...EXTRAS['field/relation'] });
      assert.equal(relation.relation_type, 'one_way');
      assert.equal(relation.allowed_collections[0].ref, 'people');
    });

    it('retrieves a field by id and by ref, identical to the created object, and lists it on the collection', async () => {
      const created = await createField(h, byRef.ref, { type: 'field/choice', name: 'Retrieved', options: [{ name: 'A' }] });
      const viaId = await h.get(`/v0/collections/${byRef.id}/fields/${created.id}`);
      assert.equal(viaId.status, 200);
      assert.deepEqual(viaId.body, created);
      const viaRef = await h.get(`/v0/collections/${byRef.ref}/fields/retrieved`);
      assert.equal(viaRef.status, 200);
      assert.deepEqual(viaRef.body, created);
      const collection = await h.get(`/v0/collections/${byRef.ref}`);
      assert.deepEqual(
        collection.body.fields.find((f: any) => f.id === created.id),
        created,
      );
    });

    it('returns the description when set', async () => {
      const field = await createField(h, byId.id, { type: 'field/boolean', name: 'Vip', description: 'Very important' });
      assert.equal(field.description, 'Very important');
      assert.equal((await h.get(`/v0/collections/${byId.id}/fields/${field.id}`)).body.description, 'Very important');
    });

    it('keeps cardinality, required and unique when sent', async () => {
      const field = await createField(h, byId.id, { type: 'field/email', name: 'Emails', cardinality: 'many', required: true, unique: true });
      assert.equal(field.cardinality, 'many');
      assert.equal(field.required, true);
      assert.equal(field.unique, true);
    });

    it('stamps created_at and updated_at with the same creation time', async () => {
      const before = Date.now();
      const field = await createField(h, byId.id, { type: 'field/geo', name: 'Where' });
      assert.equal(field.created_at, field.updated_at);
      assert.ok(Date.parse(field.created_at) >= before - 1);
      assert.ok(Date.parse(field.created_at) <= Date.now());
    });
  });

  describe(`fields: refs (${engine})`, () => {
    let h: Harness;
    let c: any;
    before(async () => {
      h = await createHarness(engine);
      c = await createCollection(h, 'Refs');
    });
    after(() => h.close());

    it('derives the ref from the name', async () => {
      assert.equal((await createField(h, c.id, { type: 'field/text/single_line', name: 'Lead Source' })).ref, 'lead_source');
      assert.equal((await createField(h, c.id, { type: 'field/text/single_line', name: '  Déjà  Vu!! ' })).ref, 'deja_vu');
    });

    it('suffixes a colliding ref with a number', async () => {
      const second = await createField(h, c.id, { type: 'field/text/single_line', name: 'Lead source' });
      assert.equal(second.ref, 'lead_source_2');
      const third = await createField(h, c.id, { type: 'field/boolean', name: 'LEAD-SOURCE' });
      assert.equal(third.ref, 'lead_source_3');
    });

    it('does not collide with refs of other collections', async () => {
      const other = await createCollection(h, 'Other refs');
      assert.equal((await createField(h, other.id, { type: 'field/text/single_line', name: 'Lead Source' })).ref, 'lead_source');
    });

    it('keeps the ref when the field is renamed', async () => {
      const field = await createField(h, c.id, { type: 'field/date', name: 'Signed On' });
      assert.equal(field.ref, 'signed_on');
      const renamed = await h.patch(`/v0/collections/${c.id}/fields/${field.id}`, { type: 'field/date', name: 'Contract Date' });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.name, 'Contract Date');
      assert.equal(renamed.body.ref, 'signed_on');
      const again = await h.get(`/v0/collections/${c.id}/fields/signed_on`);
      assert.equal(again.body.name, 'Contract Date');
      assert.equal((await h.get(`/v0/collections/${c.id}/fields/contract_date`)).status, 404);
    });
  });

  describe(`fields: monetary (${engine})`, () => {
    let h: Harness;
    let c: any;
    before(async () => {
      h = await createHarness(engine);
      c = await createCollection(h, 'Money');
    });
    after(() => h.close());

    it('requires default_unit', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/number/monetary', name: 'Value' });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/default_unit');
    });

    for (const unit of ['usd', 'US', 'ABC', 'USDD']) {
      it(`rejects default_unit ${JSON.stringify(unit)}`, async () => {
        const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/number/monetary', name: 'Value', default_unit: unit });
        assert.equal(res.status, 422);
        const error = errorOf(res);
        assert.equal(error.source?.pointer, '/default_unit');
        assert.ok(error.detail && error.detail.length > 0);
      });
    }

    it('accepts EUR and returns it', async () => {
      const field = await createField(h, c.id, { type: 'field/number/monetary', name: 'Deal Value', default_unit: 'EUR' });
      assert.equal(field.default_unit, 'EUR');
      assert.equal((await h.get(`/v0/collections/${c.id}/fields/deal_value`)).body.default_unit, 'EUR');
    });

    it('rejected creations leave no field behind', async () => {
      const refs = (await h.get(`/v0/collections/${c.id}`)).body.fields.map((f: any) => f.ref);
      assert.ok(!refs.includes('value'));
    });
  });

  describe(`fields: choice (${engine})`, () => {
    let h: Harness;
    let c: any;
    before(async () => {
      h = await createHarness(engine);
      c = await createCollection(h, 'Choices');
    });
    after(() => h.close());

    it('requires options', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/choice', name: 'Priority' });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/options');
    });

    it('requires at least one option', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/choice', name: 'Priority', options: [] });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/options');
    });

    it('returns options as choice_field_option objects with ids, keeping sent colours and order', async () => {
      const field = await createField(h, 'choices', {
        type: 'field/choice',
        name: 'Priority',
        cardinality: 'one',
        options: [{ name: 'High', color: 'red' }, { name: 'Low', color: 'sky' }],
      });
      assert.equal(field.options.length, 2);
      for (const option of field.options) {
        assert.deepEqual(Object.keys(option).sort(), ['color', 'id', 'name', 'type']);
        assert.match(option.id, ID);
        assert.equal(option.type, 'choice_field_option');
      }
      assert.deepEqual(field.options.map((o: any) => [o.name, o.color]), [['High', 'red'], ['Low', 'sky']]);
      assert.notEqual(field.options[0].id, field.options[1].id);
    });

    it('gives an option without a colour one of the 18 colour names', async () => {
      const field = await createField(h, c.id, { type: 'field/choice', name: 'Size', options: [{ name: 'Small' }, { name: 'Large', color: 'teal' }] });
      assert.equal(typeof field.options[0].color, 'string');
      assert.ok(COLOR_NAMES.includes(field.options[0].color), field.options[0].color);
      assert.equal(field.options[1].color, 'teal');
    });

    it('rejects a colour outside the list, pointing at the option', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, {
        type: 'field/choice',
        name: 'Mood',
        options: [{ name: 'Happy', color: 'green' }, { name: 'Sad', color: 'mauve' }],
      });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/options/1/color');
    });

    it('rejects a blank option name', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/choice', name: 'Mood', options: [{ name: '  ' }] });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/options/0/name');
    });
  });

  describe(`fields: stage and funnels (${engine})`, () => {
    let h: Harness;
    let c: any;
    before(async () => {
      h = await createHarness(engine);
      c = await createCollection(h, 'Pipeline');
    });
    after(() => h.close());

    it('creates a funnel from stages', async () => {
      const field = await createField(h, c.id, {
        type: 'field/stage',
        name: 'Sales Stage',
        stages: [
          { name: 'Qualified', step_type: 'active' },
          { name: 'Won', step_type: 'success' },
          { name: 'Lost', step_type: 'failure' },
        ],
      });
      const { funnel } = field;
      assert.match(funnel.id, ID);
      assert.equal(funnel.type, 'funnel');
      assert.equal(typeof funnel.name, 'string');
      assert.match(funnel.created_at, TIMESTAMP);
      assert.match(funnel.updated_at, TIMESTAMP);
      assert.deepEqual(funnel.steps.map((s: any) => [s.name, s.step_type]), [['Qualified', 'active'], ['Won', 'success'], ['Lost', 'failure']]);
      for (const step of funnel.steps) {
        assert.deepEqual(Object.keys(step).sort(), ['color', 'id', 'name', 'step_type', 'type']);
        assert.match(step.id, ID);
        assert.equal(step.type, 'funnel_step');
        assert.ok(COLOR_NAMES.includes(step.color), step.color);
      }
      const stored = await h.get(`/v0/funnels/${funnel.id}`);
      assert.equal(stored.status, 200);
      assert.deepEqual(stored.body, funnel);
      assert.deepEqual((await h.get(`/v0/collections/${c.id}/fields/sales_stage`)).body.funnel, funnel);
    });

    it('rejects an unknown step_type with a pointer into stages', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/stage', name: 'Bad', stages: [{ name: 'A', step_type: 'pending' }] });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/stages/0/step_type');
    });

    it('reuses a funnel made by POST /v0/funnels', async () => {
      const made = await h.post('/v0/funnels', { name: 'Hiring', steps: [{ name: 'Applied', step_type: 'active' }, { name: 'Hired', step_type: 'success' }] });
      assert.equal(made.status, 201);
      const countBefore = (await h.get('/v0/funnels?limit=100')).body.data.length;
      const first = await createField(h, c.ref, { type: 'field/stage', name: 'Hiring Stage', funnel: { type: 'funnel', id: made.body.id } });
      const second = await createField(h, c.ref, { type: 'field/stage', name: 'Hiring Stage Copy', funnel: { type: 'funnel', id: made.body.id } });
      assert.deepEqual(first.funnel, made.body);
      assert.deepEqual(second.funnel, made.body);
      assert.equal((await h.get('/v0/funnels?limit=100')).body.data.length, countBefore, 'no funnel was created');
    });

    it('rejects an unknown funnel id', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/stage', name: 'Ghost', funnel: { type: 'funnel', id: '1111111111111111111111' } });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/funnel/id');
    });

    it("rejects another organization's funnel", async () => {
      const other = await h.newOrg();
      const theirs = await h.post('/v0/funnels', { name: 'Theirs', steps: [{ name: 'A', step_type: 'active' }] }, { key: other.key });
      assert.equal(theirs.status, 201);
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/stage', name: 'Stolen', funnel: { type: 'funnel', id: theirs.body.id } });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/funnel/id');
    });

    it('rejects a stage field with neither stages nor funnel', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/stage', name: 'Nothing' });
      assert.equal(res.status, 422);
      assert.ok(errorOf(res).source?.pointer);
    });

    it('rejects a stage field with both stages and funnel', async () => {
      const made = (await h.post('/v0/funnels', { name: 'Both', steps: [{ name: 'A', step_type: 'active' }] })).body;
      const res = await h.post(`/v0/collections/${c.id}/fields`, {
        type: 'field/stage',
        name: 'Both',
        funnel: { type: 'funnel', id: made.id },
        stages: [{ name: 'B', step_type: 'active' }],
      });
      assert.equal(res.status, 422);
      errorOf(res);
    });
  });

  describe(`fields: relations (${engine})`, () => {
    let h: Harness;
    let leads: any;
    let projects: any;
    before(async () => {
      h = await createHarness(engine);
      leads = await createCollection(h, 'Leads');
      projects = await createCollection(h, 'Projects');
    });
    after(() => h.close());

    const fieldsOf = async (collection: string): Promise<any[]> => (await h.get(`/v0/collections/${collection}`)).body.fields;

    it('creates a one_way relation without reverse fields', async () => {
      const before = (await fieldsOf('organizations')).length;
      const field = await createField(h, leads.id, {
        type: 'field/relation',
        name: 'Company',
        relation_type: 'one_way',
        allowed_collections: [{ type: 'collection', ref: 'organizations' }],
      });
      assert.equal(field.relation_type, 'one_way');
      assert.equal(field.reverse_fields, undefined);
      assert.equal((await fieldsOf('organizations')).length, before);
    });

    it('rejects an unknown allowed collection with collection_not_found at its index', async () => {
      const before = (await fieldsOf('organizations')).length;
      const res = await h.post(`/v0/collections/${leads.id}/fields`, {
        type: 'field/relation',
        name: 'Account',
        relation_type: 'two_way',
        allowed_collections: [
          { type: 'collection', ref: 'organizations' },
          { type: 'collection', ref: 'no_such_collection' },
        ],
        reverse_field_name: 'Contacts',
      });
      assert.equal(res.status, 422);
      const error = errorOf(res);
      assert.equal(error.code, 'collection_not_found');
      assert.equal(error.source?.pointer, '/allowed_collections/1');
      assert.equal((await fieldsOf('organizations')).length, before, 'no reverse field was left behind');
      assert.ok(!(await fieldsOf(leads.id)).some((f: any) => f.ref === 'account'));
    });

    it('rejects an unknown allowed collection id as well', async () => {
      const res = await h.post(`/v0/collections/${leads.id}/fields`, {
        type: 'field/relation',
        name: 'Account',
        relation_type: 'one_way',
        allowed_collections: [{ type: 'collection', id: '1111111111111111111111' }],
      });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).code, 'collection_not_found');
      assert.equal(errorOf(res).source?.pointer, '/allowed_collections/0');
    });

    it("treats another organization's collection as unknown", async () => {
      const other = await h.newOrg();
      const theirs = await createCollection(h, 'Secret', other.key);
      const res = await h.post(`/v0/collections/${leads.id}/fields`, {
        type: 'field/relation',
        name: 'Leak',
        relation_type: 'one_way',
        allowed_collections: [{ type: 'collection', id: theirs.id }],
      });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).code, 'collection_not_found');
    });

    it('creates a two_way relation with a reverse field on each target, addressed by ref and by id', async () => {
      const field = await createField(h, leads.ref, {
        type: 'field/relation',
        name: 'Account',
        relation_type: 'two_way',
        allowed_collections: [
          { type: 'collection', ref: 'organizations' },
          { type: 'collection', id: projects.id },
        ],
        reverse_field_name: 'Contacts',
      });
      const organizations = (await h.get('/v0/collections/organizations')).body;
      assert.equal(field.relation_type, 'two_way');
      assert.equal(field.reverse_field_name, 'Contacts');
      assert.deepEqual(field.allowed_collections, [
        { id: organizations.id, type: 'collection', ref: 'organizations' },
        { id: projects.id, type: 'collection', ref: 'projects' },
      ]);
      assert.equal(field.reverse_fields.length, 2);

      const sourcePointer = { id: field.id, type: 'field', ref: 'account', collection: { id: leads.id, type: 'collection', ref: 'leads' } };
      for (const [i, target] of [organizations, projects].entries()) {
        const pointer = field.reverse_fields[i];
        assert.equal(pointer.type, 'field');
        assert.match(pointer.id, ID);
        assert.deepEqual(pointer.collection, { id: target.id, type: 'collection', ref: target.ref });
        const reverse = await h.get(`/v0/collections/${target.ref}/fields/${pointer.id}`);
        assert.equal(reverse.status, 200);
        assert.equal(reverse.body.kind, 'inverse');
        assert.equal(reverse.body.type, 'field/relation');
        assert.equal(reverse.body.name, 'Contacts');
        assert.equal(reverse.body.ref, pointer.ref);
        assert.deepEqual(reverse.body.source_field, sourcePointer);
        assert.deepEqual(reverse.body.allowed_collections, [{ id: leads.id, type: 'collection', ref: 'leads' }]);
        assert.ok((await fieldsOf(target.ref)).some((f: any) => f.id === pointer.id));
      }
      // The source lists them on retrieval too.
      assert.deepEqual((await h.get(`/v0/collections/leads/fields/account`)).body.reverse_fields, field.reverse_fields);
    });

    it('creates a two_way self-relation', async () => {
      const field = await createField(h, leads.id, {
        type: 'field/relation',
        name: 'Referrer',
        relation_type: 'two_way',
        allowed_collections: [{ type: 'collection', ref: 'leads' }],
        reverse_field_name: 'Referrals',
      });
      assert.equal(field.reverse_fields.length, 1);
      const pointer = field.reverse_fields[0];
      assert.deepEqual(pointer.collection, { id: leads.id, type: 'collection', ref: 'leads' });
      assert.notEqual(pointer.id, field.id);
      assert.notEqual(pointer.ref, field.ref);
      const reverse = (await h.get(`/v0/collections/leads/fields/${pointer.id}`)).body;
      assert.equal(reverse.kind, 'inverse');
      assert.equal(reverse.name, 'Referrals');
      assert.equal(reverse.source_field.id, field.id);
      const refs = (await fieldsOf('leads')).map((f: any) => f.ref);
      assert.ok(refs.includes('referrer') && refs.includes(pointer.ref));
    });

    it('deleting the source removes its reverse fields', async () => {
      const field = await createField(h, leads.id, {
        type: 'field/relation',
        name: 'Sponsor',
        relation_type: 'two_way',
        allowed_collections: [{ type: 'collection', ref: 'people' }, { type: 'collection', ref: 'leads' }],
      });
      // Without reverse_field_name the reverse fields are named after the source collection, and the field says so.
      assert.equal(field.reverse_field_name, leads.name);
      assert.equal((await h.get(`/v0/collections/people/fields/${field.reverse_fields[0].id}`)).body.name, leads.name);
      const [onPeople, onLeads] = field.reverse_fields;
      assert.equal((await h.get(`/v0/collections/people/fields/${onPeople.id}`)).status, 200);
      const res = await h.delete(`/v0/collections/leads/fields/${field.id}`);
      assert.equal(res.status, 204);
      assert.equal((await h.get(`/v0/collections/people/fields/${onPeople.id}`)).status, 404);
      assert.equal((await h.get(`/v0/collections/leads/fields/${onLeads.id}`)).status, 404);
      assert.ok(!(await fieldsOf('people')).some((f: any) => f.id === onPeople.id));
    });

    it('refuses to delete an inverse field directly', async () => {
      const field = await createField(h, leads.id, {
        type: 'field/relation',
        name: 'Mentor',
        relation_type: 'two_way',
        allowed_collections: [{ type: 'collection', ref: 'people' }],
      });
      const reverseId = field.reverse_fields[0].id;
      const res = await h.delete(`/v0/collections/people/fields/${reverseId}`);
      assert.equal(res.status, 422);
      errorOf(res);
      assert.equal((await h.get(`/v0/collections/people/fields/${reverseId}`)).status, 200);
      assert.equal((await h.get(`/v0/collections/leads/fields/${field.id}`)).body.reverse_fields.length, 1);
    });

    it('requires relation_type and allowed_collections', async () => {
      const noType = await h.post(`/v0/collections/${leads.id}/fields`, {
        type: 'field/relation',
        name: 'X',
        allowed_collections: [{ type: 'collection', ref: 'people' }],
      });
      assert.equal(noType.status, 422);
      assert.equal(errorOf(noType).source?.pointer, '/relation_type');
      const noTargets = await h.post(`/v0/collections/${leads.id}/fields`, { type: 'field/relation', name: 'X', relation_type: 'one_way' });
      assert.equal(noTargets.status, 422);
      assert.equal(errorOf(noTargets).source?.pointer, '/allowed_collections');
    });
  });

  describe(`fields: default values (${engine})`, () => {
    let h: Harness;
    let c: any;
    before(async () => {
      h = await createHarness(engine);
      c = await createCollection(h, 'Defaults');
    });
    after(() => h.close());

    it('echoes a valid static default', async () => {
      const field = await createField(h, c.id, {
        type: 'field/text/single_line',
        name: 'Source',
        default_values: [{ type: 'value/text/single_line', data: 'Website' }],
      });
      assert.deepEqual(field.default_values, [{ type: 'value/text/single_line', data: 'Website' }]);
      assert.deepEqual((await h.get(`/v0/collections/${c.id}/fields/source`)).body.default_values, field.default_values);
    });

    it('echoes a monetary default (A.4)', async () => {
      const field = await createField(h, c.id, {
        type: 'field/number/monetary',
        name: 'Deal Value',
        default_unit: 'EUR',
        default_values: [{ type: 'value/number/monetary', data: { currency: 'EUR', in_minor_units: 0 } }],
      });
      assert.deepEqual(field.default_values, [{ type: 'value/number/monetary', data: { currency: 'EUR', in_minor_units: 0 } }]);
    });

    it('rejects a default of the wrong value type', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, {
        type: 'field/text/single_line',
        name: 'Wrong',
        default_values: [{ type: 'value/number/unitless_integer', data: 3 }],
      });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/default_values/0');
    });

    it('rejects a default whose data the type does not accept', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, {
        type: 'field/number/unitless_integer',
        name: 'Count',
        cardinality: 'many',
        default_values: [
          { type: 'value/number/unitless_integer', data: 1 },
          { type: 'value/number/unitless_integer', data: 1.5 },
        ],
      });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/default_values/1');
    });

    it('accepts current_date on a date field and current_datetime on a datetime field', async () => {
      const date = await createField(h, c.id, { type: 'field/date', name: 'Signed On', default_values: [{ type: 'current_date' }] });
      assert.deepEqual(date.default_values, [{ type: 'current_date' }]);
      const datetime = await createField(h, c.id, { type: 'field/datetime', name: 'Seen At', default_values: [{ type: 'current_datetime' }] });
      assert.deepEqual(datetime.default_values, [{ type: 'current_datetime' }]);
      assert.deepEqual((await h.get(`/v0/collections/${c.id}/fields/signed_on`)).body.default_values, [{ type: 'current_date' }]);
    });

    it('rejects current_date on a text field and current_datetime on a date field', async () => {
      const text = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/text/single_line', name: 'Today', default_values: [{ type: 'current_date' }] });
      assert.equal(text.status, 422);
      assert.equal(errorOf(text).source?.pointer, '/default_values/0');
      const date = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/date', name: 'Now', default_values: [{ type: 'current_datetime' }] });
      assert.equal(date.status, 422);
      assert.equal(errorOf(date).source?.pointer, '/default_values/0');
    });

    it('rejects two defaults on a field of cardinality one', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, {
        type: 'field/text/single_line',
        name: 'Two',
        default_values: [
          { type: 'value/text/single_line', data: 'a' },
          { type: 'value/text/single_line', data: 'b' },
        ],
      });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/default_values');
      const many = await createField(h, c.id, {
        type: 'field/text/single_line',
        name: 'Two',
        cardinality: 'many',
        default_values: [
          { type: 'value/text/single_line', data: 'a' },
          { type: 'value/text/single_line', data: 'b' },
        ],
      });
      assert.equal(many.default_values.length, 2);
    });

    it('echoes a choice default expanded with the option name and colour', async () => {
      const field = await createField(h, c.id, { type: 'field/choice', name: 'Priority', options: [{ name: 'High', color: 'red' }, { name: 'Low', color: 'sky' }] });
      const low = field.options[1];
      const res = await h.patch(`/v0/collections/${c.id}/fields/${field.id}`, {
        type: 'field/choice',
        default_values: [{ type: 'value/choice', data: { type: 'choice_field_option', id: low.id } }],
      });
      assert.equal(res.status, 200, res.text);
      const expected = [{ type: 'value/choice', data: { id: low.id, type: 'choice_field_option', name: 'Low', color: 'sky' } }];
      assert.deepEqual(res.body.default_values, expected);
      assert.deepEqual((await h.get(`/v0/collections/${c.id}/fields/${field.id}`)).body.default_values, expected);
    });

    it('rejects a choice default that is not an option of the field', async () => {
      const field = await createField(h, c.id, { type: 'field/choice', name: 'Tier', options: [{ name: 'Gold' }] });
      const res = await h.patch(`/v0/collections/${c.id}/fields/${field.id}`, {
        type: 'field/choice',
        default_values: [{ type: 'value/choice', data: { type: 'choice_field_option', id: '1111111111111111111111' } }],
      });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/default_values/0');
    });

    it('echoes a funnel-step default expanded', async () => {
      const field = await createField(h, c.id, { type: 'field/stage', name: 'Stage', stages: [{ name: 'Open', step_type: 'active' }] });
      const step = field.funnel.steps[0];
      const res = await h.patch(`/v0/collections/${c.id}/fields/${field.id}`, {
        type: 'field/stage',
        default_values: [{ type: 'value/funnel_step', data: { type: 'funnel_step', id: step.id } }],
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.default_values, [
        { type: 'value/funnel_step', data: { id: step.id, type: 'funnel_step', name: 'Open', step_type: 'active', color: step.color } },
      ]);
    });
  });

  describe(`fields: request errors (${engine})`, () => {
    let h: Harness;
    let c: any;
    before(async () => {
      h = await createHarness(engine);
      c = await createCollection(h, 'Errors');
    });
    after(() => h.close());

    it('answers 400 to a body that is an array', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, [{ type: 'field/boolean', name: 'Flag' }]);
      assert.equal(res.status, 400);
      errorOf(res);
    });

    it('answers 400 to malformed JSON', async () => {
      const res = await h.request('POST', `/v0/collections/${c.id}/fields`, {
        payload: '{"type": "field/boolean",',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400);
      errorOf(res);
    });

    it('rejects an unknown type with a pointer at /type', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/text', name: 'Nope' });
      assert.equal(res.status, 422);
      const error = errorOf(res);
      assert.equal(error.source?.pointer, '/type');
      assert.match(error.detail ?? '', /field\/text\/single_line/, 'the detail lists what is accepted');
    });

    it('rejects a missing type', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { name: 'Nope' });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/type');
    });

    it('rejects a missing name', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/boolean' });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/name');
    });

    it('rejects a blank name', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/boolean', name: ' \t ' });
      assert.equal(res.status, 422);
      const error = errorOf(res);
      assert.equal(error.title, 'Unprocessable Entity');
      assert.equal(error.source?.pointer, '/name');
    });

    it('rejects options sent for a text field', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/text/single_line', name: 'Plain', options: [{ name: 'A' }] });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/options');
    });

    it('rejects default_unit sent for a non-monetary field', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/number/unitless_integer', name: 'Count', default_unit: 'USD' });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/default_unit');
    });

    it('rejects an invalid cardinality', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/boolean', name: 'Flag', cardinality: 'several' });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/cardinality');
    });

    it('answers 404 without detail for an unknown collection', async () => {
      const res = await h.post('/v0/collections/nope/fields', { type: 'field/boolean', name: 'Flag' });
      assert.equal(res.status, 404);
      assert.equal(errorOf(res).detail, undefined);
      const get = await h.get('/v0/collections/nope/fields/name');
      assert.equal(get.status, 404);
      assert.equal(errorOf(get).detail, undefined);
    });

    it('answers 404 for an unknown field', async () => {
      for (const res of [
        await h.get(`/v0/collections/${c.id}/fields/nope`),
        await h.get(`/v0/collections/${c.id}/fields/1111111111111111111111`),
        await h.patch(`/v0/collections/${c.id}/fields/nope`, { type: 'field/boolean', name: 'X' }),
        await h.delete(`/v0/collections/${c.id}/fields/nope`),
      ]) {
        assert.equal(res.status, 404);
        errorOf(res);
      }
    });

    it('answers 404 for a field of another collection', async () => {
      const other = await createCollection(h, 'Elsewhere');
      const field = await createField(h, other.id, { type: 'field/boolean', name: 'Only There' });
      assert.equal((await h.get(`/v0/collections/${c.id}/fields/${field.id}`)).status, 404);
      assert.equal((await h.get(`/v0/collections/${c.id}/fields/only_there`)).status, 404);
    });

    it("answers 404 for another organization's collection and field", async () => {
      const other = await h.newOrg();
      const theirs = await createCollection(h, 'Private', other.key);
      const field = await createField(h, theirs.id, { type: 'field/boolean', name: 'Hidden' }, other.key);
      const peopleEmail = (await h.get('/v0/collections/people/fields/email', { key: other.key })).body;

      const responses = [
        await h.post(`/v0/collections/${theirs.id}/fields`, { type: 'field/boolean', name: 'Intruder' }),
        await h.get(`/v0/collections/${theirs.id}/fields/${field.id}`),
        await h.get(`/v0/collections/people/fields/${field.id}`),
        await h.get(`/v0/collections/people/fields/${peopleEmail.id}`),
        await h.patch(`/v0/collections/${theirs.id}/fields/${field.id}`, { type: 'field/boolean', name: 'Mine' }),
        await h.delete(`/v0/collections/${theirs.id}/fields/${field.id}`),
      ];
      for (const res of responses) {
        assert.equal(res.status, 404, res.text);
        assert.equal(errorOf(res).detail, undefined);
      }
      const still = await h.get(`/v0/collections/${theirs.id}/fields/${field.id}`, { key: other.key });
      assert.equal(still.status, 200);
      assert.equal(still.body.name, 'Hidden');
      assert.ok(!(await h.get(`/v0/collections/${theirs.id}`, { key: other.key })).body.fields.some((f: any) => f.name === 'Intruder'));
    });

    it('refuses writes with a read-only key but lets it read', async () => {
      const key = await h.readOnlyKey();
      const field = await createField(h, c.id, { type: 'field/boolean', name: 'Readable' });
      const post = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/boolean', name: 'Flag' }, { key });
      assert.equal(post.status, 403);
      errorOf(post);
      assert.equal((await h.patch(`/v0/collections/${c.id}/fields/${field.id}`, { type: 'field/boolean', name: 'Renamed' }, { key })).status, 403);
      assert.equal((await h.delete(`/v0/collections/${c.id}/fields/${field.id}`, { key })).status, 403);
      const get = await h.get(`/v0/collections/${c.id}/fields/${field.id}`, { key });
      assert.equal(get.status, 200);
      assert.equal(get.body.name, 'Readable');
      assert.ok(!(await h.get(`/v0/collections/${c.id}`)).body.fields.some((f: any) => f.name === 'Flag'));
    });

    it('answers 401 without a key', async () => {
      const res = await h.post(`/v0/collections/${c.id}/fields`, { type: 'field/boolean', name: 'Flag' }, { key: null });
      assert.equal(res.status, 401);
    });
  });
}
