// Calls through HTTP (reference §5.14): the call shape, participants matched to people by phone and to the
// person's organization, E.164 and enum checks at their pointers, timestamps normalised to milliseconds,
// recordings (audio/mpeg only), transcript, tags of tagsets available on calls, include[] (transcript, note,
// summary), upsert by provider + provider_id (201 then 200, concurrent upserts make one call), keyset lists,
// `activity/call_occurred` at the call's start with the people as actors, and notes associated with calls;
// on PostgreSQL, racing upserts through two connection pools (as two processes would) still make one call.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertBareNotFound, ENGINES, TEST_KEY, createHarness, errorOf, throwawayPostgres, type Harness } from '../helpers/harness.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { upsertCall, type CallInput } from '../../src/domain/calls.ts';
import { createInbox } from '../../src/domain/inboxes.ts';
import type { Principal } from '../../src/domain/api-keys.ts';
import { assertInvalid, collectionPointer, makeItem, text, val, walkForward, type CollectionPointer } from '../helpers/items.ts';
import { activitiesOf } from '../helpers/activities.ts';

const ID = /^[1-9A-HJ-NP-Za-km-z]{22}$/;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UNKNOWN_ID = '1ChFLYDsNehG6QDPrqx815';

const ADA_PHONE = '+14155552671';
const GRACE_PHONE = '+442071234567';
const STRANGER_PHONE = '+33142685300';

let counter = 0;
const providerId = () => `op-${process.pid}-${++counter}`;

function callBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    direction: 'outgoing',
    participants: [
      { phone: ADA_PHONE, role: 'caller' },
      { phone: STRANGER_PHONE, role: 'callee' },
    ],
    provider: 'openphone',
    provider_id: providerId(),
    provider_status: 'completed',
    start_at: '2025-02-17T15:01:00Z',
    ...overrides,
  };
}

async function makeCall(h: Harness, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await h.post('/v0/calls', callBody(overrides));
  assert.equal(res.status, 201, res.text);
  return res.body;
}

