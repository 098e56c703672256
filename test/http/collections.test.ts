import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_KEY, ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';

for (const engine of ENGINES) {
  describe(`collections (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('lists the four system collections, each with its fields as a retrieve shows them (the TypeScript SDK reads them)', async () => {
      const res = await h.get('/v0/collections');
      assert.equal(res.status, 200);
      assert.equal(res.body.type, 'list');
      assert.deepEqual(res.body.meta, { cursors: {} });
      const refs = res.body.data.map((c: any) => c.ref);
      assert.deepEqual(refs, ['people', 'organizations', 'deals', 'tasks']);
      for (const c of res.body.data) {
        assert.equal(c.type, 'collection');
        assert.equal(c.kind, 'system');
        assert.equal(typeof c.icon_name, 'string');
        assert.match(c.id, /^[1-9A-HJ-NP-Za-km-z]{22}$/);
        assert.match(c.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.deepEqual(c, (await h.get(`/v0/collections/${c.id}`)).body);
        assert.ok(c.fields.some((f: any) => f.ref === 'name'));
      }
    });

    it('creates a custom collection with its three system fields, and a unique ref', async () => {
      const res = await h.post('/v0/collections', { name: 'Lead Sources!', description: 'Where leads come from' });
      assert.equal(res.status, 201);
      assert.equal(res.body.ref, 'lead_sources');
      assert.equal(res.body.kind, 'custom');
      assert.equal(res.body.description, 'Where leads come from');
      assert.deepEqual(
        res.body.fields.map((f: any) => [f.ref, f.type, f.kind, f.readonly]),
        [
          ['name', 'field/text/single_line', 'system', false],
          ['created_at', 'field/datetime', 'system', true],
          ['updated_at', 'field/datetime', 'system', true],
        ],
      );
      const again = await h.post('/v0/collections', { name: 'lead sources' });
      assert.equal(again.body.ref, 'lead_sources_2');
    });

    it('retrieves by id and by ref; renames keep the ref', async () => {
      const created = (await h.post('/v0/collections', { name: 'Leads' })).body;
      const byRef = await h.get('/v0/collections/leads');
      assert.equal(byRef.status, 200);
      assert.equal(byRef.body.id, created.id);
      const renamed = await h.patch(`/v0/collections/${created.id}`, { name: 'Hot Leads' });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.name, 'Hot Leads');
      assert.equal(renamed.body.ref, 'leads');
      assert.equal((await h.get('/v0/collections/leads')).body.name, 'Hot Leads');
    });

    it('an unknown collection, or another organization\'s, is 404 in the errors envelope', async () => {
      const res = await h.get('/v0/collections/unknown');
      assert.equal(res.status, 404, res.text);
      assert.equal(errorOf(res).status, '404');
      const other = await h.post('/v0/tycho/admin/sandboxes', {}, { key: ADMIN_KEY });
      assert.equal(other.status, 201, other.text);
      const theirs = await h.post('/v0/collections', { name: 'Private' }, { key: other.body.api_key });
      assert.equal(theirs.status, 201, theirs.text);
      assert.equal((await h.get(`/v0/collections/${theirs.body.id}`)).status, 404);
      assert.equal((await h.get(`/v0/collections/${theirs.body.id}`, { key: other.body.api_key })).status, 200);
    });

    it('rejects a blank name with a pointer', async () => {
      const res = await h.post('/v0/collections', { name: '   ' });
      assert.equal(res.status, 422);
      const error = errorOf(res);
      assert.equal(error.title, 'Unprocessable Entity');
      assert.equal(error.source?.pointer, '/name');
    });
  });
}
