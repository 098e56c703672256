// The activity feed through HTTP (seed §2.6, §4.9; reference §7.1–7.4): the activity object and its
// constituents (documented entity types only: no actor for writes through a key), newest-first order with
// keyset pagination, retrieval by id and organization isolation, the type / time / constituent filters in
// both spellings with their pairing rules (times also in Ruby's and ±hhmm shapes; entity types from the
// documented enum), and which item writes record an `activity/item_created` (creates and creating upserts only).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness, type Response } from '../helpers/harness.ts';
import { email, makeItem, text } from '../helpers/items.ts';
import { constituent, recordActivity } from '../../src/domain/activity.ts';

const PEOPLE = '/v0/collections/people/items';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ID = /^[1-9A-HJ-NP-Za-km-z]{22}$/;

/** A clock the test sets: every reading returns the time last set. */
function settableClock(start = '2025-03-01T12:00:00.000Z') {
  let now = Date.parse(start);
  return {
    clock: () => new Date(now),
    set(iso: string) {
      now = Date.parse(iso);
    },
  };
}

const T = (second: number) => `2025-03-01T12:00:${String(second).padStart(2, '0')}.000Z`;

async function createPerson(h: Harness, name: string, key?: string): Promise<any> {
  return makeItem(h, 'people', { name: text(name) }, key ? { key } : {});
}

/** One page of the feed, asserting a 200 list envelope. */
async function feed(h: Harness, query = '', key?: string): Promise<{ data: any[]; prev?: string; next?: string }> {
  const res = await h.get(`/v0/activities${query ? `?${query}` : ''}`, key ? { key } : {});
  assert.equal(res.status, 200, `${query}: ${res.text}`);
  assert.equal(res.body.type, 'list');
  assert.ok(Array.isArray(res.body.data));
  const cursors = res.body.meta.cursors;
  for (const name of Object.keys(cursors)) assert.ok(name === 'prev' || name === 'next', `unexpected cursor ${name}`);
  return { data: res.body.data, prev: cursors.prev, next: cursors.next };
}

/** Every activity of the feed (at most 100), optionally narrowed by `query`. */
async function all(h: Harness, query = '', key?: string): Promise<any[]> {
  const page = await feed(h, `limit=100${query ? `&${query}` : ''}`, key);
  assert.equal(page.next, undefined, 'the test feed fits on one page');
  return page.data;
}

const entityOf = (activity: any, relation: string) => activity.constituents.find((c: any) => c.relation === relation)?.entity;
/** The item each activity was about (its `object` constituent). */
const objectIds = (activities: any[]) => activities.map((a) => entityOf(a, 'object')?.id);

function assertBadParameter(res: Response, parameter: string): void {
  assert.equal(res.status, 400, res.text);
  const error = errorOf(res);
  assert.equal(error.title, 'Bad Request');
  assert.equal(error.source?.parameter, parameter, res.text);
}

function assertUnprocessableParameter(res: Response, parameter: string): string {
  assert.equal(res.status, 422, res.text);
  const error = errorOf(res);
  assert.equal(error.title, 'Unprocessable Entity');
  assert.equal(error.source?.parameter, parameter, res.text);
  assert.equal(typeof error.detail, 'string');
  return error.detail!;
}