for (const engine of ENGINES) {
  describe(`calls: create, shape, matching, validation (${engine})`, () => {
    let h: Harness;
    let people: CollectionPointer;
    let companies: CollectionPointer;
    let ada: any;
    let grace: any;
    let acme: any;
    before(async () => {
      h = await createHarness(engine);
      people = await collectionPointer(h, 'people');
      companies = await collectionPointer(h, 'organizations');
      const field = await h.post('/v0/collections/people/fields', {
        type: 'field/relation',
        name: 'Company',
        relation_type: 'one_way',
        cardinality: 'one',
        allowed_collections: [{ type: 'collection', ref: 'organizations' }],
      });
      assert.equal(field.status, 201, field.text);
      acme = await makeItem(h, 'organizations', { name: text('Acme') });
      ada = await makeItem(h, 'people', {
        name: text('Ada Lovelace'),
        phone: [val('telephone_number', ADA_PHONE)],
        [field.body.ref]: val('relation', { type: 'item', id: acme.id }),
      });
      grace = await makeItem(h, 'people', { name: text('Grace Hopper'), phone: [val('telephone_number', GRACE_PHONE)] });
    });
    after(() => h.close());

    it('logs a call: 201, the call shape, times normalised to milliseconds, participants matched by phone', async () => {
      const body = callBody({
        answered_at: '2025-02-17T16:01:10+01:00',
        end_at: '2025-02-17T15:11:00.5Z',
        participants: [
          { phone: ADA_PHONE, role: 'caller' },
          { phone: GRACE_PHONE, role: 'callee' },
          { phone: STRANGER_PHONE, role: 'other' },
        ],
      });
      const res = await h.post('/v0/calls', body);
      assert.equal(res.status, 201, res.text);
      const c = res.body;
      assert.match(c.id, ID);
      assert.equal(c.type, 'call');
      assert.equal(c.direction, 'outgoing');
      assert.equal(c.provider, 'openphone');
      assert.equal(c.provider_id, body.provider_id);
      assert.equal(c.provider_status, 'completed');
      assert.equal(c.start_at, '2025-02-17T15:01:00.000Z');
      assert.equal(c.answered_at, '2025-02-17T15:01:10.000Z');
      assert.equal(c.end_at, '2025-02-17T15:11:00.500Z');
      assert.deepEqual(c.tags, []);
      assert.match(c.created_at, ISO_MS);
      assert.equal(c.updated_at, c.created_at);
      assert.equal(c.participants.length, 3);
      for (const p of c.participants) {
        assert.match(p.id, ID);
        assert.equal(p.type, 'call_participant');
      }
      const [caller, callee, other] = c.participants;
      assert.deepEqual(
        { phone: caller.phone, role: caller.role, person: caller.person, organization: caller.organization },
        { phone: ADA_PHONE, role: 'caller', person: { id: ada.id, type: 'item', collection: people }, organization: { id: acme.id, type: 'item', collection: companies } },
      );
      assert.deepEqual({ role: callee.role, person: callee.person }, { role: 'callee', person: { id: grace.id, type: 'item', collection: people } });
      assert.equal('organization' in callee, false, 'Grace has no company');
      assert.deepEqual(Object.keys(other).sort(), ['id', 'phone', 'role', 'type']);
      assert.deepEqual(
        Object.keys(c).sort(),
        ['answered_at', 'created_at', 'direction', 'end_at', 'id', 'participants', 'provider', 'provider_id', 'provider_status', 'start_at', 'tags', 'type', 'updated_at'],
      );
      const fetched = await h.get(`/v0/calls/${c.id}`);
      assert.equal(fetched.status, 200, fetched.text);
      assert.deepEqual(fetched.body, c);
    });

    it('stores provider_metadata verbatim', async () => {
      const metadata = { call: { id: 'AC1', legs: [1, 2.5, null, true] }, 'odd key': '', nested: { deeper: { list: [{ a: 'b' }] } } };
      const c = await makeCall(h, { provider_metadata: metadata });
      assert.deepEqual(c.provider_metadata, metadata);
      assert.deepEqual((await h.get(`/v0/calls/${c.id}`)).body.provider_metadata, metadata);
      assert.equal('provider_metadata' in (await makeCall(h)), false);
    });

    it('a phone that is not E.164 → 422 at the participant\'s phone', async () => {
      for (const phone of ['4155552671', '+1 415 555 2671', '(415) 555-2671', '+1', '']) {
        const detail = assertInvalid(
          await h.post('/v0/calls', callBody({ participants: [{ phone: ADA_PHONE, role: 'caller' }, { phone, role: 'callee' }] })),
          '/participants/1/phone',
        );
        assert.match(detail, /E\.164/);
      }
    });

    it('a role, direction or provider outside its enum → 422 at it; no participants → 422', async () => {
      assertInvalid(await h.post('/v0/calls', callBody({ participants: [{ phone: ADA_PHONE, role: 'host' }] })), '/participants/0/role');
      assertInvalid(await h.post('/v0/calls', callBody({ direction: 'sideways' })), '/direction');
      assertInvalid(await h.post('/v0/calls', callBody({ provider: 'skype' })), '/provider');
      assertInvalid(await h.post('/v0/calls', callBody({ participants: [] })), '/participants');
    });

    it('a missing required property → 422 naming it', async () => {
      for (const key of ['direction', 'participants', 'provider', 'provider_id', 'provider_status', 'start_at']) {
        const body = callBody();
        delete body[key];
        const res = await h.post('/v0/calls', body);
        assert.equal(res.status, 422, `${key}: ${res.text}`);
        assert.match(JSON.stringify(errorOf(res)), new RegExp(key));
      }
    });

    it('times as the Ruby SDK writes a Time (Time#to_s) are read as ISO 8601 is', async () => {
      const res = await h.post('/v0/calls', callBody({ start_at: '2025-02-17 15:01:00 UTC', answered_at: '2025-02-17 10:01:30 -0500', end_at: '2025-02-17 16:11:00 +0100' }));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.start_at, '2025-02-17T15:01:00.000Z');
      assert.equal(res.body.answered_at, '2025-02-17T15:01:30.000Z');
      assert.equal(res.body.end_at, '2025-02-17T15:11:00.000Z');
    });

    it('a timestamp without a zone or that does not exist → 422 at it', async () => {
      assertInvalid(await h.post('/v0/calls', callBody({ start_at: '2025-02-17T15:01:00' })), '/start_at');
      assertInvalid(await h.post('/v0/calls', callBody({ start_at: '2025-02-30T15:01:00Z' })), '/start_at');
      assertInvalid(await h.post('/v0/calls', callBody({ end_at: 'yesterday' })), '/end_at');
      assertInvalid(await h.post('/v0/calls', callBody({ answered_at: '2025-02-17' })), '/answered_at');
      // A space where the offset's sign belongs is a query string's decoded `+`, never a body's.
      assertInvalid(await h.post('/v0/calls', callBody({ start_at: '2025-02-17T15:01:00 01:00' })), '/start_at');
      assertInvalid(await h.post('/v0/calls', callBody({ start_at: ' 2025-02-17T15:01:00Z' })), '/start_at');
    });

    it('a call answered before it starts, or ending before it starts or is answered → 422 at the later time', async () => {
      assertInvalid(await h.post('/v0/calls', callBody({ end_at: '2025-02-17T14:00:00Z' })), '/end_at');
      assertInvalid(await h.post('/v0/calls', callBody({ answered_at: '2025-02-17T15:00:59Z' })), '/answered_at');
      assertInvalid(await h.post('/v0/calls', callBody({ answered_at: '2025-02-17T15:05:00Z', end_at: '2025-02-17T15:04:00Z' })), '/end_at');
      // Instants compare, not texts: 16:00+01:00 is 15:00Z, before the start.
      assertInvalid(await h.post('/v0/calls', callBody({ end_at: '2025-02-17T16:00:00+01:00' })), '/end_at');
      const same = await makeCall(h, { answered_at: '2025-02-17T15:01:00Z', end_at: '2025-02-17T16:01:00+01:00' });
      assert.equal(same.end_at, '2025-02-17T15:01:00.000Z');
      // An upsert is judged with the times it keeps: moving the start past the stored end is refused.
      const kept = await makeCall(h, { end_at: '2025-02-17T15:10:00Z' });
      assertInvalid(await h.post('/v0/calls/upsert', callBody({ provider_id: kept.provider_id, start_at: '2025-02-17T15:20:00Z' })), '/end_at');
    });

    it('recordings: only audio/mpeg (422 at the content_type otherwise), an http(s) URL; accepted recordings are kept', async () => {
      const detail = assertInvalid(
        await h.post('/v0/calls', callBody({ recordings: [{ content_type: 'audio/mpeg', provider_id: 'r1', url: 'https://rec.example/1.mp3' }, { content_type: 'audio/wav', provider_id: 'r2', url: 'https://rec.example/2.wav' }] })),
        '/recordings/1/content_type',
      );
      assert.match(detail, /audio\/mpeg/);
      assertInvalid(await h.post('/v0/calls', callBody({ recordings: [{ content_type: 'audio/mpeg', provider_id: 'r1', url: 'not a url' }] })), '/recordings/0/url');
      // Clients open it as a link or in a player: only http(s).
      for (const url of ['javascript:alert(document.cookie)', 'data:audio/mpeg;base64,AAAA', 'ftp://rec.example/1.mp3']) {
        assert.match(assertInvalid(await h.post('/v0/calls', callBody({ recordings: [{ content_type: 'audio/mpeg', provider_id: 'r1', url }] })), '/recordings/0/url'), /http or https/);
      }
      const c = await makeCall(h, { recordings: [{ content_type: 'audio/mpeg', provider_id: 'r1', url: 'https://rec.example/1.mp3' }] });
      const [stored] = await h.store.calls.findMany(h.orgId, [c.id]);
      assert.deepEqual(stored!.recordings, [{ contentType: 'audio/mpeg', providerId: 'r1', url: 'https://rec.example/1.mp3' }]);
    });

    it('transcript: only with include[]=transcript; speakers labelled by phone and pointing at their participant', async () => {
      const c = await makeCall(h, {
        transcript: {
          cues: [
            { from: 0, to: 2.5, text: 'Hello?', speaker: STRANGER_PHONE },
            { from: 2.5, to: 4, text: 'Hi, Ada here.', speaker: ADA_PHONE },
            { from: 4, to: 5, text: 'Someone else.', speaker: GRACE_PHONE },
          ],
        },
      });
      assert.equal('transcript' in c, false);
      const plain = await h.get(`/v0/calls/${c.id}`);
      assert.equal('transcript' in plain.body, false);
      const res = await h.get(`/v0/calls/${c.id}?include[]=transcript`);
      assert.equal(res.status, 200, res.text);
      const [stranger, adaParticipant] = [c.participants[1], c.participants[0]];
      assert.deepEqual(res.body.transcript, {
        cues: [
          { from: 0, to: 2.5, text: 'Hello?', speaker: { attendee_id: stranger.id, label: STRANGER_PHONE } },
          { from: 2.5, to: 4, text: 'Hi, Ada here.', speaker: { attendee_id: adaParticipant.id, label: ADA_PHONE } },
          { from: 4, to: 5, text: 'Someone else.', speaker: { label: GRACE_PHONE } },
        ],
      });
      const none = await h.get(`/v0/calls/${(await makeCall(h)).id}?include[]=transcript`);
      assert.equal(none.body.transcript, null);
    });

    it('a transcript speaker that is not E.164, or a cue ending before it starts → 422 at the cue', async () => {
      assertInvalid(await h.post('/v0/calls', callBody({ transcript: { cues: [{ from: 0, to: 1, text: 'x', speaker: 'Ada' }] } })), '/transcript/cues/0/speaker');
      assertInvalid(await h.post('/v0/calls', callBody({ transcript: { cues: [{ from: 3, to: 1, text: 'x', speaker: ADA_PHONE }] } })), '/transcript/cues/0/to');
      // A transcript sent as an object is checked inside: the pointer names the cue's property, not the transcript.
      assertInvalid(await h.post('/v0/calls', callBody({ transcript: { cues: [{ from: 'a', to: 1, text: 'x', speaker: ADA_PHONE }] } })), '/transcript/cues/0/from');
      assertInvalid(await h.post('/v0/calls', callBody({ transcript: { cues: [{ from: 0, text: 'x', speaker: ADA_PHONE }] } })), '/transcript/cues/0/to');
      assertInvalid(await h.post('/v0/calls', callBody({ transcript: 'none' })), '/transcript');
    });

    it('include[]=note and include[]=summary: null without a note; the newest associated note with one', async () => {
      const c = await makeCall(h);
      const bare = await h.get(`/v0/calls/${c.id}?include[]=note&include[]=summary`);
      assert.equal(bare.status, 200, bare.text);
      assert.equal(bare.body.note, null);
      assert.equal(bare.body.summary, null);
      assert.equal('transcript' in bare.body, false);
      const first = await h.post('/v0/notes', { body: '# First', associations: [{ type: 'call', id: c.id }] });
      assert.equal(first.status, 201, first.text);
      const second = await h.post('/v0/notes', { body: '# Second', associations: [{ type: 'item', id: ada.id }, { type: 'call', id: c.id }] });
      assert.equal(second.status, 201, second.text);
      assert.deepEqual(second.body.associations, [
        { id: ada.id, type: 'item', collection: people },
        { id: c.id, type: 'call' },
      ]);
      const withNote = await h.get(`/v0/calls/${c.id}?include[]=note`);
      assert.deepEqual(withNote.body.note, second.body);
      assert.equal('summary' in withNote.body, false);
      assert.deepEqual((await h.get(`/v0/notes/${first.body.id}`)).body.associations, [{ id: c.id, type: 'call' }]);
    });

    it('an unknown include[] value → 400 naming include[]', async () => {
      const c = await makeCall(h);
      const res = await h.get(`/v0/calls/${c.id}?include[]=attendees`);
      assert.equal(res.status, 400, res.text);
      assert.equal(errorOf(res).source?.parameter, 'include[]');
      assert.equal((await h.get('/v0/calls?include[]=organizer')).status, 400);
    });

    it('notes: an unknown or foreign call → 422 at /associations/<i>/id', async () => {
      assertInvalid(await h.post('/v0/notes', { body: 'x', associations: [{ type: 'call', id: UNKNOWN_ID }] }), '/associations/0/id');
      const other = await h.newOrg();
      const theirs = await h.post('/v0/calls', callBody(), { key: other.key });
      assert.equal(theirs.status, 201, theirs.text);
      assertInvalid(await h.post('/v0/notes', { body: 'x', associations: [{ type: 'item', id: ada.id }, { type: 'call', id: theirs.body.id }] }), '/associations/1/id');
    });

    it('an unknown or foreign call → bare 404', async () => {
      assertBareNotFound(await h.get(`/v0/calls/${UNKNOWN_ID}`));
      const other = await h.newOrg();
      const c = await makeCall(h);
      assertBareNotFound(await h.get(`/v0/calls/${c.id}`, { key: other.key }));
    });

    it('POST /calls with a provider_id already logged → 409, and nothing is written', async () => {
      const c = await makeCall(h);
      const res = await h.post('/v0/calls', callBody({ provider_id: c.provider_id }));
      assert.equal(res.status, 409, res.text);
      assert.equal(res.headers['x-should-retry'], 'false');
      // Another provider may use the same id.
      await makeCall(h, { provider: 'zoom_phone', provider_id: c.provider_id });
    });

    it('records activity/call_occurred at the call\'s start: people as actors, the call as object', async () => {
      const c = await makeCall(h, {
        start_at: '2024-06-01T09:30:00+02:00',
        participants: [
          { phone: ADA_PHONE, role: 'caller' },
          { phone: GRACE_PHONE, role: 'callee' },
          { phone: STRANGER_PHONE, role: 'other' },
        ],
      });
      const [activity, ...rest] = await activitiesOf(h, 'call', c.id);
      assert.equal(rest.length, 0);
      assert.equal(activity.type, 'activity/call_occurred');
      assert.equal(activity.occurred_at, '2024-06-01T07:30:00.000Z');
      assert.deepEqual(activity.constituents, [
        { type: 'constituent', relation: 'actor', entity: { id: ada.id, type: 'item', collection: people } },
        { type: 'constituent', relation: 'actor', entity: { id: grace.id, type: 'item', collection: people } },
        { type: 'constituent', relation: 'object', entity: { id: c.id, type: 'call' } },
      ]);
      const byGrace = await activitiesOf(h, 'item', grace.id, '&type[eq]=activity/call_occurred&constituent_relation[eq]=actor');
      assert.ok(byGrace.some((a) => a.id === activity.id));
      const byType = await h.get('/v0/activities?constituent_entity_type[eq]=call&limit=100');
      assert.ok(byType.body.data.some((a: any) => a.id === activity.id));
    });

    it('an upsert that corrects the start moves activity/call_occurred with it, in the feed and its filters', async () => {
      const c = await makeCall(h, { start_at: '2025-01-01T00:00:00Z' });
      const moved = await h.post('/v0/calls/upsert', callBody({ provider_id: c.provider_id, start_at: '2025-06-01T00:00:00Z' }));
      assert.equal(moved.status, 200, moved.text);
      const [activity, ...rest] = await activitiesOf(h, 'call', c.id);
      assert.equal(rest.length, 0, 'still one call_occurred');
      assert.equal(activity.occurred_at, '2025-06-01T00:00:00.000Z');
      const later = await activitiesOf(h, 'call', c.id, '&occurred_at[gte]=2025-05-31T00:00:00Z');
      assert.deepEqual(later.map((a) => a.id), [activity.id]);
      assert.deepEqual(await activitiesOf(h, 'call', c.id, '&occurred_at[lte]=2025-05-31T00:00:00Z'), []);
      // An upsert keeping the start leaves the activity alone.
      assert.equal((await h.post('/v0/calls/upsert', callBody({ provider_id: c.provider_id, start_at: '2025-06-01T02:00:00+02:00' }))).status, 200);
      assert.equal((await activitiesOf(h, 'call', c.id))[0].occurred_at, '2025-06-01T00:00:00.000Z');
    });

    it('an upsert that changes who took part changes the actors of activity/call_occurred, in the feed too', async () => {
      const c = await makeCall(h, { participants: [{ phone: ADA_PHONE, role: 'caller' }, { phone: STRANGER_PHONE, role: 'callee' }] });
      const [before] = await activitiesOf(h, 'call', c.id);
      const actorIds = (a: any) => a.constituents.filter((k: any) => k.relation === 'actor').map((k: any) => k.entity.id);
      assert.deepEqual(actorIds(before), [ada.id]);
      const byActor = (person: any) => activitiesOf(h, 'item', person.id, '&type[eq]=activity/call_occurred&constituent_relation[eq]=actor');
      const corrected = await h.post('/v0/calls/upsert', callBody({ provider_id: c.provider_id, participants: [{ phone: GRACE_PHONE, role: 'caller' }, { phone: STRANGER_PHONE, role: 'callee' }] }));
      assert.equal(corrected.status, 200, corrected.text);
      const [after, ...rest] = await activitiesOf(h, 'call', c.id);
      assert.equal(rest.length, 0, 'still one call_occurred');
      assert.equal(after.id, before.id);
      assert.deepEqual(actorIds(after), [grace.id]);
      assert.deepEqual(after.constituents.at(-1), { type: 'constituent', relation: 'object', entity: { id: c.id, type: 'call' } });
      assert.ok(!(await byActor(ada)).some((a) => a.id === before.id), 'Ada no longer took part');
      assert.ok((await byActor(grace)).some((a) => a.id === before.id), 'Grace did');
      assert.deepEqual((await h.get(`/v0/activities/${before.id}`)).body.constituents, after.constituents);
    });
  });
  describe(`calls: tags (${engine})`, () => {
    let h: Harness;
    let hot: any;
    let cold: any;
    let inboxOnly: any;
    before(async () => {
      h = await createHarness(engine);
      const onCalls = await h.post('/v0/tagsets', { name: 'Call tags', tags: [{ name: 'Hot', color: 'red' }, { name: 'Cold' }], associations: [{ type: 'calls' }] });
      assert.equal(onCalls.status, 201, onCalls.text);
      [hot, cold] = onCalls.body.tags;
      const elsewhere = await h.post('/v0/tagsets', { name: 'Meeting tags', tags: [{ name: 'Elsewhere' }], associations: [{ type: 'meetings' }] });
      assert.equal(elsewhere.status, 201, elsewhere.text);
      inboxOnly = elsewhere.body.tags[0];
    });
    after(() => h.close());

    const tag = (t: any) => ({ id: t.id, type: 'tag' });

    it('tags of tagsets available on calls are applied and shown whole', async () => {
      const c = await makeCall(h, { tags: [tag(hot), tag(cold), tag(hot)] });
      assert.deepEqual(c.tags, [
        { id: hot.id, type: 'tag', name: 'Hot', color: 'red' },
        { id: cold.id, type: 'tag', name: 'Cold', color: 'lunar' },
      ]);
      assert.deepEqual((await h.get(`/v0/calls/${c.id}`)).body.tags, c.tags);
    });

    it('an unknown tag, or one of a tagset not available on calls → 422 at its pointer', async () => {
      assertInvalid(await h.post('/v0/calls', callBody({ tags: [tag(hot), { id: UNKNOWN_ID, type: 'tag' }] })), '/tags/1/id');
      assertInvalid(await h.post('/v0/calls', callBody({ tags: [tag(inboxOnly)] })), '/tags/0/id');
      assertInvalid(await h.post('/v0/calls', callBody({ tags: [{ id: hot.id, type: 'tagset' }] })), '/tags/0/type');
    });

    it('a tagset created without associations (the SDKs cannot send them) tags calls; inboxes do not list it', async () => {
      const open = await h.post('/v0/tagsets', { name: 'Outcomes', tags: [{ name: 'Booked demo', color: 'green' }] });
      assert.equal(open.status, 201, open.text);
      assert.deepEqual(open.body.associations, []);
      const [booked] = open.body.tags;
      const c = await makeCall(h, { tags: [tag(booked), tag(hot)] });
      assert.deepEqual(c.tags.map((t: any) => t.id), [booked.id, hot.id]);
      const inbox = await createInbox(h.store, h.orgId, { name: 'Support', email: 'support@tycho.test' });
      assert.deepEqual((await h.get(`/v0/inboxes/${inbox.id}?include[]=tagsets`)).body.tagsets, []);
    });

    it('upsert: omitted tags stay, [] clears them', async () => {
      const body = callBody({ tags: [tag(hot)] });
      const created = await h.post('/v0/calls/upsert', body);
      assert.equal(created.status, 201, created.text);
      const { tags: _omitted, ...withoutTags } = body;
      const kept = await h.post('/v0/calls/upsert', { ...withoutTags, provider_status: 'voicemail' });
      assert.equal(kept.status, 200, kept.text);
      assert.deepEqual(kept.body.tags.map((t: any) => t.id), [hot.id]);
      const changed = await h.post('/v0/calls/upsert', { ...body, tags: [tag(cold)] });
      assert.deepEqual(changed.body.tags.map((t: any) => t.id), [cold.id]);
      const cleared = await h.post('/v0/calls/upsert', { ...body, tags: [] });
      assert.equal(cleared.status, 200, cleared.text);
      assert.deepEqual(cleared.body.tags, []);
      assert.deepEqual((await h.get(`/v0/calls/${created.body.id}`)).body.tags, []);
    });
  });

  describe(`calls: upsert and list (${engine})`, () => {
    let h: Harness;
    let ada: any;
    let grace: any;
    before(async () => {
      h = await createHarness(engine);
      ada = await makeItem(h, 'people', { name: text('Ada'), phone: [val('telephone_number', ADA_PHONE)] });
      grace = await makeItem(h, 'people', { name: text('Grace'), phone: [val('telephone_number', GRACE_PHONE)] });
    });
    after(() => h.close());

    it('upsert creates (201) then updates the call with the same provider and provider_id (200)', async () => {
      const body = callBody({ provider_status: 'ringing', transcript: { cues: [{ from: 0, to: 1, text: 'Hi', speaker: ADA_PHONE }] }, end_at: '2025-02-17T15:05:00Z' });
      const first = await h.post('/v0/calls/upsert', body);
      assert.equal(first.status, 201, first.text);
      const second = await h.post('/v0/calls/upsert', {
        ...body,
        provider_status: 'completed',
        start_at: '2025-02-17T15:01:00.000Z',
        transcript: undefined,
        end_at: undefined,
        participants: [{ phone: ADA_PHONE, role: 'caller' }, { phone: GRACE_PHONE, role: 'callee' }],
      });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.id, first.body.id);
      assert.equal(second.body.provider_status, 'completed');
      assert.equal(second.body.created_at, first.body.created_at);
      // Omitted optional properties are unchanged.
      assert.equal(second.body.end_at, '2025-02-17T15:05:00.000Z');
      assert.equal((await h.get(`/v0/calls/${first.body.id}?include[]=transcript`)).body.transcript.cues.length, 1);
      // A participant with the same phone and role keeps its id.
      assert.equal(second.body.participants[0].id, first.body.participants[0].id);
      assert.deepEqual(second.body.participants.map((p: any) => p.phone), [ADA_PHONE, GRACE_PHONE]);
      // The kept participant's matches were rewritten and the new one's written: both read back matched.
      const matched = (call: any) => call.participants.map((p: any) => p.person?.id);
      assert.deepEqual(matched(first.body), [ada.id, undefined]);
      assert.deepEqual(matched(second.body), [ada.id, grace.id]);
      assert.deepEqual(matched((await h.get(`/v0/calls/${first.body.id}`)).body), matched(second.body));
      // One call_occurred, from the creation.
      assert.equal((await activitiesOf(h, 'call', first.body.id)).length, 1);
      // Another provider with the same id is another call.
      const zoom = await h.post('/v0/calls/upsert', { ...body, provider: 'zoom_phone' });
      assert.equal(zoom.status, 201, zoom.text);
      assert.notEqual(zoom.body.id, first.body.id);
    });

    it('upsert validates like create (422 at the pointer) and writes nothing', async () => {
      const body = callBody({ participants: [{ phone: 'not a phone', role: 'caller' }] });
      assertInvalid(await h.post('/v0/calls/upsert', body), '/participants/0/phone');
      const ok = await h.post('/v0/calls/upsert', { ...body, participants: [{ phone: ADA_PHONE, role: 'caller' }] });
      assert.equal(ok.status, 201, ok.text);
    });

    it('concurrent upserts of one provider_id make one call', async () => {
      const body = callBody();
      const results = await Promise.all(Array.from({ length: 8 }, () => h.post('/v0/calls/upsert', body)));
      for (const r of results) assert.ok(r.status === 200 || r.status === 201, r.text);
      assert.equal(results.filter((r) => r.status === 201).length, 1);
      assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
      assert.equal((await activitiesOf(h, 'call', results[0]!.body.id)).length, 1);
    });

    it('lists calls oldest first in keyset pages, with include[] like a retrieve', async () => {
      const org = await h.newOrg();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await h.post('/v0/calls', callBody({ transcript: { cues: [{ from: 0, to: 1, text: `#${i}`, speaker: ADA_PHONE }] } }), { key: org.key });
        assert.equal(res.status, 201, res.text);
        ids.push(res.body.id);
      }
      const pages = await walkForward((query) => h.get(`/v0/calls?limit=2${query ? `&${query}` : ''}`, { key: org.key }));
      assert.deepEqual(pages.map((p) => p.data.length), [2, 2, 1]);
      assert.deepEqual(pages.flatMap((p) => p.data.map((c: any) => c.id)), ids);
      assert.equal('transcript' in pages[0].data[0], false);
      const withTranscript = await h.get('/v0/calls?limit=1&include[]=transcript&include[]=note', { key: org.key });
      assert.equal(withTranscript.status, 200, withTranscript.text);
      assert.equal(withTranscript.body.data[0].transcript.cues[0].text, '#0');
      assert.equal(withTranscript.body.data[0].note, null);
      // Our organization's calls are not theirs.
      const ours = await h.get('/v0/calls?limit=100');
      assert.ok(!ours.body.data.some((c: any) => ids.includes(c.id)));
    });

    it('a matched person deleted later disappears from the participant; the call stays', async () => {
      const temp = await makeItem(h, 'people', { name: text('Temp'), phone: [val('telephone_number', STRANGER_PHONE)] });
      const c = await makeCall(h, { participants: [{ phone: STRANGER_PHONE, role: 'callee' }] });
      assert.equal(c.participants[0].person.id, temp.id);
      assert.equal((await h.delete(`/v0/collections/people/items/${temp.id}`)).status, 204);
      const after = await h.get(`/v0/calls/${c.id}`);
      assert.equal(after.status, 200, after.text);
      assert.equal('person' in after.body.participants[0], false);
      void ada;
    });
  });
}

