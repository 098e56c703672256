import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { ID, createCollection, createField, insertItem, itemValues } from '../helpers/fields.ts';

const T0 = Date.parse('2026-01-05T10:00:00.000Z');

for (const engine of ENGINES) {
  describe(`field updates: common properties (${engine})`, () => {
    let h: Harness;
    let c: any;
    let now = T0;
    before(async () => {
      h = await createHarness(engine, { clock: () => new Date(now) });
      c = await createCollection(h, 'Updates');
    });
    after(() => h.close());

    const url = (field: any) => `/v0/collections/${c.id}/fields/${field.id}`;

    it('requires type', async () => {
      const field = await createField(h, c.id, { type: 'field/text/single_line', name: 'Untyped' });
      const res = await h.patch(url(field), { name: 'Renamed' });
      assert.ok(res.status === 422 || res.status === 400, `status ${res.status}`);
      const error = errorOf(res);
      if (res.status === 422) assert.equal(error.source?.pointer, '/type');
      assert.deepEqual((await h.get(url(field))).body, field);
    });

    it('refuses a type different from the field type, changing nothing', async () => {
      const field = await createField(h, c.id, { type: 'field/text/single_line', name: 'Retype' });
      const res = await h.patch(url(field), { type: 'field/text/multi_line', name: 'Retyped' });
      assert.equal(res.status, 422);
      const error = errorOf(res);
      assert.equal(error.source?.pointer, '/type');
      assert.match(error.detail ?? '', /field\/text\/single_line/);
      assert.deepEqual((await h.get(url(field))).body, field);
    });

    it('renames, keeping ref and created_at, and moves updated_at', async () => {
      now = T0;
      const field = await createField(h, c.ref, { type: 'field/text/single_line', name: 'Old Name' });
      assert.equal(field.updated_at, '2026-01-05T10:00:00.000Z');
      now = T0 + 60_000;
      const res = await h.patch(`/v0/collections/${c.ref}/fields/old_name`, { type: 'field/text/single_line', name: 'New Name' });
      assert.equal(res.status, 200);
      assert.equal(res.body.id, field.id);
      assert.equal(res.body.name, 'New Name');
      assert.equal(res.body.ref, 'old_name');
      assert.equal(res.body.created_at, '2026-01-05T10:00:00.000Z');
      assert.equal(res.body.updated_at, '2026-01-05T10:01:00.000Z');
      assert.deepEqual((await h.get(url(field))).body, res.body);
    });

    it('rejects a blank name', async () => {
      const field = await createField(h, c.id, { type: 'field/boolean', name: 'Named' });
      const res = await h.patch(url(field), { type: 'field/boolean', name: '   ' });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/name');
      assert.equal((await h.get(url(field))).body.name, 'Named');
    });

    it('sets a description and clears it with null', async () => {
      const field = await createField(h, c.id, { type: 'field/date', name: 'Described' });
      const set = await h.patch(url(field), { type: 'field/date', description: 'When it happened' });
      assert.equal(set.status, 200);
      assert.equal(set.body.description, 'When it happened');
      assert.equal((await h.get(url(field))).body.description, 'When it happened');
      const untouched = await h.patch(url(field), { type: 'field/date', name: 'Still Described' });
      assert.equal(untouched.body.description, 'When it happened', 'omitting description keeps it');
      const cleared = await h.patch(url(field), { type: 'field/date', description: null });
      assert.equal(cleared.status, 200);
      assert.equal('description' in cleared.body, false);
      assert.equal('description' in (await h.get(url(field))).body, false);
    });

    it('changes cardinality, required and unique of a field without items', async () => {
      const field = await createField(h, c.id, { type: 'field/email', name: 'Mail' });
      const res = await h.patch(url(field), { type: 'field/email', cardinality: 'many', required: true, unique: true });
      assert.equal(res.status, 200);
      assert.deepEqual([res.body.cardinality, res.body.required, res.body.unique], ['many', true, true]);
      const back = await h.patch(url(field), { type: 'field/email', cardinality: 'one', required: false, unique: false });
      assert.deepEqual([back.body.cardinality, back.body.required, back.body.unique], ['one', false, false]);
    });

    it('replaces default_values and clears them with null', async () => {
      const field = await createField(h, c.id, { type: 'field/text/single_line', name: 'Defaulted' });
      const set = await h.patch(url(field), { type: 'field/text/single_line', default_values: [{ type: 'value/text/single_line', data: 'x' }] });
      assert.deepEqual(set.body.default_values, [{ type: 'value/text/single_line', data: 'x' }]);
      const cleared = await h.patch(url(field), { type: 'field/text/single_line', default_values: null });
      assert.equal(cleared.status, 200);
      assert.deepEqual(cleared.body.default_values, []);
    });

    it(
      'does not leave several defaults on a field changed to cardinality one',
      async () => {
        const field = await createField(h, c.id, {
          type: 'field/text/single_line',
          name: 'Two Defaults',
          cardinality: 'many',
          default_values: [
            { type: 'value/text/single_line', data: 'a' },
            { type: 'value/text/single_line', data: 'b' },
          ],
        });
        const res = await h.patch(url(field), { type: 'field/text/single_line', cardinality: 'one' });
        assert.equal(res.status, 422);
        assert.equal(errorOf(res).source?.pointer, '/default_values');
        assert.equal((await h.get(url(field))).body.cardinality, 'many');
      },
    );

    it('refuses type-specific properties of another type', async () => {
      const field = await createField(h, c.id, { type: 'field/text/single_line', name: 'Plain Text' });
      const res = await h.patch(url(field), { type: 'field/text/single_line', options: [{ name: 'A' }] });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/options');
    });
  });

  describe(`field updates: choice options (${engine})`, () => {
    let h: Harness;
    let c: any;
    before(async () => {
      h = await createHarness(engine);
      c = await createCollection(h, 'Options');
    });
    after(() => h.close());

    const url = (field: any) => `/v0/collections/${c.id}/fields/${field.id}`;
    const choice = (name: string) =>
      createField(h, c.id, {
        type: 'field/choice',
        name,
        options: [{ name: 'High', color: 'red' }, { name: 'Medium', color: 'amber' }, { name: 'Low', color: 'sky' }],
      });

    it('replaces the whole set: updates by id, creates without id, removes the missing', async () => {
      const field = await choice('Priority');
      const [high, medium, low] = field.options;
      const res = await h.patch(url(field), {
        type: 'field/choice',
        options: [
          { id: low.id, name: 'Lowest', color: 'teal' },
          { name: 'Urgent', color: 'rose' },
          { id: high.id, name: 'High' },
        ],
      });
      assert.equal(res.status, 200, res.text);
      const options = res.body.options;
      assert.equal(options.length, 3);
      assert.deepEqual(options[0], { id: low.id, type: 'choice_field_option', name: 'Lowest', color: 'teal' });
      assert.match(options[1].id, ID);
      assert.ok(![high.id, medium.id, low.id].includes(options[1].id), 'a new option gets a new id');
      assert.deepEqual(options[1], { id: options[1].id, type: 'choice_field_option', name: 'Urgent', color: 'rose' });
      assert.deepEqual(options[2], { id: high.id, type: 'choice_field_option', name: 'High', color: 'red' }, 'colour kept when omitted');
      assert.ok(!options.some((o: any) => o.id === medium.id), 'the missing option is removed');
      assert.deepEqual((await h.get(url(field))).body.options, options);
    });

    it('the operation form changes the entries it names and keeps the others', async () => {
      const field = await choice('Stakes');
      const [high, medium, low] = field.options;
      const item = await insertItem(h, c.id, { [field.id]: [{ id: low.id }] });
      const res = await h.patch(url(field), {
        type: 'field/choice',
        options: [
          { op: 'add', name: 'Critical', color: 'rose' },
          { op: 'update', id: medium.id, name: 'Normal' },
          { op: 'remove', id: low.id },
        ],
      });
      assert.equal(res.status, 200, res.text);
      const options = res.body.options;
      assert.deepEqual(options.slice(0, 2), [
        { id: high.id, type: 'choice_field_option', name: 'High', color: 'red' },
        { id: medium.id, type: 'choice_field_option', name: 'Normal', color: 'amber' },
      ]);
      assert.equal(options.length, 3);
      assert.deepEqual({ name: options[2].name, color: options[2].color }, { name: 'Critical', color: 'rose' });
      assert.ok(![high.id, medium.id, low.id].includes(options[2].id));
      // What the removed option held goes as with the complete-set form.
      assert.equal((await itemValues(h, item))[field.id], undefined);
      assert.deepEqual((await h.get(url(field))).body.options, options);
      // The collection's item counts of later tests stay their own.
      assert.equal((await h.delete(`/v0/collections/${c.id}/items/${item}`)).status, 204);
    });

    it('the operation form: an unknown id, an entry without op, a duplicate name or removing every entry → 422, changing nothing', async () => {
      const field = await choice('Risk');
      const [high, medium, low] = field.options;
      const patch = (options: unknown[]) => h.patch(url(field), { type: 'field/choice', options });
      const cases: [unknown[], string][] = [
        [[{ op: 'update', id: '1111111111111111111111', name: 'Ghost' }], '/options/0/id'],
        [[{ op: 'remove' }], '/options/0/id'],
        [[{ op: 'add', name: 'Extra' }, { name: 'Plain' }], '/options/1/op'],
        [[{ op: 'add', id: high.id, name: 'Again' }], '/options/0/id'],
        [[{ op: 'add', name: 'high' }], '/options/0/name'],
        [[{ op: 'add' }], '/options/0/name'],
        [[{ op: 'remove', id: high.id }, { op: 'remove', id: medium.id }, { op: 'remove', id: low.id }], '/options'],
        [[{ op: 'rename', id: high.id }], '/options/0/op'],
      ];
      for (const [options, pointer] of cases) {
        const res = await patch(options);
        assert.equal(res.status, 422, `${JSON.stringify(options)}: ${res.text}`);
        assert.equal(errorOf(res).source?.pointer, pointer, JSON.stringify(options));
      }
      assert.deepEqual((await h.get(url(field))).body, field);
    });

    it('rejects an id that is not an option of the field, changing nothing', async () => {
      const field = await choice('Severity');
      const res = await h.patch(url(field), { type: 'field/choice', options: [{ id: '1111111111111111111111', name: 'Ghost' }] });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/options/0/id');
      assert.deepEqual((await h.get(url(field))).body, field);
    });

    it("rejects another choice field's option id", async () => {
      const one = await choice('Impact');
      const other = await choice('Effort');
      const res = await h.patch(url(one), { type: 'field/choice', options: [{ id: other.options[0].id, name: 'Borrowed' }] });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/options/0/id');
    });

    it('rejects an empty set and a bad colour', async () => {
      const field = await choice('Urgency');
      const empty = await h.patch(url(field), { type: 'field/choice', options: [] });
      assert.equal(empty.status, 422);
      assert.equal(errorOf(empty).source?.pointer, '/options');
      const color = await h.patch(url(field), { type: 'field/choice', options: [{ name: 'A' }, { name: 'B', color: 'grey' }] });
      assert.equal(color.status, 422);
      assert.equal(errorOf(color).source?.pointer, '/options/1/color');
      assert.deepEqual((await h.get(url(field))).body, field);
    });

    it('drops a default that pointed at a removed option', async () => {
      const field = await choice('Rank');
      const [high, medium] = field.options;
      const withDefault = await h.patch(url(field), {
        type: 'field/choice',
        default_values: [{ type: 'value/choice', data: { type: 'choice_field_option', id: medium.id } }],
      });
      assert.equal(withDefault.body.default_values.length, 1);
      const res = await h.patch(url(field), { type: 'field/choice', options: [{ id: high.id, name: 'High' }] });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.default_values, []);
    });

    it('removing an option removes that value from items', async () => {
      const field = await choice('Temperature');
      const [high, medium, low] = field.options;
      const hot = await insertItem(h, c.id, { [field.id]: [{ id: high.id }] });
      const warm = await insertItem(h, c.id, { [field.id]: [{ id: medium.id }] });
      const res = await h.patch(url(field), { type: 'field/choice', options: [{ id: high.id, name: 'High' }, { id: low.id, name: 'Low' }] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await itemValues(h, hot))[field.id], [{ id: high.id }]);
      assert.equal((await itemValues(h, warm))[field.id], undefined);
      // The index went too: making the field required now counts the emptied item.
      const required = await h.patch(url(field), { type: 'field/choice', required: true });
      assert.equal(required.status, 422);
      assert.match(errorOf(required).detail ?? '', /\b1 item/);
    });

    it('removing one option of a many field keeps the others in the item', async () => {
      const field = await createField(h, c.id, {
        type: 'field/choice',
        name: 'Tags',
        cardinality: 'many',
        options: [{ name: 'A' }, { name: 'B' }],
      });
      const [a, b] = field.options;
      const item = await insertItem(h, c.id, { [field.id]: [{ id: a.id }, { id: b.id }] });
      const res = await h.patch(url(field), { type: 'field/choice', options: [{ id: b.id, name: 'B' }] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await itemValues(h, item))[field.id], [{ id: b.id }]);
    });
  });

  describe(`field updates: monetary and stage (${engine})`, () => {
    let h: Harness;
    let c: any;
    before(async () => {
      h = await createHarness(engine);
      c = await createCollection(h, 'Typed');
    });
    after(() => h.close());

    it('changes default_unit and rejects a non-ISO one', async () => {
      const field = await createField(h, c.id, { type: 'field/number/monetary', name: 'Budget', default_unit: 'USD' });
      const url = `/v0/collections/${c.id}/fields/${field.id}`;
      const res = await h.patch(url, { type: 'field/number/monetary', default_unit: 'JPY' });
      assert.equal(res.status, 200);
      assert.equal(res.body.default_unit, 'JPY');
      assert.equal((await h.get(url)).body.default_unit, 'JPY');
      const bad = await h.patch(url, { type: 'field/number/monetary', default_unit: 'XYZ' });
      assert.equal(bad.status, 422);
      assert.equal(errorOf(bad).source?.pointer, '/default_unit');
      assert.equal((await h.get(url)).body.default_unit, 'JPY');
    });

    it('switches a stage field to another funnel and rejects an unknown one', async () => {
      const field = await createField(h, c.id, { type: 'field/stage', name: 'Stage', stages: [{ name: 'Open', step_type: 'active' }] });
      const url = `/v0/collections/${c.id}/fields/${field.id}`;
      const other = (await h.post('/v0/funnels', { name: 'Other', steps: [{ name: 'New', step_type: 'active' }] })).body;
      const res = await h.patch(url, { type: 'field/stage', funnel: { type: 'funnel', id: other.id } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.funnel, other);
      const bad = await h.patch(url, { type: 'field/stage', funnel: { type: 'funnel', id: '1111111111111111111111' } });
      assert.equal(bad.status, 422);
      assert.equal(errorOf(bad).source?.pointer, '/funnel/id');
      assert.equal((await h.get(url)).body.funnel.id, other.id);
    });

    it('switching funnels removes the step values items held', async () => {
      const field = await createField(h, c.id, { type: 'field/stage', name: 'Progress', stages: [{ name: 'Open', step_type: 'active' }] });
      const other = await createField(h, c.id, { type: 'field/geo', name: 'Place' });
      const item = await insertItem(h, c.id, { [field.id]: [{ id: field.funnel.steps[0].id }], [other.id]: ['Paris'] });
      const next = (await h.post('/v0/funnels', { name: 'Next', steps: [{ name: 'Start', step_type: 'active' }] })).body;
      const res = await h.patch(`/v0/collections/${c.id}/fields/${field.id}`, { type: 'field/stage', funnel: { type: 'funnel', id: next.id } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(await itemValues(h, item), { [other.id]: ['Paris'] });
    });

    it('a step removed from the funnel leaves the stage field defaults too', async () => {
      const field = await createField(h, c.id, {
        type: 'field/stage', name: 'Deal stage', stages: [{ name: 'Open', step_type: 'active' }, { name: 'Won', step_type: 'success' }],
      });
      const [open, won] = field.funnel.steps;
      const url = `/v0/collections/${c.id}/fields/${field.id}`;
      const set = await h.patch(url, { type: 'field/stage', default_values: [{ type: 'value/funnel_step', data: { type: 'funnel_step', id: won.id } }] });
      assert.equal(set.status, 200, set.text);
      assert.equal(set.body.default_values[0].data.name, 'Won');
      const res = await h.patch(`/v0/funnels/${field.funnel.id}`, { steps: [{ id: open.id, name: 'Open', step_type: 'active' }] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await h.get(url)).body.default_values, []);
      const created = await h.post(`/v0/collections/${c.id}/items`, { values: {} });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.values[field.ref], undefined);
    });

    it('refuses stages on update', async () => {
      const field = await createField(h, c.id, { type: 'field/stage', name: 'Phase', stages: [{ name: 'Open', step_type: 'active' }] });
      const res = await h.patch(`/v0/collections/${c.id}/fields/${field.id}`, { type: 'field/stage', stages: [{ name: 'X', step_type: 'active' }] });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/stages');
    });
  });

  describe(`field updates: relations (${engine})`, () => {
    let h: Harness;
    let leads: any;
    let projects: any;
    before(async () => {
      h = await createHarness(engine);
      leads = await createCollection(h, 'Leads');
      projects = await createCollection(h, 'Projects');
    });
    after(() => h.close());

    const url = (field: any) => `/v0/collections/${leads.id}/fields/${field.id}`;
    const projectIds: string[] = [];
    const project = (i: number) => projectIds[i]!;
    before(async () => {
      projectIds.push(await insertItem(h, projects.id, {}));
    });
    const relation = (name: string, relation_type: string, refs: string[]) =>
      createField(h, leads.id, {
        type: 'field/relation',
        name,
        relation_type,
        allowed_collections: refs.map((ref) => ({ type: 'collection', ref })),
      });
    const inverseOn = async (collection: string, source: any) =>
      (await h.get(`/v0/collections/${collection}`)).body.fields.filter((f: any) => f.kind === 'inverse' && f.source_field?.id === source.id);

    it('two_way → one_way removes the reverse fields', async () => {
      const field = await relation('Account', 'two_way', ['organizations', 'projects']);
      const reverseIds = field.reverse_fields.map((f: any) => f.id);
      const res = await h.patch(url(field), { type: 'field/relation', relation_type: 'one_way' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.relation_type, 'one_way');
      assert.equal(res.body.reverse_fields, undefined);
      assert.equal((await h.get(`/v0/collections/organizations/fields/${reverseIds[0]}`)).status, 404);
      assert.equal((await h.get(`/v0/collections/projects/fields/${reverseIds[1]}`)).status, 404);
      assert.deepEqual(await inverseOn('organizations', field), []);
    });

    it('one_way → two_way creates the reverse fields', async () => {
      const field = await relation('Partner', 'one_way', ['organizations', 'projects']);
      assert.deepEqual(await inverseOn('organizations', field), []);
      const res = await h.patch(url(field), { type: 'field/relation', relation_type: 'two_way' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.relation_type, 'two_way');
      assert.equal(res.body.reverse_fields.length, 2);
      assert.deepEqual(res.body.reverse_fields.map((f: any) => f.collection.ref).sort(), ['organizations', 'projects']);
      for (const pointer of res.body.reverse_fields) {
        const reverse = await h.get(`/v0/collections/${pointer.collection.ref}/fields/${pointer.id}`);
        assert.equal(reverse.status, 200);
        assert.equal(reverse.body.kind, 'inverse');
        assert.equal(reverse.body.source_field.id, field.id);
      }
      assert.equal((await inverseOn('projects', field)).length, 1);
    });

    it('changing allowed_collections adds and removes reverse fields', async () => {
      const field = await relation('Sponsor', 'two_way', ['organizations', 'projects']);
      const onProjects = field.reverse_fields.find((f: any) => f.collection.ref === 'projects');
      const onOrganizations = field.reverse_fields.find((f: any) => f.collection.ref === 'organizations');
      const res = await h.patch(url(field), {
        type: 'field/relation',
        allowed_collections: [{ type: 'collection', ref: 'projects' }, { type: 'collection', ref: 'people' }],
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.allowed_collections.map((c: any) => c.ref), ['projects', 'people']);
      assert.deepEqual(res.body.reverse_fields.map((f: any) => f.collection.ref).sort(), ['people', 'projects']);
      assert.equal(res.body.reverse_fields.find((f: any) => f.collection.ref === 'projects').id, onProjects.id, 'the kept target keeps its reverse field');
      assert.equal((await h.get(`/v0/collections/organizations/fields/${onOrganizations.id}`)).status, 404);
      assert.equal((await inverseOn('people', field)).length, 1);
      assert.deepEqual(await inverseOn('organizations', field), []);
    });

    it('dropping an allowed collection removes relation values pointing into it', async () => {
      const field = await relation('Linked', 'one_way', ['organizations', 'projects']);
      const organizations = (await h.get('/v0/collections/organizations')).body;
      const org = await insertItem(h, organizations.id, {});
      const project = await insertItem(h, projects.id, {});
      const item = await insertItem(h, leads.id, { [field.id]: [{ id: org, type: 'item' }] });
      const other = await insertItem(h, leads.id, { [field.id]: [{ id: project, type: 'item' }] });
      const res = await h.patch(url(field), { type: 'field/relation', allowed_collections: [{ type: 'collection', ref: 'projects' }] });
      assert.equal(res.status, 200, res.text);
      assert.equal((await itemValues(h, item))[field.id], undefined);
      assert.deepEqual((await itemValues(h, other))[field.id], [{ id: project, type: 'item' }]);
    });

    it('rejects an unknown collection in allowed_collections, changing nothing', async () => {
      const field = await relation('Vendor', 'two_way', ['organizations']);
      const res = await h.patch(url(field), {
        type: 'field/relation',
        allowed_collections: [{ type: 'collection', ref: 'people' }, { type: 'collection', ref: 'ghosts' }],
      });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).code, 'collection_not_found');
      assert.equal(errorOf(res).source?.pointer, '/allowed_collections/1');
      assert.deepEqual((await h.get(url(field))).body, field);
      assert.deepEqual(await inverseOn('people', field), []);
    });

    it('relation defaults: checked like values (422 at /default_values/<i>), shown as full pointers, left out of creates once stale', async () => {
      const people = (await h.get('/v0/collections/people')).body;
      const organizations = (await h.get('/v0/collections/organizations')).body;
      const ada = await insertItem(h, people.id, {});
      const acme = await insertItem(h, organizations.id, {});
      const pointer = (id: string) => ({ type: 'value/relation', data: { type: 'item', id } });
      const unknown = await h.post(`/v0/collections/${leads.id}/fields`, {
        type: 'field/relation', name: 'Broken', relation_type: 'one_way', allowed_collections: [{ type: 'collection', ref: 'people' }], default_values: [pointer('1111111111111111111111')],
      });
      assert.equal(unknown.status, 422, unknown.text);
      assert.equal(errorOf(unknown).source?.pointer, '/default_values/0');
      assert.match(errorOf(unknown).detail!, /does not exist/);

      const field = await createField(h, leads.id, {
        type: 'field/relation', name: 'Referrer', relation_type: 'one_way', allowed_collections: [{ type: 'collection', ref: 'people' }, { type: 'collection', ref: 'organizations' }], default_values: [pointer(acme)],
      });
      assert.deepEqual(field.default_values, [{ type: 'value/relation', data: { id: acme, type: 'item', collection: { id: organizations.id, type: 'collection', ref: 'organizations' } } }]);
      assert.deepEqual((await h.get(url(field))).body.default_values, field.default_values);
      const outside = await h.patch(url(field), { type: 'field/relation', default_values: [pointer(project(0))] });
      assert.equal(outside.status, 422, outside.text);
      assert.equal(errorOf(outside).source?.pointer, '/default_values/0');
      assert.match(errorOf(outside).detail!, /allowed_collections/);

      // Narrowing the allowed collections drops a default pointing outside them.
      const narrowed = await h.patch(url(field), { type: 'field/relation', allowed_collections: [{ type: 'collection', ref: 'people' }] });
      assert.equal(narrowed.status, 200, narrowed.text);
      assert.deepEqual(narrowed.body.default_values, []);
      // A default whose item is deleted no longer applies: creates go on without it.
      assert.equal((await h.patch(url(field), { type: 'field/relation', default_values: [pointer(ada)] })).status, 200);
      const withDefault = await h.post(`/v0/collections/${leads.id}/items`, { values: {} });
      assert.equal(withDefault.status, 201, withDefault.text);
      assert.equal(withDefault.body.values[field.ref].data.id, ada);
      assert.equal((await h.delete(`/v0/collections/people/items/${ada}`)).status, 204);
      const without = await h.post(`/v0/collections/${leads.id}/items`, { values: {} });
      assert.equal(without.status, 201, without.text);
      assert.equal(without.body.values[field.ref], undefined);
      const sent = await h.post(`/v0/collections/${leads.id}/items`, { values: { [field.ref]: pointer(ada) } });
      assert.equal(sent.status, 422, 'a value the client sends is still refused');
      assert.equal(errorOf(sent).source?.pointer, `/values/${field.ref}`);
    });

    it('refuses relation changes on the inverse side', async () => {
      const field = await relation('Owner', 'two_way', ['projects']);
      const reverse = field.reverse_fields[0];
      const res = await h.patch(`/v0/collections/projects/fields/${reverse.id}`, { type: 'field/relation', relation_type: 'one_way' });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/relation_type');
      const renamed = await h.patch(`/v0/collections/projects/fields/${reverse.id}`, { type: 'field/relation', name: 'Owned Leads' });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.name, 'Owned Leads');
      assert.equal(renamed.body.kind, 'inverse');
    });
  });

  describe(`field updates: system fields and deletion (${engine})`, () => {
    let h: Harness;
    let c: any;
    before(async () => {
      h = await createHarness(engine);
      c = await createCollection(h, 'Deletions');
    });
    after(() => h.close());

    it('renames the name field of people, keeping its ref', async () => {
      const res = await h.patch('/v0/collections/people/fields/name', { type: 'field/text/single_line', name: 'Full name' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.name, 'Full name');
      assert.equal(res.body.ref, 'name');
      assert.equal(res.body.kind, 'system');
      assert.equal((await h.get('/v0/collections/people/fields/name')).body.name, 'Full name');
    });

    it('refuses a cardinality change on a system field', async () => {
      const before = (await h.get('/v0/collections/people/fields/email')).body;
      const res = await h.patch('/v0/collections/people/fields/email', { type: 'field/email', cardinality: 'one' });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/cardinality');
      assert.deepEqual((await h.get('/v0/collections/people/fields/email')).body, before);
    });

    it('refuses required on the readonly created_at field', async () => {
      const before = (await h.get(`/v0/collections/${c.id}/fields/created_at`)).body;
      assert.equal(before.readonly, true);
      const res = await h.patch(`/v0/collections/${c.id}/fields/created_at`, { type: 'field/datetime', required: true });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/required');
      assert.deepEqual((await h.get(`/v0/collections/${c.id}/fields/created_at`)).body, before);
    });

    it('refuses to delete a system field', async () => {
      for (const [collection, ref] of [['people', 'email'], [c.id, 'name'], [c.id, 'updated_at']] as const) {
        const res = await h.delete(`/v0/collections/${collection}/fields/${ref}`);
        assert.equal(res.status, 422);
        errorOf(res);
        assert.equal((await h.get(`/v0/collections/${collection}/fields/${ref}`)).status, 200);
      }
    });

    it('deletes a custom field: 204 with no body, then 404 and gone from the collection', async () => {
      const field = await createField(h, c.id, { type: 'field/geo', name: 'Location' });
      const res = await h.delete(`/v0/collections/${c.ref}/fields/location`);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.equal((await h.get(`/v0/collections/${c.id}/fields/${field.id}`)).status, 404);
      assert.ok(!(await h.get(`/v0/collections/${c.id}`)).body.fields.some((f: any) => f.id === field.id));
      assert.equal((await h.delete(`/v0/collections/${c.id}/fields/${field.id}`)).status, 404);
    });

    it("deleting a field removes its values from items and keeps the others'", async () => {
      const doomed = await createField(h, c.id, { type: 'field/text/single_line', name: 'Doomed' });
      const kept = await createField(h, c.id, { type: 'field/text/single_line', name: 'Kept' });
      const item = await insertItem(h, c.id, { [doomed.id]: ['bye'], [kept.id]: ['stay'] });
      const res = await h.delete(`/v0/collections/${c.id}/fields/${doomed.id}`);
      assert.equal(res.status, 204);
      assert.deepEqual(await itemValues(h, item), { [kept.id]: ['stay'] });
    });

    it('deleting a stage field leaves its funnel in place', async () => {
      const field = await createField(h, c.id, { type: 'field/stage', name: 'Step', stages: [{ name: 'Open', step_type: 'active' }] });
      assert.equal((await h.delete(`/v0/collections/${c.id}/fields/${field.id}`)).status, 204);
      assert.equal((await h.get(`/v0/funnels/${field.funnel.id}`)).status, 200);
      // …and, no longer used, the funnel can now be deleted.
      assert.equal((await h.delete(`/v0/funnels/${field.funnel.id}`)).status, 204);
    });
  });

  describe(`field updates: constraints against existing items (${engine})`, () => {
    let h: Harness;
    let c: any;
    before(async () => {
      h = await createHarness(engine);
      c = await createCollection(h, 'Constrained');
    });
    after(() => h.close());

    const url = (field: any) => `/v0/collections/${c.id}/fields/${field.id}`;
    const text = (name: string, extra: Record<string, unknown> = {}) =>
      createField(h, c.id, { type: 'field/text/single_line', name, ...extra });

    it('refuses cardinality one while an item holds several values', async () => {
      const field = await text('Aliases', { cardinality: 'many' });
      await insertItem(h, c.id, { [field.id]: ['Ann', 'Annie'] });
      await insertItem(h, c.id, { [field.id]: ['Bob'] });
      const res = await h.patch(url(field), { type: 'field/text/single_line', name: 'Alias', cardinality: 'one' });
      assert.equal(res.status, 422);
      const error = errorOf(res);
      assert.equal(error.source?.pointer, '/cardinality');
      assert.match(error.detail ?? '', /\b1 item/);
      assert.deepEqual((await h.get(url(field))).body, field, 'nothing is half-applied');
    });

    it('allows cardinality one when every item holds at most one value', async () => {
      const field = await text('Nicknames', { cardinality: 'many' });
      await insertItem(h, c.id, { [field.id]: ['Ann'] });
      const res = await h.patch(url(field), { type: 'field/text/single_line', cardinality: 'one' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.cardinality, 'one');
    });

    it('refuses required while items lack a value, counting them', async () => {
      const fresh = await createCollection(h, 'Incomplete');
      const field = await createField(h, fresh.id, { type: 'field/text/single_line', name: 'Code' });
      const other = await createField(h, fresh.id, { type: 'field/text/single_line', name: 'Other' });
      await insertItem(h, fresh.id, { [field.id]: ['X1'] });
      await insertItem(h, fresh.id, { [other.id]: ['no code'] });
      await insertItem(h, fresh.id, {});
      const fieldUrl = `/v0/collections/${fresh.id}/fields/${field.id}`;
      const res = await h.patch(fieldUrl, { type: 'field/text/single_line', required: true, name: 'Required Code' });
      assert.equal(res.status, 422);
      const error = errorOf(res);
      assert.equal(error.source?.pointer, '/required');
      assert.match(error.detail ?? '', /\b2 item/);
      assert.deepEqual((await h.get(fieldUrl)).body, field);
    });

    it('refuses unique while two items share a value, case-insensitively', async () => {
      const field = await text('Company');
      await insertItem(h, c.id, { [field.id]: ['Acme'] });
      await insertItem(h, c.id, { [field.id]: ['acme'] });
      await insertItem(h, c.id, { [field.id]: ['Globex'] });
      const res = await h.patch(url(field), { type: 'field/text/single_line', unique: true });
      assert.equal(res.status, 422);
      const error = errorOf(res);
      assert.equal(error.source?.pointer, '/unique');
      assert.match(error.detail ?? '', /\b2 item/);
      assert.deepEqual((await h.get(url(field))).body, field);
    });

    it('allows unique when values are distinct', async () => {
      const field = await text('Handle');
      await insertItem(h, c.id, { [field.id]: ['Acme'] });
      await insertItem(h, c.id, { [field.id]: ['Initech'] });
      const res = await h.patch(url(field), { type: 'field/text/single_line', unique: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.unique, true);
    });

    it('allows required in a collection whose items all have a value', async () => {
      const fresh = await createCollection(h, 'Complete');
      const field = await createField(h, fresh.id, { type: 'field/text/single_line', name: 'Label' });
      await insertItem(h, fresh.id, { [field.id]: ['A'] });
      await insertItem(h, fresh.id, { [field.id]: ['B'] });
      const res = await h.patch(`/v0/collections/${fresh.id}/fields/${field.id}`, { type: 'field/text/single_line', required: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.required, true);
    });
  });
}

for (const engine of ENGINES) {
  describe(`PATCH reverse_field_name (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('is refused on a one_way relation, as on create', async () => {
      const created = await h.post('/v0/collections/people/fields', {
        type: 'field/relation',
        name: 'Employer',
        relation_type: 'one_way',
        allowed_collections: [{ type: 'collection', ref: 'organizations' }],
      });
      assert.equal(created.status, 201);
      const res = await h.patch(`/v0/collections/people/fields/${created.body.id}`, { type: 'field/relation', reverse_field_name: 'Staff' });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/reverse_field_name');
    });
  });
}
