import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { ID, TIMESTAMP, createCollection, createField, insertItem, itemValues } from '../helpers/fields.ts';

const T0 = Date.parse('2026-01-05T10:00:00.000Z');

const SALES_STEPS = [
  { name: 'Qualified', step_type: 'active', color: 'violet' },
  { name: 'Proposal', step_type: 'active', color: 'indigo' },
  { name: 'Won', step_type: 'success', color: 'emerald' },
  { name: 'Lost', step_type: 'failure', color: 'rose' },
];

function assertFunnel(funnel: any): void {
  assert.deepEqual(Object.keys(funnel).sort(), ['created_at', 'id', 'name', 'steps', 'type', 'updated_at']);
  assert.match(funnel.id, ID);
  assert.equal(funnel.type, 'funnel');
  assert.match(funnel.created_at, TIMESTAMP);
  assert.match(funnel.updated_at, TIMESTAMP);
  for (const step of funnel.steps) {
    assert.deepEqual(Object.keys(step).sort(), ['color', 'id', 'name', 'step_type', 'type']);
    assert.match(step.id, ID);
    assert.equal(step.type, 'funnel_step');
  }
}

for (const engine of ENGINES) {
  describe(`funnels: create, list, retrieve (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('creates a funnel with its steps in order', async () => {
      const res = await h.post('/v0/funnels', { name: 'Sales', steps: SALES_STEPS });
      assert.equal(res.status, 201, res.text);
      assertFunnel(res.body);
      assert.equal(res.body.name, 'Sales');
      assert.deepEqual(
        res.body.steps.map((s: any) => ({ name: s.name, step_type: s.step_type, color: s.color })),
        SALES_STEPS,
      );
      assert.equal(new Set(res.body.steps.map((s: any) => s.id)).size, 4);
    });

    it('creates a funnel without steps whether steps is omitted or [] (steps are optional, with no minimum)', async () => {
      for (const body of [{ name: 'Empty A' }, { name: 'Empty B', steps: [] }]) {
        const res = await h.post('/v0/funnels', body);
        assert.equal(res.status, 201, res.text);
        assert.deepEqual(res.body.steps, []);
        // The list tests below count this suite's funnels.
        assert.equal((await h.delete(`/v0/funnels/${res.body.id}`)).status, 204);
      }
    });

    it('gives steps without a colour the default colour of their step type', async () => {
      const res = await h.post('/v0/funnels', {
        name: 'Defaults',
        steps: [
          { name: 'Open', step_type: 'active' },
          { name: 'Won', step_type: 'success' },
          { name: 'Lost', step_type: 'failure' },
          { name: 'Also open', step_type: 'active', color: 'pink' },
        ],
      });
      assert.equal(res.status, 201);
      assert.deepEqual(res.body.steps.map((s: any) => s.color), ['blue', 'green', 'red', 'pink']);
    });

    it('retrieves a funnel', async () => {
      const created = (await h.post('/v0/funnels', { name: 'Retrieve me', steps: [{ name: 'A', step_type: 'active' }] })).body;
      const res = await h.get(`/v0/funnels/${created.id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, created);
    });

    it('lists funnels in the list envelope, in creation order', async () => {
      const res = await h.get('/v0/funnels');
      assert.equal(res.status, 200);
      assert.equal(res.body.type, 'list');
      assert.deepEqual(res.body.meta, { cursors: {} });
      assert.deepEqual(res.body.data.map((f: any) => f.name), ['Sales', 'Defaults', 'Retrieve me']);
      for (const funnel of res.body.data) assertFunnel(funnel);
      const one = await h.get(`/v0/funnels/${res.body.data[0].id}`);
      assert.deepEqual(res.body.data[0], one.body);
    });

    it('pages with limit and meta.cursors.next', async () => {
      const seen: string[] = [];
      let url = '/v0/funnels?limit=1';
      for (let page = 0; page < 10; page++) {
        const res = await h.get(url);
        assert.equal(res.status, 200, res.text);
        assert.ok(res.body.data.length <= 1);
        seen.push(...res.body.data.map((f: any) => f.name));
        if (page === 0) assert.equal(typeof res.body.meta.cursors.next, 'string');
        if (page > 0) assert.equal(typeof res.body.meta.cursors.prev, 'string');
        const next = res.body.meta.cursors.next;
        if (next === undefined) break;
        url = `/v0/funnels?limit=1&after=${encodeURIComponent(next)}`;
      }
      assert.deepEqual(seen, ['Sales', 'Defaults', 'Retrieve me']);
    });

    it('lists the funnels that stage fields created from stages', async () => {
      const c = await createCollection(h, 'Deals board');
      const field = await createField(h, c.id, { type: 'field/stage', name: 'Board Stage', stages: [{ name: 'Open', step_type: 'active' }] });
      const list = (await h.get('/v0/funnels?limit=100')).body.data;
      assert.ok(list.some((f: any) => f.id === field.funnel.id));
    });

    it('rejects a blank or missing name', async () => {
      for (const body of [{ name: '  ' }, { steps: [{ name: 'A', step_type: 'active' }] }]) {
        const res = await h.post('/v0/funnels', body);
        assert.equal(res.status, 422);
        assert.equal(errorOf(res).source?.pointer, '/name');
      }
    });

    it('rejects a bad step_type, a bad colour and a blank step name, pointing at the step', async () => {
      const cases: [unknown, string][] = [
        [{ name: 'A', step_type: 'done' }, '/steps/1/step_type'],
        [{ name: 'A', step_type: 'active', color: 'grey' }, '/steps/1/color'],
        [{ name: ' ', step_type: 'active' }, '/steps/1/name'],
      ];
      for (const [bad, pointer] of cases) {
        const res = await h.post('/v0/funnels', { name: 'Bad', steps: [{ name: 'Fine', step_type: 'active' }, bad] });
        assert.equal(res.status, 422, JSON.stringify(bad));
        assert.equal(errorOf(res).source?.pointer, pointer);
      }
      assert.ok(!(await h.get('/v0/funnels?limit=100')).body.data.some((f: any) => f.name === 'Bad'));
    });

    it('answers 400 to a body that is not an object', async () => {
      const res = await h.post('/v0/funnels', ['Sales']);
      assert.equal(res.status, 400);
      errorOf(res);
    });
  });

  describe(`funnels: update and delete (${engine})`, () => {
    let h: Harness;
    let now = T0;
    before(async () => {
      h = await createHarness(engine, { clock: () => new Date(now) });
    });
    after(() => h.close());

    const create = async (name = 'Sales') => {
      const res = await h.post('/v0/funnels', { name, steps: SALES_STEPS });
      assert.equal(res.status, 201);
      return res.body;
    };

    it('renames, keeping steps and created_at, moving updated_at', async () => {
      now = T0;
      const funnel = await create();
      now = T0 + 5_000;
      const res = await h.patch(`/v0/funnels/${funnel.id}`, { name: 'Enterprise sales' });
      assert.equal(res.status, 200);
      assert.equal(res.body.name, 'Enterprise sales');
      assert.deepEqual(res.body.steps, funnel.steps);
      assert.equal(res.body.created_at, '2026-01-05T10:00:00.000Z');
      assert.equal(res.body.updated_at, '2026-01-05T10:00:05.000Z');
      assert.deepEqual((await h.get(`/v0/funnels/${funnel.id}`)).body, res.body);
    });

    it('rejects a blank name on update', async () => {
      const funnel = await create('Keep name');
      const res = await h.patch(`/v0/funnels/${funnel.id}`, { name: '' });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/name');
      assert.equal((await h.get(`/v0/funnels/${funnel.id}`)).body.name, 'Keep name');
    });

    it('replaces steps: ids kept for entries with id, new ids for new ones, dropped ones gone', async () => {
      const funnel = await create();
      const [qualified, proposal, won, lost] = funnel.steps;
      const res = await h.patch(`/v0/funnels/${funnel.id}`, {
        steps: [
          { id: qualified.id, name: 'Discovery', step_type: 'active', color: 'cyan' },
          { name: 'Negotiation', step_type: 'active' },
          { id: won.id, name: 'Won', step_type: 'success' },
          { id: lost.id, name: 'Lost', step_type: 'failure', color: 'orange' },
        ],
      });
      assert.equal(res.status, 200, res.text);
      const steps = res.body.steps;
      assert.deepEqual(steps.map((s: any) => s.name), ['Discovery', 'Negotiation', 'Won', 'Lost']);
      assert.deepEqual(steps[0], { id: qualified.id, type: 'funnel_step', name: 'Discovery', step_type: 'active', color: 'cyan' });
      assert.match(steps[1].id, ID);
      assert.ok(![qualified.id, proposal.id, won.id, lost.id].includes(steps[1].id));
      assert.equal(steps[1].color, 'blue');
      assert.deepEqual(steps[2], won, 'an entry with id and no colour keeps the colour');
      assert.equal(steps[3].id, lost.id);
      assert.equal(steps[3].color, 'orange');
      assert.ok(!steps.some((s: any) => s.id === proposal.id), 'the step left out is dropped');
      assert.deepEqual((await h.get(`/v0/funnels/${funnel.id}`)).body.steps, steps);
    });

    it('keeps the steps when steps is omitted', async () => {
      const funnel = await create();
      const res = await h.patch(`/v0/funnels/${funnel.id}`, { name: 'Only the name' });
      assert.deepEqual(res.body.steps, funnel.steps);
    });

    it('steps [] removes every step', async () => {
      const funnel = await create();
      const res = await h.patch(`/v0/funnels/${funnel.id}`, { steps: [] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.steps, []);
      assert.deepEqual((await h.get(`/v0/funnels/${funnel.id}`)).body.steps, []);
    });

    it('rejects a step id that is not a step of the funnel, changing nothing', async () => {
      const funnel = await create();
      const other = await create('Other');
      for (const id of ['1111111111111111111111', other.steps[0].id]) {
        const res = await h.patch(`/v0/funnels/${funnel.id}`, { name: 'Changed', steps: [{ id, name: 'Ghost', step_type: 'active' }] });
        assert.equal(res.status, 422);
        assert.equal(errorOf(res).source?.pointer, '/steps/0/id');
      }
      assert.deepEqual((await h.get(`/v0/funnels/${funnel.id}`)).body, funnel);
    });

    it('rejects the same step id twice', async () => {
      const funnel = await create();
      const id = funnel.steps[0].id;
      const res = await h.patch(`/v0/funnels/${funnel.id}`, {
        steps: [{ id, name: 'A', step_type: 'active' }, { id, name: 'B', step_type: 'active' }],
      });
      assert.equal(res.status, 422);
      assert.equal(errorOf(res).source?.pointer, '/steps/1/id');
    });

    it("shows the updated funnel on the stage fields that use it, in the collection's retrieve too", async () => {
      const funnel = await create('Shared');
      const c = await createCollection(h, 'Boards');
      const field = await createField(h, c.id, { type: 'field/stage', name: 'Lane', funnel: { type: 'funnel', id: funnel.id } });
      const shownIn = async () => (await h.get(`/v0/collections/${c.id}`)).body.fields.find((f: any) => f.id === field.id).funnel;
      // The collection's retrieve keeps what its fields show while the schema is unchanged: read it before.
      assert.deepEqual(await shownIn(), funnel);
      const updated = (await h.patch(`/v0/funnels/${funnel.id}`, { name: 'Shared v2', steps: [{ id: funnel.steps[2].id, name: 'Done', step_type: 'success' }] })).body;
      assert.deepEqual((await h.get(`/v0/collections/${c.id}/fields/${field.id}`)).body.funnel, updated);
      assert.deepEqual(await shownIn(), updated);
    });

    it('dropping a step removes it from the items that were in it', async () => {
      const funnel = await create('Tracked');
      const [qualified, proposal] = funnel.steps;
      const c = await createCollection(h, 'Tracked deals');
      const field = await createField(h, c.id, { type: 'field/stage', name: 'Stage', funnel: { type: 'funnel', id: funnel.id } });
      const inProposal = await insertItem(h, c.id, { [field.id]: [{ id: proposal.id }] });
      const inQualified = await insertItem(h, c.id, { [field.id]: [{ id: qualified.id }] });
      const res = await h.patch(`/v0/funnels/${funnel.id}`, { steps: [{ id: qualified.id, name: 'Qualified', step_type: 'active' }] });
      assert.equal(res.status, 200, res.text);
      assert.equal((await itemValues(h, inProposal))[field.id], undefined);
      assert.deepEqual((await itemValues(h, inQualified))[field.id], [{ id: qualified.id }]);
    });

    it('deletes an unused funnel: 204 with no body, then 404', async () => {
      const funnel = await create('Doomed');
      const res = await h.delete(`/v0/funnels/${funnel.id}`);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.equal((await h.get(`/v0/funnels/${funnel.id}`)).status, 404);
      assert.ok(!(await h.get('/v0/funnels?limit=100')).body.data.some((f: any) => f.id === funnel.id));
      assert.equal((await h.delete(`/v0/funnels/${funnel.id}`)).status, 404);
    });

    it('refuses to delete a funnel a stage field uses', async () => {
      const funnel = await create('In use');
      const c = await createCollection(h, 'Users of funnels');
      await createField(h, c.id, { type: 'field/stage', name: 'Pipeline Stage', funnel: { type: 'funnel', id: funnel.id } });
      const res = await h.delete(`/v0/funnels/${funnel.id}`);
      assert.equal(res.status, 422);
      const error = errorOf(res);
      assert.match(error.detail ?? '', /pipeline_stage/);
      const still = await h.get(`/v0/funnels/${funnel.id}`);
      assert.equal(still.status, 200);
      assert.deepEqual(still.body, funnel);
    });

    it('refuses to delete the funnel a stage field created from stages', async () => {
      const c = await createCollection(h, 'Own funnels');
      const field = await createField(h, c.id, { type: 'field/stage', name: 'Own Stage', stages: [{ name: 'Open', step_type: 'active' }] });
      assert.equal((await h.delete(`/v0/funnels/${field.funnel.id}`)).status, 422);
      assert.equal((await h.get(`/v0/funnels/${field.funnel.id}`)).status, 200);
    });
  });
}