if (ENGINES.includes('postgres')) {
  describe('calls: upserts from separate connection pools sharing one PostgreSQL database (postgres)', () => {
    it('racing upserts of one provider_id through two stores make one call and one call_occurred', async () => {
      const database = await throwawayPostgres();
      const dataDir = mkdtempSync(join(tmpdir(), 'tycho-calls-'));
      const open = () =>
        openRuntime(loadConfig({ DATABASE_URL: database.url, TYCHO_API_KEY: TEST_KEY, LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '4', TYCHO_DATA_DIR: dataDir }));
      const first = await open();
      const second = await open();
      try {
        const principal: Principal = { orgId: first.defaultOrg.id, scope: 'write', actor: { id: 'test', type: 'api_key' } };
        const input = callBody() as unknown as CallInput;
        const results = await Promise.all(Array.from({ length: 12 }, (_, i) => upsertCall((i % 2 === 0 ? first : second).store, principal, input)));
        assert.equal(results.filter((r) => r.created).length, 1);
        assert.equal(new Set(results.map((r) => r.call.id)).size, 1);
        const activities = await first.store.activities.listByEntity(principal.orgId, 'call', results[0]!.call.id);
        assert.equal(activities.length, 1);
      } finally {
        await first.store.close();
        await second.store.close();
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