for (const engine of ENGINES) {
  describe(`activity feed: shape, order, pagination, retrieval (${engine})`, () => {
    let h: Harness;
    const time = settableClock();
    let peopleId: string;
    /** Items in creation order, with the time each was created at. */
    const people: { id: string; at: string }[] = [];

    before(async () => {
      h = await createHarness(engine, { clock: time.clock });
      peopleId = (await h.get('/v0/collections/people')).body.id;
      // Creation order differs from time order (the second person is the oldest), and three share a time.
      for (const [name, second] of [['P1', 30], ['P2', 10], ['P3', 20], ['P4', 20], ['P5', 20]] as const) {
        time.set(T(second));
        people.push({ id: (await createPerson(h, name)).id, at: T(second) });
      }
    });
    after(() => h.close());

    it('lists a list envelope of item_created activities with actor, object and target constituents, and the per-type item pointer', async () => {
      const res = await h.get('/v0/activities');
      assert.equal(res.status, 200);
      assert.equal(res.body.type, 'list');
      assert.deepEqual(res.body.meta, { cursors: {} });
      assert.equal(res.body.data.length, 5);
      const people_ = { id: peopleId, type: 'collection', ref: 'people' };
      for (const activity of res.body.data) {
        // `item` beside `constituents`: the per-type pointer of reference §7.5, the Python and Go SDKs' only way
        // to the activity's item (was: constituents alone).
        assert.deepEqual(Object.keys(activity).sort(), ['constituents', 'id', 'item', 'occurred_at', 'type']);
        assert.match(activity.id, ID);
        assert.equal(activity.type, 'activity/item_created');
        assert.match(activity.occurred_at, ISO_MS);
        const itemId = entityOf(activity, 'object')?.id;
        const person = people.find((p) => p.id === itemId);
        assert.ok(person, `the object is one of the created people: ${JSON.stringify(activity)}`);
        assert.equal(activity.occurred_at, person.at);
        assert.deepEqual(activity.constituents, [
          { type: 'constituent', relation: 'object', entity: { id: person.id, type: 'item', collection: people_ } },
          { type: 'constituent', relation: 'target', entity: people_ },
        ]);
        assert.deepEqual(activity.item, { id: person.id, type: 'item', collection: people_ });
      }
    });

    it('occurred_at is the created_at of the item', async () => {
      const [p1] = people;
      const item = (await h.get(`${PEOPLE}/${p1!.id}`)).body;
      const activity = (await all(h)).find((a) => entityOf(a, 'object').id === p1!.id);
      assert.equal(activity.occurred_at, item.values.created_at.data);
    });

    it('orders newest first by occurred_at, ties by id descending', async () => {
      const activities = await all(h);
      const [p1, p2, p3, p4, p5] = people.map((p) => p.id);
      assert.deepEqual(objectIds(activities), [p1, p5, p4, p3, p2]);
      const tied = activities.slice(1, 4).map((a) => a.id);
      assert.deepEqual(tied, [...tied].sort().reverse(), 'activities at the same time descend by id');
      assert.equal(new Set(activities.map((a) => a.occurred_at)).size, 3);
    });

    it('walks next to the end and prev back with limit=2: every activity exactly once', async () => {
      const expected = (await all(h)).map((a) => a.id);
      const forward: { data: any[]; prev?: string; next?: string }[] = [];
      let page = await feed(h, 'limit=2');
      for (;;) {
        forward.push(page);
        if (!page.next) break;
        assert.ok(forward.length < 20, 'the walk does not end');
        page = await feed(h, `limit=2&after=${encodeURIComponent(page.next)}`);
      }
      assert.deepEqual(forward.map((p) => p.data.length), [2, 2, 1]);
      assert.deepEqual(forward.flatMap((p) => p.data.map((a) => a.id)), expected);
      assert.equal(forward[0]!.prev, undefined, 'the first page has no prev');
      for (const p of forward.slice(0, -1)) assert.equal(typeof p.next, 'string');
      assert.equal(forward.at(-1)!.next, undefined, 'the last page has no next');

      const backward = [forward.at(-1)!];
      page = forward.at(-1)!;
      while (page.prev) {
        assert.ok(backward.length < 20, 'the walk does not end');
        page = await feed(h, `limit=2&before=${encodeURIComponent(page.prev)}`);
        backward.push(page);
      }
      assert.equal(backward.length, 3);
      const ids = backward.reverse().flatMap((p) => p.data.map((a) => a.id));
      assert.deepEqual(ids, expected);
      assert.deepEqual(backward.map((p) => p.data.map((a) => a.id)), forward.map((p) => p.data.map((a) => a.id)));
    });

    it('takes limit 1 to 100', async () => {
      assert.equal((await feed(h, 'limit=1')).data.length, 1);
      assertBadParameter(await h.get('/v0/activities?limit=0'), 'limit');
      assertBadParameter(await h.get('/v0/activities?limit=101'), 'limit');
    });

    it('refuses a cursor from the items list (400 on after)', async () => {
      const items = await h.get(`${PEOPLE}?limit=2`);
      assert.equal(items.status, 200);
      const cursor = items.body.meta.cursors.next;
      assert.equal(typeof cursor, 'string');
      assertBadParameter(await h.get(`/v0/activities?after=${encodeURIComponent(cursor)}`), 'after');
      assertBadParameter(await h.get(`/v0/activities?before=${encodeURIComponent(cursor)}`), 'before');
    });

    it('retrieves one activity by id: the same object as in the feed', async () => {
      for (const activity of await all(h)) {
        const res = await h.get(`/v0/activities/${activity.id}`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, activity);
      }
    });

    it('answers 404 without detail for an unknown id', async () => {
      const res = await h.get('/v0/activities/1111111111111111111111');
      assert.equal(res.status, 404);
      assert.equal(errorOf(res).detail, undefined);
      const other = await h.get('/v0/activities/nope');
      assert.equal(other.status, 404);
      assert.equal(errorOf(other).detail, undefined);
    });

    it("keeps organizations apart: another org's key gets 404 and a feed of its own activities only", async () => {
      const mine = await all(h);
      const other = await h.newOrg();
      const res = await h.get(`/v0/activities/${mine[0].id}`, { key: other.key });
      assert.equal(res.status, 404);
      assert.equal(errorOf(res).detail, undefined);
      assert.deepEqual(await all(h, '', other.key), []);

      const theirs = await createPerson(h, 'Outsider', other.key);
      const theirFeed = await all(h, '', other.key);
      assert.deepEqual(objectIds(theirFeed), [theirs.id]);
      assert.equal((await h.get(`/v0/activities/${theirFeed[0].id}`, { key: other.key })).status, 200);
      assert.equal((await h.get(`/v0/activities/${theirFeed[0].id}`)).status, 404);
      assert.deepEqual((await all(h)).map((a) => a.id), mine.map((a) => a.id));
      // Filtering by this organization's item or collection finds nothing from the other one.
      const item = entityOf(mine[0], 'object');
      assert.deepEqual(await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${item.id}`, other.key), []);
      assert.deepEqual(await all(h, `constituent_entity_type[eq]=collection&constituent_entity_id[eq]=${item.collection.id}`, other.key), []);
      // A cursor of one organization's feed is no cursor of another's.
      const cursor = (await feed(h, 'limit=2')).next!;
      assertBadParameter(await h.get(`/v0/activities?after=${encodeURIComponent(cursor)}`, { key: other.key }), 'after');
    });
  });

  describe(`activity feed: filters (${engine})`, () => {
    let h: Harness;
    const time = settableClock();
    let peopleId: string;
    let orgsId: string;
    let p1: string, p2: string, p3: string, acme: string;
    /** A note_created activity written through the store: actor p1, object a note, target p2 (two item constituents). */
    let noteActivity: string;

    before(async () => {
      h = await createHarness(engine, { clock: time.clock });
      peopleId = (await h.get('/v0/collections/people')).body.id;
      orgsId = (await h.get('/v0/collections/organizations')).body.id;
      time.set(T(10));
      p1 = (await createPerson(h, 'P1')).id;
      time.set(T(20));
      p2 = (await createPerson(h, 'P2')).id;
      time.set(T(30));
      p3 = (await createPerson(h, 'P3')).id;
      time.set(T(40));
      acme = (await makeItem(h, 'organizations', { name: text('Acme') })).id;
      const people = { id: peopleId, type: 'collection', ref: 'people' };
      noteActivity = (
        await recordActivity(h.store, h.orgId, 'activity/note_created', T(50), [
          constituent('actor', { id: p1, type: 'item', collection: people }),
          constituent('object', { id: 'note-1', type: 'note' }),
          constituent('target', { id: p2, type: 'item', collection: people }),
        ])
      ).id;
    });
    after(() => h.close());

    const created = (activities: any[]) => objectIds(activities.filter((a) => a.type === 'activity/item_created'));

    it('the unfiltered feed holds all five activities', async () => {
      const activities = await all(h);
      assert.deepEqual(activities.map((a) => a.type), ['activity/note_created', ...Array(4).fill('activity/item_created')]);
      assert.deepEqual(created(activities), [acme, p3, p2, p1]);
    });

    it('type[eq] keeps only that type', async () => {
      const items = await all(h, 'type[eq]=activity/item_created');
      assert.deepEqual(items.map((a) => a.type), Array(4).fill('activity/item_created'));
      assert.deepEqual(objectIds(items), [acme, p3, p2, p1]);
      assert.deepEqual((await all(h, 'type[eq]=activity/note_created')).map((a) => a.id), [noteActivity]);
      assert.deepEqual(await all(h, 'type[eq]=activity/call_occurred'), []);
    });

    it('an unknown type is a 400 naming type[eq]', async () => {
      assertBadParameter(await h.get('/v0/activities?type[eq]=activity/nothing_happened'), 'type[eq]');
      assertBadParameter(await h.get('/v0/activities?type[eq]=item_created'), 'type[eq]');
    });

    it('occurred_at[gte] and occurred_at[lte] are inclusive bounds', async () => {
      assert.deepEqual(objectIds(await all(h, `occurred_at[gte]=${T(20)}&occurred_at[lte]=${T(30)}`)), [p3, p2]);
      assert.deepEqual(created(await all(h, `occurred_at[gte]=${T(30)}`)), [acme, p3]);
      assert.deepEqual(objectIds(await all(h, `occurred_at[lte]=${T(20)}`)), [p2, p1]);
      assert.deepEqual(objectIds(await all(h, `occurred_at[gte]=${T(20)}&occurred_at[lte]=${T(20)}`)), [p2]);
      assert.deepEqual(await all(h, `occurred_at[gte]=${T(21)}&occurred_at[lte]=${T(29)}`), []);
    });

    it('occurred_at bounds accept other zones and precisions of the same instant', async () => {
      // 13:00:20+01:00 is 12:00:20Z; a bound without milliseconds still includes the activity at that second.
      const res = await all(h, `occurred_at[gte]=${encodeURIComponent('2025-03-01T13:00:20+01:00')}&occurred_at[lte]=2025-03-01T12:00:30Z`);
      assert.deepEqual(objectIds(res), [p3, p2]);
    });

    it('a malformed time is a 400 naming the parameter', async () => {
      assertBadParameter(await h.get('/v0/activities?occurred_at[gte]=yesterday'), 'occurred_at[gte]');
      assertBadParameter(await h.get('/v0/activities?occurred_at[lte]=2025-13-45T00:00:00Z'), 'occurred_at[lte]');
      assertBadParameter(await h.get('/v0/activities?occurred_at[gte]=2025-03-01T12:00:00'), 'occurred_at[gte]');
    });

    it('bug: occurred_at ignored Ruby times — `2025-03-01 12:00:20 UTC` (Time#to_s) and +hhmm / -hhmm offsets are read as instants', async () => {
      const q = (gte: string, lte: string) => `occurred_at[gte]=${encodeURIComponent(gte)}&occurred_at[lte]=${encodeURIComponent(lte)}`;
      assert.deepEqual(objectIds(await all(h, q('2025-03-01 12:00:20 UTC', '2025-03-01 12:00:30 UTC'))), [p3, p2]);
      assert.deepEqual(objectIds(await all(h, q('2025-03-01 12:00:20 +0000', '2025-03-01 07:00:30 -0500'))), [p3, p2]);
      assert.deepEqual(objectIds(await all(h, q('2025-03-01T13:00:20+0100', '2025-03-01T12:00:30Z'))), [p3, p2]);
      // The older filter[…] spelling reads the same shapes (the Ruby SDK sent Time values there too).
      const old = `filter[occurred_at][gte]=${encodeURIComponent('2025-03-01 12:00:20 UTC')}&filter[occurred_at][lte]=${encodeURIComponent('2025-03-01 12:00:30 UTC')}`;
      assert.deepEqual(objectIds(await all(h, old)), [p3, p2]);
      // A `+` left unencoded arrives as a space and still means +.
      assert.deepEqual(objectIds(await all(h, 'occurred_at[gte]=2025-03-01T13:00:20+01:00&occurred_at[lte]=2025-03-01T12:00:30Z')), [p3, p2]);
      // A bound finer than a millisecond stays on the safe side: after 12:00:20.000 excludes p2, up to 12:00:20.0005 includes it.
      assert.deepEqual(objectIds(await all(h, q('2025-03-01T12:00:20.0001Z', '2025-03-01T12:00:30Z'))), [p3]);
      assert.deepEqual(objectIds(await all(h, q('2025-03-01T12:00:10Z', '2025-03-01T12:00:20.0005Z'))), [p2, p1]);
      // Still refused, with the accepted shapes in the detail: a time without a zone.
      const bad = await h.get(`/v0/activities?occurred_at[gte]=${encodeURIComponent('2025-03-01 12:00:20')}`);
      assertBadParameter(bad, 'occurred_at[gte]');
      assert.match(errorOf(bad).detail!, /2025-01-01 00:00:00 UTC/);
      assertBadParameter(await h.get(`/v0/activities?filter[occurred_at][lte]=${encodeURIComponent('noon UTC')}`), 'filter[occurred_at][lte]');
    });

    it('bug: constituent_entity_type[eq]=spaceship answered 200 [] — a type outside the documented enum is a 400 naming it', async () => {
      for (const type of ['spaceship', 'api_key', 'jwt_subject', 'Item', 'items']) {
        const res = await h.get(`/v0/activities?constituent_entity_type[eq]=${type}`);
        assertBadParameter(res, 'constituent_entity_type[eq]');
        assert.match(errorOf(res).detail!, /call, collection, item, file, meeting, email_message, note, program, program_message, program_template, unsubscribe/);
      }
      assertBadParameter(await h.get(`/v0/activities?constituent_entity_type[eq]=spaceship&constituent_entity_id[eq]=${p1}`), 'constituent_entity_type[eq]');
      // Every documented type is accepted; `message` (the seed's name) means email_message.
      for (const type of ['call', 'collection', 'item', 'file', 'meeting', 'email_message', 'note', 'program', 'program_message', 'program_template', 'unsubscribe', 'message']) {
        assert.equal((await h.get(`/v0/activities?constituent_entity_type[eq]=${type}`)).status, 200, type);
      }
    });

    it('the Ruby SDK 0.1.0-alpha.6 to alpha.9 sent filter as a printed Ruby hash (symbols, Time values): it is read', async () => {
      const printed = (text: string) => `filter=${encodeURIComponent(text)}`;
      const old = `{:type=>{:in=>[:"activity/item_created"]}, :occurred_at=>{:gte=>2025-03-01 12:00:20 UTC, :lte=>2025-03-01 12:00:30 UTC}}`;
      assert.deepEqual(objectIds(await all(h, printed(old))), [p3, p2]);
      const ruby34 = `{item_id: {eq: "${p2}"}, type: {in: [:"activity/note_created"]}}`;
      assert.deepEqual((await all(h, printed(ruby34))).map((a) => a.id), [noteActivity]);
      assertBadParameter(await h.get(`/v0/activities?${printed('{:type=>{:in=>[:"activity/nothing"]}}')}`), 'filter[type][in][]');
      assertBadParameter(await h.get(`/v0/activities?${printed('{:occurred_at=>{:gte=>yesterday}}')}`), 'filter[occurred_at][gte]');
      assertBadParameter(await h.get(`/v0/activities?${printed('{:type=>')}`), 'filter');
      // An escape in the printed hash must not smuggle in the NUL the raw query may not hold.
      assertBadParameter(await h.get(`/v0/activities?${printed('{:item_id=>{:eq=>"a\\u0000b"}}')}`), 'filter');
    });

    it('filter[item_id][eq] together with constituent_entity_type[eq] applies both', async () => {
      // p2 is involved in its creation and (as target) in the note; the note also involves p1.
      const both = await all(h, `constituent_entity_type[eq]=note&filter[item_id][eq]=${p2}`);
      assert.deepEqual(both.map((a) => a.id), [noteActivity]);
      assert.deepEqual(await all(h, `constituent_entity_type[eq]=note&filter[item_id][eq]=${p3}`), []);
      assert.deepEqual(await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p1}&filter[item_id][eq]=${p3}`), []);
    });

    it('type[in][] keeps the types listed, in either spelling', async () => {
      assert.deepEqual((await all(h, 'type[in][]=activity/note_created&type[in][]=activity/call_occurred')).map((a) => a.id), [noteActivity]);
      assert.equal((await all(h, 'type[in][]=activity/note_created&type[in][]=activity/item_created')).length, 5);
    });

    it('bug: an operator the feed does not take (type[gt], occurred_at[gt]), a bare value or an unknown filter[…] was ignored, answering the whole feed — now a 400 naming it', async () => {
      for (const [query, parameter] of [
        ['type[gt]=activity/item_created', 'type[gt]'],
        ['occurred_at[gt]=2025-01-01T00:00:00Z', 'occurred_at[gt]'],
        ['type=activity/item_created', 'type'],
        ['constituent_entity_type[in][]=item', 'constituent_entity_type[in]'],
        ['filter[type][contains]=item', 'filter[type][contains]'],
        ['filter[collection_id][eq]=x', 'filter[collection_id]'],
      ]) {
        const res = await h.get(`/v0/activities?${query}`);
        assertBadParameter(res, parameter!);
        assert.match(errorOf(res).detail ?? '', /must (use|be one of)/, query);
      }
      assert.match(errorOf(await h.get('/v0/activities?occurred_at[gt]=2025-01-01T00:00:00Z')).detail ?? '', /\[gte\] or \[lte\]/);
    });

    it('type[eq] together with filter[type][in][] keeps the types both allow', async () => {
      assert.deepEqual((await all(h, 'type[eq]=activity/note_created&filter[type][in][]=activity/note_created&filter[type][in][]=activity/item_created')).map((a) => a.id), [noteActivity]);
      assert.deepEqual(await all(h, 'type[eq]=activity/note_created&filter[type][in][]=activity/item_created'), []);
    });

    it("constituent type and id of an item return only that item's activities", async () => {
      assert.deepEqual(objectIds(await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p3}`)), [p3]);
      // p2 is the object of its creation and the target of the note.
      const ofP2 = await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p2}`);
      assert.deepEqual(ofP2.map((a) => a.type), ['activity/note_created', 'activity/item_created']);
      assert.equal(entityOf(ofP2[1], 'object').id, p2);
      // The id is matched together with the type.
      assert.deepEqual(await all(h, `constituent_entity_type[eq]=collection&constituent_entity_id[eq]=${p3}`), []);
    });

    it('constituent type and id of a collection return every creation in it', async () => {
      assert.deepEqual(objectIds(await all(h, `constituent_entity_type[eq]=collection&constituent_entity_id[eq]=${peopleId}`)), [p3, p2, p1]);
      assert.deepEqual(objectIds(await all(h, `constituent_entity_type[eq]=collection&constituent_entity_id[eq]=${orgsId}`)), [acme]);
      assert.deepEqual(objectIds(await all(h, 'constituent_entity_type[eq]=collection&constituent_entity_id[eq]=people')), []);
    });

    it('constituent type alone returns each activity involving such an entity once', async () => {
      const withItems = await all(h, 'constituent_entity_type[eq]=item');
      assert.equal(withItems[0].id, noteActivity);
      assert.deepEqual(created(withItems), [acme, p3, p2, p1]);
      assert.equal(new Set(withItems.map((a) => a.id)).size, withItems.length, 'the note (two item constituents) appears once');
      assert.equal(withItems.length, 5);
      assert.deepEqual((await all(h, 'constituent_entity_type[eq]=note')).map((a) => a.id), [noteActivity]);
      assert.deepEqual(await all(h, 'constituent_entity_type[eq]=call'), []);
    });

    it('constituent type alone pages each activity once', async () => {
      const ids: string[] = [];
      let page = await feed(h, 'constituent_entity_type[eq]=item&limit=2');
      for (;;) {
        ids.push(...page.data.map((a) => a.id));
        if (!page.next) break;
        assert.ok(ids.length < 20, 'the walk does not end');
        page = await feed(h, `constituent_entity_type[eq]=item&limit=2&after=${encodeURIComponent(page.next)}`);
      }
      assert.deepEqual(ids, (await all(h)).map((a) => a.id));
    });

    it("pages one entity's feed, then another's, one at a time both ways (same shape, other values)", async () => {
      // The feed's statements are kept per shape with their values as parameters: consecutive walks of the same
      // shape over different entities and cursors must each see only their own.
      for (const query of [`constituent_entity_type[eq]=collection&constituent_entity_id[eq]=${peopleId}`, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p2}`]) {
        const expected = (await all(h, query)).map((a) => a.id);
        assert.ok(expected.length >= 2, query);
        const forward: string[] = [];
        let page = await feed(h, `${query}&limit=1`);
        for (;;) {
          forward.push(...page.data.map((a) => a.id));
          if (!page.next) break;
          assert.ok(forward.length < 20, 'the walk does not end');
          page = await feed(h, `${query}&limit=1&after=${encodeURIComponent(page.next)}`);
        }
        assert.deepEqual(forward, expected);
        const backward: string[] = [...page.data.map((a) => a.id)];
        while (page.prev) {
          assert.ok(backward.length < 20, 'the walk does not end');
          page = await feed(h, `${query}&limit=1&before=${encodeURIComponent(page.prev)}`);
          backward.unshift(...page.data.map((a) => a.id));
        }
        assert.deepEqual(backward, expected);
      }
    });

    it('constituent_relation[eq] narrows type+id matches to that role', async () => {
      assert.deepEqual(objectIds(await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p3}&constituent_relation[eq]=object`)), [p3]);
      assert.deepEqual(await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p3}&constituent_relation[eq]=target`), []);
      assert.deepEqual(await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p3}&constituent_relation[eq]=actor`), []);
      // p2: object of its creation, target of the note; p1: actor of the note.
      const p2Target = await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p2}&constituent_relation[eq]=target`);
      assert.deepEqual(p2Target.map((a) => a.id), [noteActivity]);
      const p2Object = await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p2}&constituent_relation[eq]=object`);
      assert.deepEqual(p2Object.map((a) => a.type), ['activity/item_created']);
      const p1Actor = await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p1}&constituent_relation[eq]=actor`);
      assert.deepEqual(p1Actor.map((a) => a.id), [noteActivity]);
      const peopleTarget = await all(h, `constituent_entity_type[eq]=collection&constituent_entity_id[eq]=${peopleId}&constituent_relation[eq]=target`);
      assert.deepEqual(objectIds(peopleTarget), [p3, p2, p1]);
      assert.deepEqual(await all(h, `constituent_entity_type[eq]=collection&constituent_entity_id[eq]=${peopleId}&constituent_relation[eq]=object`), []);
    });

    it('combines the constituent filter with type and time', async () => {
      const query = `constituent_entity_type[eq]=collection&constituent_entity_id[eq]=${peopleId}`;
      assert.deepEqual(objectIds(await all(h, `${query}&occurred_at[gte]=${T(20)}`)), [p3, p2]);
      assert.deepEqual(objectIds(await all(h, `${query}&occurred_at[lte]=${T(20)}`)), [p2, p1]);
      assert.deepEqual(await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p2}&type[eq]=activity/item_created`).then(objectIds), [p2]);
    });

    it('constituent_entity_id[eq] without the type is a 422 naming it', async () => {
      const detail = assertUnprocessableParameter(await h.get(`/v0/activities?constituent_entity_id[eq]=${p1}`), 'constituent_entity_id[eq]');
      assert.match(detail, /entity type must be specified/);
    });

    it('constituent_relation[eq] without both type and id is a 422 naming it', async () => {
      assertUnprocessableParameter(await h.get('/v0/activities?constituent_relation[eq]=object'), 'constituent_relation[eq]');
      assertUnprocessableParameter(await h.get('/v0/activities?constituent_relation[eq]=target&constituent_entity_type[eq]=collection'), 'constituent_relation[eq]');
    });

    it('a relation other than actor, object or target is a 400', async () => {
      const res = await h.get(`/v0/activities?constituent_entity_type[eq]=item&constituent_entity_id[eq]=${p1}&constituent_relation[eq]=subject`);
      assertBadParameter(res, 'constituent_relation[eq]');
    });

    it('accepts the older spellings: filter[type][in][], filter[occurred_at], filter[item_id][eq]', async () => {
      const items = await all(h, 'filter[type][in][]=activity/item_created');
      assert.deepEqual(items.map((a) => a.type), Array(4).fill('activity/item_created'));
      const both = await all(h, 'filter[type][in][]=activity/item_created&filter[type][in][]=activity/note_created');
      assert.equal(both.length, 5);
      assert.deepEqual((await all(h, 'filter[type][in][]=activity/note_created')).map((a) => a.id), [noteActivity]);
      const unknown = await h.get('/v0/activities?filter[type][in][]=activity/nothing');
      assert.equal(unknown.status, 400, unknown.text);
      assert.match(errorOf(unknown).source?.parameter ?? '', /^filter\[type\]\[in\]\[\d*\]$/);

      assert.deepEqual(created(await all(h, `filter[occurred_at][gte]=${T(30)}`)), [acme, p3]);
      assert.deepEqual(objectIds(await all(h, `filter[occurred_at][gte]=${T(20)}&filter[occurred_at][lte]=${T(30)}`)), [p3, p2]);

      assert.deepEqual(objectIds(await all(h, `filter[item_id][eq]=${p3}`)), [p3]);
      assert.deepEqual((await all(h, `filter[item_id][eq]=${p2}`)).map((a) => a.type), ['activity/note_created', 'activity/item_created']);
    });
  });

  describe(`activity feed: only documented entity types (${engine})`, () => {
    let h: Harness;
    const time = settableClock();
    let peopleId: string;
    let p1: string, p3: string;

    before(async () => {
      h = await createHarness(engine, { clock: time.clock });
      peopleId = (await h.get('/v0/collections/people')).body.id;
      time.set(T(10));
      p1 = (await createPerson(h, 'P1')).id;
      time.set(T(30));
      p3 = (await createPerson(h, 'P3')).id;
    });
    after(() => h.close());

    it('bug: api_key actors — constituents only name documented entity types; an actor recorded by an older Tycho is left out', async () => {
      const people = { id: peopleId, type: 'collection', ref: 'people' };
      const legacy = await recordActivity(h.store, h.orgId, 'activity/item_created', T(5), [
        constituent('actor', { id: 'key-1', type: 'api_key' }),
        constituent('object', { id: p1, type: 'item', collection: people }),
        constituent('target', people),
      ]);
      const expected = [
        { type: 'constituent', relation: 'object', entity: { id: p1, type: 'item', collection: people } },
        { type: 'constituent', relation: 'target', entity: people },
      ];
      assert.deepEqual((await h.get(`/v0/activities/${legacy.id}`)).body.constituents, expected);
      const listed = (await all(h)).find((a) => a.id === legacy.id);
      assert.deepEqual(listed.constituents, expected);
      // Writes through the API record no actor at all.
      for (const activity of await all(h, 'type[eq]=activity/item_created')) {
        assert.deepEqual(activity.constituents.map((c: any) => c.relation), ['object', 'target']);
      }
    });

    it('the constituent filter takes `message` for email_message', async () => {
      const people = { id: peopleId, type: 'collection', ref: 'people' };
      const sent = await recordActivity(h.store, h.orgId, 'activity/inbox_message_sent', T(1), [
        constituent('actor', { id: p3, type: 'item', collection: people }),
        constituent('object', { id: 'message-1', type: 'email_message' }),
      ]);
      assert.deepEqual((await all(h, 'constituent_entity_type[eq]=message&constituent_entity_id[eq]=message-1')).map((a) => a.id), [sent.id]);
      assert.deepEqual((await all(h, 'constituent_entity_type[eq]=email_message')).map((a) => a.id), [sent.id]);
    });
  });

  describe(`activity feed: which writes record activities (${engine})`, () => {
    let h: Harness;
    // One second later on every reading, so newer writes have later times.
    let now = Date.parse('2025-04-01T00:00:00.000Z');

    before(async () => {
      h = await createHarness(engine, { clock: () => new Date((now += 1000)) });
    });
    after(() => h.close());

    it('records exactly one activity per item creation', async () => {
      const before_ = (await all(h)).length;
      const made = [];
      for (const name of ['A', 'B', 'C']) made.push(await createPerson(h, name));
      const activities = await all(h);
      assert.equal(activities.length, before_ + 3);
      assert.deepEqual(objectIds(activities.slice(0, 3)), made.map((m) => m.id).reverse());
      for (const item of made) {
        const own = await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${item.id}`);
        assert.equal(own.length, 1);
        assert.equal(own[0].type, 'activity/item_created');
      }
    });

    it('records none for updates (PATCH) and deletes', async () => {
      const item = await createPerson(h, 'Changing');
      const count = (await all(h)).length;
      const patched = await h.patch(`${PEOPLE}/${item.id}`, { values: { name: text('Changed') } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal((await all(h)).length, count);
      assert.equal((await all(h, `constituent_entity_type[eq]=item&constituent_entity_id[eq]=${item.id}`)).length, 1);
      const deleted = await h.delete(`${PEOPLE}/${item.id}`);
      assert.equal(deleted.status, 204);
      assert.equal((await all(h)).length, count);
    });

    it('records one for an upsert that creates and none for an upsert that updates', async () => {
      const count = (await all(h)).length;
      const created = await h.post(`${PEOPLE}/upsert`, { identifiers: { email: [email('upsert@example.com')] }, values: { name: text('Upserted') } });
      assert.equal(created.status, 201, created.text);
      const afterCreate = await all(h);
      assert.equal(afterCreate.length, count + 1);
      assert.equal(afterCreate[0].type, 'activity/item_created');
      assert.equal(entityOf(afterCreate[0], 'object').id, created.body.id);

      const updated = await h.post(`${PEOPLE}/upsert`, { identifiers: { email: [email('upsert@example.com')] }, values: { name: text('Upserted again') } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.id, created.body.id);
      assert.equal((await all(h)).length, count + 1);
    });

    it('records none for a failed create', async () => {
      const count = (await all(h)).length;
      const bad = await h.post(PEOPLE, { values: { name: { type: 'value/number/unitless_integer', data: 7 } } });
      assert.equal(bad.status, 422, bad.text);
      const unknown = await h.post(PEOPLE, { values: { name: text('X'), no_such_field: text('y') } });
      assert.equal(unknown.status, 422, unknown.text);
      assert.equal((await all(h)).length, count);
    });

    it('records none for an upsert whose identifiers match several items (409)', async () => {
      await makeItem(h, 'people', { name: text('One'), email: [email('one@example.com')] });
      await makeItem(h, 'people', { name: text('Two'), email: [email('two@example.com')] });
      const count = (await all(h)).length;
      const res = await h.post(`${PEOPLE}/upsert`, { identifiers: { email: [email('one@example.com'), email('two@example.com')] }, values: {} });
      assert.equal(res.status, 409, res.text);
      assert.equal((await all(h)).length, count);
    });
  });

  describe(`activities carry the per-type pointers beside constituents (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('a note about an item: note, related_items and related_meeting (null), on the list and the retrieve alike', async () => {
      const person = await createPerson(h, 'Noted');
      const note = await h.post('/v0/notes', { body: 'About them', associations: [{ type: 'item', id: person.id }] });
      assert.equal(note.status, 201, note.text);
      const [activity] = await all(h, 'type[eq]=activity/note_created');
      assert.deepEqual(activity.note, { id: note.body.id, type: 'note' });
      assert.deepEqual(activity.related_items.map((i: any) => i.id), [person.id]);
      // The older single pointer too, which the TypeScript, Python and Go SDKs read (was: absent).
      assert.deepEqual(activity.related_item, activity.related_items[0]);
      assert.equal(activity.related_meeting, null);
      assert.ok(Array.isArray(activity.constituents), 'constituents stay');
      assert.deepEqual((await h.get(`/v0/activities/${activity.id}`)).body, activity);
      // Webhooks (and the event feed) carry the newest shape alone.
      const events = await h.get('/v0/tycho/events?limit=100');
      assert.equal(events.status, 200, events.text);
      const event = events.body.data.find((e: any) => e.payload?.id === activity.id || e.data?.id === activity.id);
      assert.ok(event, events.text);
      assert.equal('related_item' in (event.payload ?? event.data), false);
    });

    it('a note about no item has related_item null beside an empty related_items', async () => {
      const note = await h.post('/v0/notes', { body: 'About nothing' });
      assert.equal(note.status, 201, note.text);
      const activity = (await all(h, 'type[eq]=activity/note_created')).find((a: any) => a.note.id === note.body.id);
      assert.deepEqual(activity.related_items, []);
      assert.equal(activity.related_item, null);
    });
  });
}
