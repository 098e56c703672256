// Tagsets through HTTP (seed §2.5, §4.6; reference §5.9): the tagset and tag shapes, tag order and default
// colour, tag validation, the `associations` extension (calls, meetings, an inbox by id), listing with keyset
// pages, retrieval, updates (tags as a full replacement list), deletion, and organization isolation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertBareNotFound, ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { assertInvalid, walkForward } from '../helpers/items.ts';
import { createInbox } from '../../src/domain/inboxes.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ID = /^[1-9A-HJ-NP-Za-km-z]{22}$/;

async function makeTagset(h: Harness, body: Record<string, unknown>, key?: string): Promise<any> {
  const res = await h.post('/v0/tagsets', body, key ? { key } : {});
  assert.equal(res.status, 201, res.text);
  return res.body;
}


for (const engine of ENGINES) {
  describe(`tagsets: create and validate (${engine})`, () => {
    let h: Harness;
    let inboxId: string;
    before(async () => {
      h = await createHarness(engine);
      inboxId = (await createInbox(h.store, h.orgId, { name: 'Support', email: 'support@example.com' })).id;
    });
    after(() => h.close());

    it('creates a tagset: 201 with the tagset shape, tags in the order given, a missing colour becomes lunar', async () => {
      const res = await h.post('/v0/tagsets', {
        name: '  Priority ',
        description: 'How urgent',
        tags: [
          { name: 'High', color: 'red' },
          { name: 'Medium' },
          { name: 'Low', color: 'sky' },
        ],
      });
      assert.equal(res.status, 201, res.text);
      const t = res.body;
      assert.match(t.id, ID);
      assert.equal(t.type, 'tagset');
      assert.equal(t.name, 'Priority');
      assert.equal(t.description, 'How urgent');
      assert.match(t.created_at, ISO_MS);
      assert.equal(t.updated_at, t.created_at);
      assert.deepEqual(t.associations, []);
      assert.deepEqual(
        t.tags.map((tag: any) => [tag.type, tag.name, tag.color]),
        [
          ['tag', 'High', 'red'],
          ['tag', 'Medium', 'lunar'],
          ['tag', 'Low', 'sky'],
        ],
      );
      for (const tag of t.tags) {
        assert.match(tag.id, ID);
        assert.deepEqual(Object.keys(tag).sort(), ['color', 'id', 'name', 'type']);
      }
      assert.equal(new Set(t.tags.map((tag: any) => tag.id)).size, 3);
      assert.deepEqual(
        Object.keys(t).sort(),
        ['associations', 'created_at', 'description', 'id', 'name', 'tags', 'type', 'updated_at'],
      );
    });

    it('a tagset without tags or description has tags: [] and no description key', async () => {
      const t = await makeTagset(h, { name: 'Empty' });
      assert.deepEqual(t.tags, []);
      assert.equal('description' in t, false);
      const blank = await makeTagset(h, { name: 'Blank description', description: '   ' });
      assert.equal('description' in blank, false);
    });

    it('a colour outside the palette → 422 pointing at /tags/<i>/color', async () => {
      const res = await h.post('/v0/tagsets', { name: 'Colours', tags: [{ name: 'A', color: 'red' }, { name: 'B', color: 'mauve' }] });
      assertInvalid(res, '/tags/1/color');
      assert.equal(errorOf(res).title, 'Unprocessable Entity');
    });

    it('a blank tag name → 422 pointing at /tags/<i>/name', async () => {
      assertInvalid(await h.post('/v0/tagsets', { name: 'Blank tag', tags: [{ name: '  ' }] }), '/tags/0/name');
    });

    it('a tag name given twice (case-insensitively) → 422 pointing at the second', async () => {
      const res = await h.post('/v0/tagsets', { name: 'Twice', tags: [{ name: 'Hot' }, { name: 'Cold' }, { name: 'hot ' }] });
      const detail = assertInvalid(res, '/tags/2/name');
      assert.match(detail, /twice|distinct/);
    });

    it('a blank or missing tagset name → 422 pointing at /name', async () => {
      assertInvalid(await h.post('/v0/tagsets', { name: '   ' }), '/name');
      assertInvalid(await h.post('/v0/tagsets', { tags: [] }), '/name');
    });

    it('echoes associations with calls, meetings and an inbox; duplicates collapse', async () => {
      const t = await makeTagset(h, {
        name: 'Everywhere',
        associations: [{ type: 'calls' }, { type: 'meetings' }, { type: 'inbox', id: inboxId }, { type: 'calls' }, { type: 'inbox', id: inboxId }],
      });
      assert.deepEqual(t.associations, [{ type: 'calls' }, { type: 'meetings' }, { type: 'inbox', id: inboxId }]);
      assert.deepEqual((await h.get(`/v0/tagsets/${t.id}`)).body.associations, t.associations);
    });

    it('an unknown inbox id, or an inbox association without id → 422 pointing at /associations/<i>/id', async () => {
      const res = await h.post('/v0/tagsets', { name: 'Nowhere', associations: [{ type: 'calls' }, { type: 'inbox', id: 'no_such_inbox' }] });
      const detail = assertInvalid(res, '/associations/1/id');
      assert.match(detail, /no_such_inbox/);
      assertInvalid(await h.post('/v0/tagsets', { name: 'Nowhere', associations: [{ type: 'inbox' }] }), '/associations/0/id');
      // Nothing was created by the failed requests.
      const names = (await h.get('/v0/tagsets?limit=100')).body.data.map((t: any) => t.name);
      assert.equal(names.includes('Nowhere'), false);
    });

    it("another organization's inbox is an unknown inbox → 422", async () => {
      const other = await h.newOrg();
      const theirs = await createInbox(h.store, other.orgId, { name: 'Theirs', email: 'theirs@example.com' });
      assertInvalid(await h.post('/v0/tagsets', { name: 'Foreign', associations: [{ type: 'inbox', id: theirs.id }] }), '/associations/0/id');
      // …while their own key may use it.
      const t = await makeTagset(h, { name: 'Foreign', associations: [{ type: 'inbox', id: theirs.id }] }, other.key);
      assert.deepEqual(t.associations, [{ type: 'inbox', id: theirs.id }]);
    });

    it('an unknown association type → 422 pointing at /associations/<i>/type', async () => {
      const res = await h.post('/v0/tagsets', { name: 'Odd', associations: [{ type: 'meetings' }, { type: 'call' }] });
      assertInvalid(res, '/associations/1/type');
    });
  });

  describe(`tagsets: list, retrieve, update, delete (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('lists tagsets in a list envelope, in creation order; limit=1 walks every page through next', async () => {
      const made = [];
      for (const name of ['One', 'Two', 'Three']) made.push(await makeTagset(h, { name, tags: [{ name: `${name} tag` }] }));
      const res = await h.get('/v0/tagsets');
      assert.equal(res.status, 200);
      assert.equal(res.body.type, 'list');
      assert.deepEqual(res.body.meta, { cursors: {} });
      assert.deepEqual(res.body.data, made);

      const pages = await walkForward((query) => h.get(`/v0/tagsets?limit=1${query ? `&${query}` : ''}`));
      assert.equal(pages.length, 3);
      assert.deepEqual(pages.map((p) => p.data.map((t: any) => t.id)), made.map((t) => [t.id]));
      assert.equal(pages[0].meta.cursors.prev, undefined);
      assert.equal(typeof pages[1].meta.cursors.prev, 'string');
    });

    it('retrieves a tagset by id; an unknown id → 404 without detail', async () => {
      const t = await makeTagset(h, { name: 'Stage', description: 'Pipeline', tags: [{ name: 'New', color: 'blue' }] });
      const res = await h.get(`/v0/tagsets/${t.id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, t);
      assertBareNotFound(await h.get('/v0/tagsets/1ChFLYDsNehG6QDPrqx815'));
      assertBareNotFound(await h.get('/v0/tagsets/nope'));
    });

    it('PATCH renames and re-describes; description null clears it (omitted); updated_at moves, created_at stays', async () => {
      const t = await makeTagset(h, { name: 'Old name', description: 'Old description', tags: [{ name: 'Keep', color: 'teal' }] });
      await new Promise((r) => setTimeout(r, 5));
      const renamed = await h.patch(`/v0/tagsets/${t.id}`, { name: ' New name ', description: 'New description' });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.body.name, 'New name');
      assert.equal(renamed.body.description, 'New description');
      assert.deepEqual(renamed.body.tags, t.tags, 'tags untouched when not sent');
      assert.equal(renamed.body.created_at, t.created_at);
      assert.ok(renamed.body.updated_at > t.updated_at, `${renamed.body.updated_at} > ${t.updated_at}`);

      const cleared = await h.patch(`/v0/tagsets/${t.id}`, { description: null });
      assert.equal(cleared.status, 200);
      assert.equal('description' in cleared.body, false);
      assert.equal(cleared.body.name, 'New name');
      const fetched = (await h.get(`/v0/tagsets/${t.id}`)).body;
      assert.equal('description' in fetched, false);
      assert.equal(fetched.name, 'New name');
    });

    it('PATCH with a blank name → 422 /name, and the tagset is unchanged', async () => {
      const t = await makeTagset(h, { name: 'Steady' });
      assertInvalid(await h.patch(`/v0/tagsets/${t.id}`, { name: '  ' }), '/name');
      assert.equal((await h.get(`/v0/tagsets/${t.id}`)).body.name, 'Steady');
    });

    it('PATCH tags is a full replacement: an id keeps the tag (updated), no id is new, missing tags are removed', async () => {
      const t = await makeTagset(h, {
        name: 'Temperature',
        tags: [
          { name: 'Hot', color: 'red' },
          { name: 'Warm', color: 'orange' },
          { name: 'Cold', color: 'blue' },
        ],
      });
      const [hot, warm, cold] = t.tags;
      const res = await h.patch(`/v0/tagsets/${t.id}`, {
        tags: [
          { id: cold.id, name: 'Freezing', color: 'cyan' },
          { name: 'Tepid', color: 'yellow' },
          { id: hot.id, name: 'Hot' },
        ],
      });
      assert.equal(res.status, 200, res.text);
      const tags = res.body.tags;
      assert.deepEqual(
        tags.map((tag: any) => [tag.name, tag.color]),
        [
          ['Freezing', 'cyan'],
          ['Tepid', 'yellow'],
          ['Hot', 'red'],
        ],
      );
      assert.equal(tags[0].id, cold.id);
      assert.equal(tags[2].id, hot.id);
      assert.match(tags[1].id, ID);
      assert.ok(![hot.id, warm.id, cold.id].includes(tags[1].id), 'a tag without id is new');
      assert.equal(tags.some((tag: any) => tag.id === warm.id), false, 'the missing tag is removed');
      assert.deepEqual((await h.get(`/v0/tagsets/${t.id}`)).body.tags, tags);

      const emptied = await h.patch(`/v0/tagsets/${t.id}`, { tags: [] });
      assert.equal(emptied.status, 200);
      assert.deepEqual(emptied.body.tags, []);
    });

    it('PATCH tags with an unknown tag id → 422 /tags/<i>/id, and the tags are unchanged', async () => {
      const t = await makeTagset(h, { name: 'Sizes', tags: [{ name: 'S' }, { name: 'M' }] });
      const other = await makeTagset(h, { name: 'Other', tags: [{ name: 'X' }] });
      assertInvalid(await h.patch(`/v0/tagsets/${t.id}`, { tags: [{ id: 'not_a_tag', name: 'S' }] }), '/tags/0/id');
      // A tag of another tagset is not a tag of this one.
      assertInvalid(await h.patch(`/v0/tagsets/${t.id}`, { tags: [{ name: 'S' }, { id: other.tags[0].id, name: 'X' }] }), '/tags/1/id');
      assert.deepEqual((await h.get(`/v0/tagsets/${t.id}`)).body.tags, t.tags);
    });

    it('PATCH tags validates like create: bad colour, blank and duplicate names', async () => {
      const t = await makeTagset(h, { name: 'Checked', tags: [{ name: 'A' }] });
      assertInvalid(await h.patch(`/v0/tagsets/${t.id}`, { tags: [{ name: 'A', color: 'beige' }] }), '/tags/0/color');
      assertInvalid(await h.patch(`/v0/tagsets/${t.id}`, { tags: [{ name: 'A' }, { name: '' }] }), '/tags/1/name');
      assertInvalid(await h.patch(`/v0/tagsets/${t.id}`, { tags: [{ name: 'A' }, { name: 'a' }] }), '/tags/1/name');
    });

    it('PATCH associations replaces them and validates inbox ids', async () => {
      const inbox = await createInbox(h.store, h.orgId, { name: 'Sales', email: 'sales@example.com' });
      const t = await makeTagset(h, { name: 'Moving', associations: [{ type: 'calls' }] });
      const res = await h.patch(`/v0/tagsets/${t.id}`, { associations: [{ type: 'inbox', id: inbox.id }, { type: 'meetings' }] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.associations, [{ type: 'inbox', id: inbox.id }, { type: 'meetings' }]);
      assertInvalid(await h.patch(`/v0/tagsets/${t.id}`, { associations: [{ type: 'inbox', id: 'missing' }] }), '/associations/0/id');
      assertInvalid(await h.patch(`/v0/tagsets/${t.id}`, { associations: [{ type: 'emails' }] }), '/associations/0/type');
      assert.deepEqual((await h.get(`/v0/tagsets/${t.id}`)).body.associations, res.body.associations);
    });

    it('PATCH of an unknown tagset → 404 without detail', async () => {
      assertBareNotFound(await h.patch('/v0/tagsets/1ChFLYDsNehG6QDPrqx815', { name: 'Ghost' }));
    });

    it('DELETE → 204 with an empty body; then GET and DELETE → 404 without detail, and the list omits it', async () => {
      const t = await makeTagset(h, { name: 'Doomed', tags: [{ name: 'Soon' }] });
      const res = await h.delete(`/v0/tagsets/${t.id}`);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assertBareNotFound(await h.get(`/v0/tagsets/${t.id}`));
      assertBareNotFound(await h.delete(`/v0/tagsets/${t.id}`));
      assertBareNotFound(await h.patch(`/v0/tagsets/${t.id}`, { name: 'Back' }));
      const ids = (await h.get('/v0/tagsets?limit=100')).body.data.map((x: any) => x.id);
      assert.equal(ids.includes(t.id), false);
    });
  });
}
