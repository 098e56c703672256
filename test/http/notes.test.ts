// Notes through HTTP (seed §4.8; reference §5.17): the note shape, the title taken from a leading heading,
// body validation, associations (items expanded with their collection; calls and meetings as pointers;
// unknown ones and foreign items refused), the `activity/note_created` written with each creation, optimistic locking on PATCH,
// listing, retrieval, permanent deletion and organization isolation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertBareNotFound, ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { assertInvalid, makeItem, text, walkForward, collectionPointer, type CollectionPointer } from '../helpers/items.ts';
import { activitiesOf } from '../helpers/activities.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ID = /^[1-9A-HJ-NP-Za-km-z]{22}$/;
const UNKNOWN_ID = '1ChFLYDsNehG6QDPrqx815';

async function makeNote(h: Harness, body: Record<string, unknown>, key?: string): Promise<any> {
  const res = await h.post('/v0/notes', body, key ? { key } : {});
  assert.equal(res.status, 201, res.text);
  return res.body;
}



for (const engine of ENGINES) {
  describe(`notes: create, title, validation, activity (${engine})`, () => {
    let h: Harness;
    let people: CollectionPointer;
    let ada: any;
    let grace: any;
    let acme: any;
    let companies: CollectionPointer;
    before(async () => {
      h = await createHarness(engine);
      ada = await makeItem(h, 'people', { name: text('Ada Lovelace') });
      grace = await makeItem(h, 'people', { name: text('Grace Hopper') });
      acme = await makeItem(h, 'organizations', { name: text('Acme') });
      people = await collectionPointer(h, 'people');
      companies = await collectionPointer(h, 'organizations');
    });
    after(() => h.close());

    it('creates a note: 201, title from the leading heading, lock_version 0, associations expanded, creator null', async () => {
      const res = await h.post('/v0/notes', { body: { markdown: '# Call notes\nText' }, associations: [{ type: 'item', id: ada.id }] });
      assert.equal(res.status, 201, res.text);
      const n = res.body;
      assert.match(n.id, ID);
      assert.equal(n.type, 'note');
      assert.equal(n.title, 'Call notes');
      assert.deepEqual(n.body, { markdown: '# Call notes\nText' });
      assert.equal(n.lock_version, 0);
      assert.deepEqual(n.associations, [{ id: ada.id, type: 'item', collection: people }]);
      assert.equal(n.creator, null);
      assert.match(n.created_at, ISO_MS);
      assert.equal(n.updated_at, n.created_at);
      assert.deepEqual(
        Object.keys(n).sort(),
        ['associations', 'body', 'created_at', 'creator', 'id', 'lock_version', 'title', 'type', 'updated_at'],
      );
      const fetched = await h.get(`/v0/notes/${n.id}`);
      assert.equal(fetched.status, 200);
      assert.deepEqual(fetched.body, n);
    });

    it('associations default to []; items of several collections keep their order; a repeated item collapses', async () => {
      const bare = await makeNote(h, { body: { markdown: 'Just text' } });
      assert.deepEqual(bare.associations, []);
      const many = await makeNote(h, {
        body: { markdown: 'Met both' },
        associations: [
          { type: 'item', id: acme.id },
          { type: 'item', id: grace.id },
          { type: 'item', id: acme.id },
        ],
      });
      assert.deepEqual(many.associations, [
        { id: acme.id, type: 'item', collection: companies },
        { id: grace.id, type: 'item', collection: people },
      ]);
    });

    it('takes the title from a leading heading of any level, after blank lines; otherwise omits title', async () => {
      assert.equal((await makeNote(h, { body: { markdown: '\n\n## Weekly sync ##\nbody' } })).title, 'Weekly sync');
      assert.equal((await makeNote(h, { body: { markdown: '### Third level' } })).title, 'Third level');
      for (const markdown of ['No heading here\n# Later heading', '#hashtag is not a heading', 'Plain text']) {
        const n = await makeNote(h, { body: { markdown } });
        assert.equal('title' in n, false, `${JSON.stringify(markdown)} → ${JSON.stringify(n)}`);
        assert.equal(n.body.markdown, markdown);
      }
    });

    it('accepts the body as a plain markdown string', async () => {
      const n = await makeNote(h, { body: '# From a string\nmore' });
      assert.deepEqual(n.body, { markdown: '# From a string\nmore' });
      assert.equal(n.title, 'From a string');
    });

    it('an empty or blank body → 422 pointing at the body', async () => {
      assertInvalid(await h.post('/v0/notes', { body: { markdown: '' } }), '/body/markdown');
      assertInvalid(await h.post('/v0/notes', { body: { markdown: ' \n\t ' } }), '/body/markdown');
      assertInvalid(await h.post('/v0/notes', { body: '   ' }), '/body');
      assertInvalid(await h.post('/v0/notes', { body: { text: 'wrong key' } }), '/body');
      assertInvalid(await h.post('/v0/notes', { associations: [] }), '/body');
    });

    it('an unknown item id → 422 pointing at /associations/<i>/id', async () => {
      const res = await h.post('/v0/notes', { body: { markdown: 'x' }, associations: [{ type: 'item', id: ada.id }, { type: 'item', id: UNKNOWN_ID }] });
      const detail = assertInvalid(res, '/associations/1/id');
      assert.match(detail, new RegExp(UNKNOWN_ID));
    });

    it('an unknown call or meeting → 422 at /associations/<i>/id; another type → 422 at /associations/<i>/type', async () => {
      assertInvalid(await h.post('/v0/notes', { body: { markdown: 'x' }, associations: [{ type: 'call', id: UNKNOWN_ID }] }), '/associations/0/id');
      assertInvalid(
        await h.post('/v0/notes', { body: { markdown: 'x' }, associations: [{ type: 'item', id: ada.id }, { type: 'meeting', id: UNKNOWN_ID }] }),
        '/associations/1/id',
      );
      assert.match(assertInvalid(await h.post('/v0/notes', { body: { markdown: 'x' }, associations: [{ type: 'file', id: UNKNOWN_ID }] }), '/associations/0/type'), /notes cannot be associated with a "file"; they can be associated with items/);
    });

    it("another organization's item → 422, and their key cannot associate ours either", async () => {
      const other = await h.newOrg();
      const theirs = await makeItem(h, 'people', { name: text('Their person') }, { key: other.key });
      assertInvalid(await h.post('/v0/notes', { body: { markdown: 'x' }, associations: [{ type: 'item', id: theirs.id }] }), '/associations/0/id');
      assertInvalid(
        await h.post('/v0/notes', { body: { markdown: 'x' }, associations: [{ type: 'item', id: ada.id }] }, { key: other.key }),
        '/associations/0/id',
      );
      const own = await makeNote(h, { body: { markdown: 'x' }, associations: [{ type: 'item', id: theirs.id }] }, other.key);
      assert.equal(own.associations[0].id, theirs.id);
    });

    it('records exactly one activity/note_created: no actor (a key is no entity), object the note, one target per item', async () => {
      const n = await makeNote(h, {
        body: { markdown: '# Intro\nAda met Acme' },
        associations: [{ type: 'item', id: ada.id }, { type: 'item', id: acme.id }],
      });
      const activities = await activitiesOf(h, 'note', n.id);
      assert.equal(activities.length, 1, JSON.stringify(activities));
      const [activity] = activities;
      assert.equal(activity.type, 'activity/note_created');
      assert.match(activity.id, ID);
      assert.equal(activity.occurred_at, n.created_at);
      assert.deepEqual(activity.constituents, [
        { type: 'constituent', relation: 'object', entity: { id: n.id, type: 'note' } },
        { type: 'constituent', relation: 'target', entity: { id: ada.id, type: 'item', collection: people } },
        { type: 'constituent', relation: 'target', entity: { id: acme.id, type: 'item', collection: companies } },
      ]);
      // The activity is found from the item side too, as a target.
      const fromItem = await activitiesOf(h, 'item', acme.id, '&constituent_relation[eq]=target&type[eq]=activity/note_created');
      assert.ok(fromItem.some((a) => a.id === activity.id));
      // And retrievable by id.
      const one = await h.get(`/v0/activities/${activity.id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body, activity);
    });

    it('a note without associations records a note_created with its object only', async () => {
      const n = await makeNote(h, { body: { markdown: 'Solo' } });
      const [activity, ...rest] = await activitiesOf(h, 'note', n.id);
      assert.deepEqual(rest, []);
      assert.equal(activity.type, 'activity/note_created');
      assert.deepEqual(activity.constituents.map((c: any) => c.relation), ['object']);
    });

    it('records one activity/item_mentioned per item the body links to: object the note, target the item', async () => {
      const n = await makeNote(h, {
        body: {
          markdown: `Met [@Ada](https://app.example.com/people/${ada.id}) and [Acme](item:${acme.id} "Acme"), [Ada again](<${ada.id}>); ` +
            `not [a note](https://example.com/notes/${UNKNOWN_ID}), nor ${grace.id} outside a link, nor [text](https://example.com/x${grace.id}).`,
        },
      });
      const mentions = await activitiesOf(h, 'note', n.id, '&type[eq]=activity/item_mentioned');
      assert.deepEqual(
        mentions.map((a) => a.constituents).sort((a, b) => a[1].entity.id.localeCompare(b[1].entity.id)),
        [ada, acme]
          .sort((a, b) => a.id.localeCompare(b.id))
          .map((item) => [
            { type: 'constituent', relation: 'object', entity: { id: n.id, type: 'note' } },
            { type: 'constituent', relation: 'target', entity: { id: item.id, type: 'item', collection: item.id === ada.id ? people : companies } },
          ]),
      );
      for (const a of mentions) assert.equal(a.occurred_at, n.created_at);
      // Found from the mentioned item's side too.
      assert.equal((await activitiesOf(h, 'item', ada.id, '&type[eq]=activity/item_mentioned')).filter((a) => mentions.some((m) => m.id === a.id)).length, 1);
      // Another organization's item is no mention.
      const other = await h.newOrg();
      const theirs = await makeNote(h, { body: `[Ada](item:${ada.id})` }, other.key);
      assert.deepEqual((await h.get(`/v0/activities?type[eq]=activity/item_mentioned&constituent_entity_type[eq]=note&constituent_entity_id[eq]=${theirs.id}`, { key: other.key })).body.data, []);
    });

    it('a refused note records no activity and creates nothing', async () => {
      const count = async () => (await h.get('/v0/activities?limit=100&type[eq]=activity/note_created')).body.data.length;
      const notes = async () => (await h.get('/v0/notes?limit=100')).body.data.length;
      const [beforeActivities, beforeNotes] = [await count(), await notes()];
      assert.equal((await h.post('/v0/notes', { body: { markdown: 'x' }, associations: [{ type: 'item', id: UNKNOWN_ID }] })).status, 422);
      assert.equal((await h.post('/v0/notes', { body: { markdown: '' } })).status, 422);
      assert.equal(await count(), beforeActivities);
      assert.equal(await notes(), beforeNotes);
    });

    it('PATCH does not record another activity', async () => {
      const n = await makeNote(h, { body: { markdown: 'v0' } });
      assert.equal((await h.patch(`/v0/notes/${n.id}`, { body: { markdown: 'v1' }, lock_version: 0 })).status, 200);
      assert.equal((await activitiesOf(h, 'note', n.id)).length, 1);
    });

    it('a read-only key cannot create a note (403)', async () => {
      const key = await h.readOnlyKey();
      const res = await h.post('/v0/notes', { body: { markdown: 'x' } }, { key });
      assert.equal(res.status, 403, res.text);
      assert.equal(errorOf(res).detail, undefined);
    });
  });

  describe(`notes: update with lock_version, list, retrieve, delete (${engine})`, () => {
    let h: Harness;
    let ada: any;
    before(async () => {
      h = await createHarness(engine);
      ada = await makeItem(h, 'people', { name: text('Ada Lovelace') });
    });
    after(() => h.close());

    it('deleting an item removes it from the associations of its notes; the notes and their other associations stay', async () => {
      const doomed = await makeItem(h, 'people', { name: text('Doomed') });
      const n = await makeNote(h, { body: 'about two people', associations: [{ type: 'item', id: doomed.id }, { type: 'item', id: ada.id }] });
      assert.equal((await h.delete(`/v0/collections/people/items/${doomed.id}`)).status, 204);
      const after = await h.get(`/v0/notes/${n.id}`);
      assert.equal(after.status, 200);
      assert.deepEqual(after.body.associations, [n.associations[1]]);
      const listed = (await h.get('/v0/notes?limit=100')).body.data.find((r: { id: string }) => r.id === n.id);
      assert.deepEqual(listed.associations, [n.associations[1]]);
      // The pointer is gone, so a PATCH naming the deleted item is refused like any unknown item.
      assertInvalid(await h.patch(`/v0/notes/${n.id}`, { body: 'x', lock_version: 0, associations: [{ type: 'item', id: doomed.id }] }), '/associations/0/id');
    });

    it('PATCH with the current lock_version → 200, lock_version + 1, body replaced and title recomputed', async () => {
      const n = await makeNote(h, { body: { markdown: '# First title\nv0' }, associations: [{ type: 'item', id: ada.id }] });
      await new Promise((r) => setTimeout(r, 5));
      const res = await h.patch(`/v0/notes/${n.id}`, { body: { markdown: '# Second title\nv1' }, lock_version: 0 });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.lock_version, 1);
      assert.equal(res.body.title, 'Second title');
      assert.deepEqual(res.body.body, { markdown: '# Second title\nv1' });
      assert.deepEqual(res.body.associations, n.associations, 'associations stay when not sent');
      assert.equal(res.body.created_at, n.created_at);
      assert.ok(res.body.updated_at > n.updated_at);
      assert.deepEqual((await h.get(`/v0/notes/${n.id}`)).body, res.body);

      const untitled = await h.patch(`/v0/notes/${n.id}`, { body: 'no heading any more', lock_version: 1 });
      assert.equal(untitled.status, 200, untitled.text);
      assert.equal(untitled.body.lock_version, 2);
      assert.equal('title' in untitled.body, false);
      assert.equal('title' in (await h.get(`/v0/notes/${n.id}`)).body, false);
    });

    it('PATCH may replace associations, validated like create', async () => {
      const n = await makeNote(h, { body: { markdown: 'x' }, associations: [{ type: 'item', id: ada.id }] });
      assertInvalid(await h.patch(`/v0/notes/${n.id}`, { body: 'y', lock_version: 0, associations: [{ type: 'item', id: UNKNOWN_ID }] }), '/associations/0/id');
      const kept = (await h.get(`/v0/notes/${n.id}`)).body;
      assert.equal(kept.lock_version, 0, 'a refused PATCH does not move lock_version');
      assert.equal(kept.body.markdown, 'x');
      const res = await h.patch(`/v0/notes/${n.id}`, { body: 'y', lock_version: 0, associations: [] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.associations, []);
    });

    it('a stale lock_version → 409 with x-should-retry: false, and the note is unchanged', async () => {
      const n = await makeNote(h, { body: { markdown: '# Original\nv0' } });
      assert.equal((await h.patch(`/v0/notes/${n.id}`, { body: { markdown: '# Winner\nv1' }, lock_version: 0 })).status, 200);
      const current = (await h.get(`/v0/notes/${n.id}`)).body;
      for (const stale of [0, 5]) {
        const res = await h.patch(`/v0/notes/${n.id}`, { body: { markdown: '# Loser\nv1' }, lock_version: stale });
        assert.equal(res.status, 409, res.text);
        assert.equal(res.headers['x-should-retry'], 'false');
        const error = errorOf(res);
        assert.equal(error.title, 'Conflict');
        assert.equal(typeof error.detail, 'string');
      }
      assert.deepEqual((await h.get(`/v0/notes/${n.id}`)).body, current);
      assert.equal(current.title, 'Winner');
      assert.equal(current.lock_version, 1);
    });

    it('concurrent PATCHes with the same lock_version: exactly one wins, the others → 409', async () => {
      const n = await makeNote(h, { body: { markdown: 'race' } });
      const results = await Promise.all(
        [1, 2, 3, 4, 5].map((i) => h.patch(`/v0/notes/${n.id}`, { body: { markdown: `# Writer ${i}` }, lock_version: 0 })),
      );
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 409, 409, 409, 409], results.map((r) => r.text).join('\n'));
      const winner = results.find((r) => r.status === 200)!;
      const current = (await h.get(`/v0/notes/${n.id}`)).body;
      assert.equal(current.lock_version, 1);
      assert.equal(current.title, winner.body.title);
    });

    it('PATCH requires lock_version and body (422 with a pointer)', async () => {
      const n = await makeNote(h, { body: { markdown: 'steady' } });
      assertInvalid(await h.patch(`/v0/notes/${n.id}`, { body: { markdown: 'changed' } }), '/lock_version');
      assertInvalid(await h.patch(`/v0/notes/${n.id}`, { lock_version: 0 }), '/body');
      assertInvalid(await h.patch(`/v0/notes/${n.id}`, { body: { markdown: '  ' }, lock_version: 0 }), '/body/markdown');
      assertInvalid(await h.patch(`/v0/notes/${n.id}`, { body: 'changed', lock_version: -1 }), '/lock_version');
      assertInvalid(await h.patch(`/v0/notes/${n.id}`, { body: 'changed', lock_version: 1e300 }), '/lock_version');
      const after_ = (await h.get(`/v0/notes/${n.id}`)).body;
      assert.equal(after_.body.markdown, 'steady');
      assert.equal(after_.lock_version, 0);
    });

    it('PATCH of an unknown note → 404 without detail', async () => {
      assertBareNotFound(await h.patch(`/v0/notes/${UNKNOWN_ID}`, { body: 'x', lock_version: 0 }));
    });

    it('lists notes in a list envelope in creation order; limit=1 walks every page through next', async () => {
      const fresh = await createHarness(engine);
      try {
        const made = [];
        for (const markdown of ['# A', '# B', '# C']) made.push(await makeNote(fresh, { body: { markdown } }));
        const res = await fresh.get('/v0/notes');
        assert.equal(res.status, 200);
        assert.equal(res.body.type, 'list');
        assert.deepEqual(res.body.meta, { cursors: {} });
        assert.deepEqual(res.body.data, made);
        const pages = await walkForward((query) => fresh.get(`/v0/notes?limit=1${query ? `&${query}` : ''}`));
        assert.deepEqual(pages.map((p) => p.data.map((n: any) => n.title)), [['A'], ['B'], ['C']]);
      } finally {
        await fresh.close();
      }
    });

    it('GET of an unknown note → 404 without detail', async () => {
      assertBareNotFound(await h.get(`/v0/notes/${UNKNOWN_ID}`));
      assertBareNotFound(await h.get('/v0/notes/nope'));
    });

    it('DELETE → 204 with an empty body, permanently: then GET, PATCH and DELETE → 404 without detail', async () => {
      const n = await makeNote(h, { body: { markdown: '# Doomed' }, associations: [{ type: 'item', id: ada.id }] });
      const res = await h.delete(`/v0/notes/${n.id}`);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assertBareNotFound(await h.get(`/v0/notes/${n.id}`));
      assertBareNotFound(await h.delete(`/v0/notes/${n.id}`));
      assertBareNotFound(await h.patch(`/v0/notes/${n.id}`, { body: 'back', lock_version: 0 }));
      const ids = (await h.get('/v0/notes?limit=100')).body.data.map((x: any) => x.id);
      assert.equal(ids.includes(n.id), false);
      // The item it was associated with is untouched.
      assert.equal((await h.get(`/v0/collections/people/items/${ada.id}`)).status, 200);
    });

    it('a PATCH racing the DELETE of its note leaves no association behind: the call it named still reads', async () => {
      const call = await h.post('/v0/calls', {
        direction: 'incoming', participants: [{ phone: '+14155552671', role: 'caller' }], provider: 'user', provider_id: `race-${Date.now()}`,
        provider_status: 'completed', start_at: '2025-01-01T00:00:00Z',
      });
      assert.equal(call.status, 201, call.text);
      for (let round = 0; round < 5; round++) {
        const n = await makeNote(h, { body: { markdown: 'racing' } });
        const patch = { body: { markdown: 'linked' }, lock_version: 0, associations: [{ type: 'call', id: call.body.id }] };
        const answers = await Promise.all([h.patch(`/v0/notes/${n.id}`, patch), h.delete(`/v0/notes/${n.id}`), h.patch(`/v0/notes/${n.id}`, patch)]);
        for (const res of answers) assert.ok([200, 204, 404, 409].includes(res.status), res.text);
        // Regression (PostgreSQL): a PATCH that had read the note wrote its links after the delete, and the
        // call's include[]=note answered 404 from then on.
        const read = await h.get(`/v0/calls/${call.body.id}?include[]=note`);
        assert.equal(read.status, 200, read.text);
      }
    });

    it("another organization's key: list empty, GET/PATCH/DELETE → 404, the note unchanged", async () => {
      const n = await makeNote(h, { body: { markdown: '# Private' } });
      const other = await h.newOrg();
      const list = await h.get('/v0/notes', { key: other.key });
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data, []);
      assertBareNotFound(await h.get(`/v0/notes/${n.id}`, { key: other.key }));
      assertBareNotFound(await h.patch(`/v0/notes/${n.id}`, { body: 'stolen', lock_version: 0 }, { key: other.key }));
      assertBareNotFound(await h.delete(`/v0/notes/${n.id}`, { key: other.key }));
      assert.deepEqual((await h.get(`/v0/notes/${n.id}`)).body, n);
    });

    it('a read-only key can read notes but not PATCH or DELETE them (403)', async () => {
      const n = await makeNote(h, { body: { markdown: 'guarded' } });
      const key = await h.readOnlyKey();
      assert.equal((await h.get(`/v0/notes/${n.id}`, { key })).status, 200);
      assert.equal((await h.patch(`/v0/notes/${n.id}`, { body: 'x', lock_version: 0 }, { key })).status, 403);
      assert.equal((await h.delete(`/v0/notes/${n.id}`, { key })).status, 403);
      assert.deepEqual((await h.get(`/v0/notes/${n.id}`)).body, n);
    });
  });
}
