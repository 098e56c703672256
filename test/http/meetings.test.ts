// Meetings through HTTP (reference §5.16, §5.17, §7): Tycho's create-or-update extension (POST
// /v0/tycho/meetings) with organizer and attendees matched to people by email and to organizations by domain,
// the meeting shape, the list with its i_cal_uid filter in both spellings, retrieve with every include[], PATCH
// (recording only as video/mp4, transcript, tags of tagsets available on meetings), notes associated with
// meetings, `activity/meeting_scheduled` on creation and `activity/meeting_held` once the end has passed by the
// server's clock (recorded once, however many readers race), and `tycho meetings import FILE.ics`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertBareNotFound, ENGINES, createHarness, errorOf, throwawayPostgres, type Harness } from '../helpers/harness.ts';
import { assertInvalid, collectionPointer, email, makeItem, text, walkForward, type CollectionPointer } from '../helpers/items.ts';
import { activitiesOf } from '../helpers/activities.ts';
import { tycho } from '../helpers/tycho-cli.ts';
import { recordMeetingsHeld } from '../../src/domain/meetings.ts';

const ID = /^[1-9A-HJ-NP-Za-km-z]{22}$/;
const UNKNOWN_ID = '1ChFLYDsNehG6QDPrqx815';
const domain = (data: string) => ({ type: 'value/uri/domain', data });

let uidCounter = 0;
const uid = (label = 'meeting') => `${label}-${process.pid}-${++uidCounter}@tycho.test`;

function meetingBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    i_cal_uid: uid(),
    title: 'Quarterly review',
    start_at: '2030-03-10T09:00:00Z',
    end_at: '2030-03-10T10:30:00Z',
    time_zone: 'Europe/Berlin',
    ...extra,
  };
}

async function makeMeeting(h: Harness, extra: Record<string, unknown> = {}, key?: string): Promise<any> {
  const res = await h.post('/v0/tycho/meetings', meetingBody(extra), key ? { key } : {});
  assert.equal(res.status, 201, res.text);
  return res.body;
}

for (const engine of ENGINES) {
  describe(`meetings: create extension, shape, matching, list, retrieve, PATCH (${engine})`, () => {
    let h: Harness;
    let people: CollectionPointer;
    let organizations: CollectionPointer;
    let ada: any;
    let acme: any;
    before(async () => {
      h = await createHarness(engine);
      people = await collectionPointer(h, 'people');
      organizations = await collectionPointer(h, 'organizations');
      ada = await makeItem(h, 'people', { name: text('Ada Lovelace'), email: [email('ada@example.com')] });
      acme = await makeItem(h, 'organizations', { name: text('Acme'), domain: [domain('acme.test')] });
    });
    after(() => h.close());

    it('POST /v0/tycho/meetings creates a meeting: 201, the reference shape, duration in seconds, organizer and attendees matched', async () => {
      const res = await h.post(
        '/v0/tycho/meetings',
        meetingBody({
          description: 'Numbers',
          location: 'Room 1',
          provider_uri: 'https://calendar.test/e/1',
          organizer: { email: 'Ada@Example.com', name: 'Ada' },
          attendees: [{ email: 'wile@acme.test', name: 'Wile E.' }, { email: 'nobody@elsewhere.test' }],
        }),
      );
      assert.equal(res.status, 201, res.text);
      const m = res.body;
      assert.match(m.id, ID);
      assert.equal(m.type, 'meeting');
      assert.equal(m.provider_id, m.i_cal_uid, 'provider_id defaults to the UID');
      assert.equal(m.title, 'Quarterly review');
      assert.equal(m.description, 'Numbers');
      assert.equal(m.location, 'Room 1');
      assert.equal(m.provider_uri, 'https://calendar.test/e/1');
      assert.equal(m.start_at, '2030-03-10T09:00:00.000Z');
      assert.equal(m.end_at, '2030-03-10T10:30:00.000Z');
      assert.equal(m.duration, 5400);
      assert.equal(m.time_zone, 'Europe/Berlin');
      assert.deepEqual(m.tags, []);
      assert.equal(m.recording_url, undefined);
      assert.equal(m.organizer.type, 'meeting_organizer');
      assert.match(m.organizer.id, ID);
      assert.equal(m.organizer.email, 'Ada@example.com');
      assert.deepEqual(m.organizer.person, { id: ada.id, type: 'item', collection: people });
      assert.equal(m.organizer.organization, undefined);
      assert.deepEqual(
        m.attendees.map((a: any) => [a.type, a.email, a.person?.id, a.organization]),
        [
          ['meeting_attendee', 'wile@acme.test', undefined, { id: acme.id, type: 'item', collection: organizations }],
          ['meeting_attendee', 'nobody@elsewhere.test', undefined, undefined],
        ],
      );
    });

    it('records activity/meeting_scheduled once on creation: the meeting as object, matched people as actors', async () => {
      const m = await makeMeeting(h, { organizer: { email: 'ada@example.com' } });
      const activities = await activitiesOf(h, 'meeting', m.id);
      assert.deepEqual(activities.map((a) => a.type), ['activity/meeting_scheduled']);
      assert.deepEqual(activities[0].constituents, [
        { type: 'constituent', relation: 'actor', entity: { id: ada.id, type: 'item', collection: people } },
        { type: 'constituent', relation: 'object', entity: { id: m.id, type: 'meeting' } },
      ]);
    });

    it('POST with a known i_cal_uid updates that meeting: 200, same id, kept participant ids, no second meeting_scheduled', async () => {
      const body = meetingBody({ attendees: [{ email: 'one@acme.test' }, { email: 'two@acme.test' }] });
      const first = await h.post('/v0/tycho/meetings', body);
      assert.equal(first.status, 201, first.text);
      const second = await h.post('/v0/tycho/meetings', { ...body, title: 'Moved review', end_at: '2030-03-10T11:00:00Z', attendees: [{ email: 'two@acme.test' }, { email: 'three@acme.test' }] });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.id, first.body.id);
      assert.equal(second.body.title, 'Moved review');
      assert.equal(second.body.duration, 7200);
      assert.equal(second.body.attendees[0].id, first.body.attendees[1].id, 'two@acme.test keeps its id');
      assert.notEqual(second.body.attendees[1].id, first.body.attendees[0].id);
      assert.equal((await activitiesOf(h, 'meeting', first.body.id)).length, 1);
      const listed = await h.get(`/v0/meetings?i_cal_uid[eq]=${encodeURIComponent(body.i_cal_uid as string)}`);
      assert.equal(listed.body.data.length, 1);
    });

    it('an update keeps what it does not send; null and [] clear (was: every property left out was erased)', async () => {
      const full = meetingBody({
        description: 'Numbers', location: 'Room 1', provider_uri: 'https://meet.test/q', organizer: { email: 'ada@example.com', name: 'Ada' },
        attendees: [{ email: 'one@acme.test' }],
      });
      const first = await h.post('/v0/tycho/meetings', full);
      assert.equal(first.status, 201, first.text);
      const include = '?include[]=organizer&include[]=attendees';
      const times = { i_cal_uid: full.i_cal_uid, start_at: full.start_at, end_at: '2030-03-10T11:00:00Z' };
      const moved = await h.post('/v0/tycho/meetings', times);
      assert.equal(moved.status, 200, moved.text);
      const kept = (await h.get(`/v0/meetings/${first.body.id}${include}`)).body;
      assert.deepEqual(
        [kept.title, kept.description, kept.location, kept.provider_uri, kept.time_zone, kept.duration],
        ['Quarterly review', 'Numbers', 'Room 1', 'https://meet.test/q', 'Europe/Berlin', 7200],
      );
      assert.equal(kept.organizer.id, first.body.organizer.id);
      assert.deepEqual(kept.attendees.map((a: any) => a.id), first.body.attendees.map((a: any) => a.id));
      const cleared = await h.post('/v0/tycho/meetings', { ...times, location: null, organizer: null, attendees: [] });
      assert.equal(cleared.status, 200, cleared.text);
      const now = (await h.get(`/v0/meetings/${first.body.id}${include}`)).body;
      assert.equal(now.location ?? null, null);
      assert.equal(now.organizer ?? null, null);
      assert.deepEqual(now.attendees ?? [], []);
      assert.equal(now.description, 'Numbers');
    });

    it('racing saves of one new i_cal_uid make one meeting: one 201, the others 200, one meeting_scheduled', async () => {
      const body = meetingBody({ attendees: [{ email: 'race@acme.test' }] });
      const results = await Promise.all(Array.from({ length: 6 }, () => h.post('/v0/tycho/meetings', body)));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 201], results.map((r) => r.text).join('\n'));
      assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
      const listed = await h.get(`/v0/meetings?i_cal_uid[eq]=${encodeURIComponent(body.i_cal_uid as string)}`);
      assert.equal(listed.body.data.length, 1);
      assert.equal((await activitiesOf(h, 'meeting', results[0]!.body.id)).length, 1);
    });

    it('matches are links: deleting the matched person drops it from the organizer, the meeting stays', async () => {
      const grace = await makeItem(h, 'people', { name: text('Grace'), email: [email('grace@acme.test')] });
      const m = await makeMeeting(h, { organizer: { email: 'grace@acme.test' } });
      const before = (await h.get(`/v0/meetings/${m.id}?include[]=organizer`)).body.organizer;
      assert.equal(before.person.id, grace.id);
      assert.equal(before.organization.id, acme.id);
      assert.equal((await h.delete(`/v0/collections/people/items/${grace.id}`)).status, 204);
      const after = (await h.get(`/v0/meetings/${m.id}?include[]=organizer`)).body.organizer;
      assert.equal(after.person, undefined);
      assert.equal(after.organization.id, acme.id);
      assert.equal(after.email, 'grace@acme.test');
    });

    it('refuses bad input with 422 at the property: end before start, time zone, dates without a zone, emails, blank UID', async () => {
      assertInvalid(await h.post('/v0/tycho/meetings', meetingBody({ end_at: '2030-03-10T08:00:00Z' })), '/end_at');
      // Each message names its property (the guide's rule; a bare "must be …" came back at times).
      assert.match(assertInvalid(await h.post('/v0/tycho/meetings', meetingBody({ time_zone: 'Mars/Olympus' })), '/time_zone'), /^time_zone must be an IANA time zone/);
      assert.match(assertInvalid(await h.post('/v0/tycho/meetings', meetingBody({ start_at: '2030-03-10T09:00:00' })), '/start_at'), /^start_at must be an ISO 8601/);
      assert.match(assertInvalid(await h.post('/v0/tycho/meetings', meetingBody({ title: 'x'.repeat(1025) })), '/title'), /^title must be at most 1024 characters/);
      assert.match(assertInvalid(await h.post('/v0/tycho/meetings', meetingBody({ attendees: [{ email: 'a@b.test', name: 'n'.repeat(1025) }] })), '/attendees/0/name'), /^attendees\.0\.name must be/);
      assertInvalid(await h.post('/v0/tycho/meetings', meetingBody({ attendees: [{ email: 'not an email' }] })), '/attendees/0/email');
      assertInvalid(await h.post('/v0/tycho/meetings', meetingBody({ organizer: { email: '@' } })), '/organizer/email');
      assertInvalid(await h.post('/v0/tycho/meetings', meetingBody({ i_cal_uid: '  ' })), '/i_cal_uid');
      const crowd = Array.from({ length: 1001 }, (_, i) => ({ email: `guest${i}@crowd.test` }));
      assertInvalid(await h.post('/v0/tycho/meetings', meetingBody({ attendees: crowd })), '/attendees');
      const missing = await h.post('/v0/tycho/meetings', { i_cal_uid: uid(), start_at: '2030-03-10T09:00:00Z' });
      assert.equal(missing.status, 422, missing.text);
      assert.equal(errorOf(missing).source?.pointer, '/end_at');
    });

    it('GET /v0/meetings lists whole meetings in creation order; i_cal_uid[eq] and filter[i_cal_uid][eq] narrow it', async () => {
      const other = await h.newOrg();
      const a = await makeMeeting(h, {}, other.key);
      const b = await makeMeeting(h, {}, other.key);
      const c = await makeMeeting(h, {}, other.key);
      const pages = await walkForward((q) => h.get(`/v0/meetings?limit=2${q ? `&${q}` : ''}`, { key: other.key }));
      const all = pages.flatMap((p) => p.data);
      assert.deepEqual(all.map((m: any) => m.id), [a.id, b.id, c.id]);
      assert.equal(all[0].type, 'meeting');
      assert.equal(all[0].i_cal_uid, a.i_cal_uid);
      assert.equal(all[0].organizer, undefined, 'no includes on the list');
      for (const query of [`i_cal_uid[eq]=${encodeURIComponent(b.i_cal_uid)}`, `filter[i_cal_uid][eq]=${encodeURIComponent(b.i_cal_uid)}`]) {
        const res = await h.get(`/v0/meetings?${query}`, { key: other.key });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data.map((m: any) => m.id), [b.id], query);
      }
      const none = await h.get(`/v0/meetings?i_cal_uid[eq]=${encodeURIComponent(b.i_cal_uid)}`);
      assert.deepEqual(none.body.data, [], "another organization's meetings are not listed");
      const empty = await h.get('/v0/meetings?i_cal_uid[eq]=');
      assert.equal(empty.status, 400, empty.text);
      assert.equal(errorOf(empty).source?.parameter, 'i_cal_uid[eq]');
    });

    it('GET /v0/meetings/{id}: includes only what include[] asks for; note and summary null, transcript null until added', async () => {
      const m = await makeMeeting(h, { organizer: { email: 'ada@example.com' }, attendees: [{ email: 'x@acme.test' }] });
      const bare = await h.get(`/v0/meetings/${m.id}`);
      assert.equal(bare.status, 200, bare.text);
      for (const key of ['organizer', 'attendees', 'transcript', 'note', 'summary']) assert.equal(bare.body[key], undefined, key);
      const full = await h.get(`/v0/meetings/${m.id}?include[]=organizer&include[]=attendees&include[]=transcript&include[]=note&include[]=summary`);
      assert.equal(full.status, 200, full.text);
      assert.equal(full.body.organizer.person.id, ada.id);
      assert.equal(full.body.attendees.length, 1);
      assert.equal(full.body.transcript, null);
      assert.equal(full.body.note, null);
      assert.equal(full.body.summary, null);
      const bad = await h.get(`/v0/meetings/${m.id}?include[]=recording`);
      assert.equal(bad.status, 400, bad.text);
      assert.equal(errorOf(bad).source?.parameter, 'include[]');
    });

    it('unknown ids and other organizations’ meetings are a bare 404 on GET and PATCH', async () => {
      assertBareNotFound(await h.get(`/v0/meetings/${UNKNOWN_ID}`));
      assertBareNotFound(await h.patch(`/v0/meetings/${UNKNOWN_ID}`, { tags: [] }));
      const other = await h.newOrg();
      const theirs = await makeMeeting(h, {}, other.key);
      assertBareNotFound(await h.get(`/v0/meetings/${theirs.id}`));
      assertBareNotFound(await h.patch(`/v0/meetings/${theirs.id}`, { tags: [] }));
    });

    it('PATCH adds a video/mp4 recording (recording_url) and refuses any other content type with 422 at /recording/content_type', async () => {
      const m = await makeMeeting(h);
      const refused = await h.patch(`/v0/meetings/${m.id}`, { recording: { content_type: 'audio/mpeg', provider_id: 'r1', url: 'https://rec.test/1.mp3' } });
      assert.match(assertInvalid(refused, '/recording/content_type'), /video\/mp4/);
      assert.equal((await h.get(`/v0/meetings/${m.id}`)).body.recording_url, undefined, 'nothing stored');
      const res = await h.patch(`/v0/meetings/${m.id}`, { recording: { content_type: 'video/mp4', provider_id: 'r1', url: 'https://rec.test/1.mp4' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.recording_url, 'https://rec.test/1.mp4');
      assert.equal((await h.get(`/v0/meetings/${m.id}`)).body.recording_url, 'https://rec.test/1.mp4');
    });

    it('PATCH refuses a recording whose url is no URL (422 at /recording/url) or whose provider_id is blank, as calls do; nothing changes', async () => {
      const m = await makeMeeting(h);
      const recording = { content_type: 'video/mp4', provider_id: 'r1', url: 'https://rec.test/1.mp4' };
      // Regression: any text was kept and shown as recording_url, which clients open as a link.
      assert.match(assertInvalid(await h.patch(`/v0/meetings/${m.id}`, { recording: { ...recording, url: 'not a url' } }), '/recording/url'), /^url must be a URL with a scheme/);
      assert.match(assertInvalid(await h.patch(`/v0/meetings/${m.id}`, { recording: { ...recording, url: 'javascript:alert(document.cookie)' } }), '/recording/url'), /http or https URL .*recording\.mp4"/);
      assertInvalid(await h.patch(`/v0/meetings/${m.id}`, { recording: { ...recording, provider_id: ' ' } }), '/recording/provider_id');
      assert.equal((await h.get(`/v0/meetings/${m.id}`)).body.recording_url, undefined, 'nothing stored');
    });

    it('PATCH adds a transcript; include[]=transcript shows its cues with the speaker as label (and attendee_id when an attendee has that name)', async () => {
      const m = await makeMeeting(h, { attendees: [{ email: 'wile@acme.test', name: 'Wile E.' }] });
      const res = await h.patch(`/v0/meetings/${m.id}`, {
        transcript: {
          provider: 'recorder',
          provider_id: 't1',
          cues: [
            { from: 0, to: 2.5, text: 'Hello', speaker: 'Wile E.' },
            { from: 2.5, to: 4, text: 'Hi', speaker: 'Road Runner' },
          ],
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.transcript, undefined, 'PATCH answers without includes');
      const got = await h.get(`/v0/meetings/${m.id}?include[]=transcript&include[]=attendees`);
      assert.deepEqual(got.body.transcript, {
        cues: [
          { from: 0, to: 2.5, text: 'Hello', speaker: { attendee_id: got.body.attendees[0].id, label: 'Wile E.' } },
          { from: 2.5, to: 4, text: 'Hi', speaker: { label: 'Road Runner' } },
        ],
      });
      assertInvalid(await h.patch(`/v0/meetings/${m.id}`, { transcript: { provider: 'r', provider_id: 't', cues: [{ from: 3, to: 1, text: 'x' }] } }), '/transcript/cues/0/to');
      assertInvalid(await h.patch(`/v0/meetings/${m.id}`, { transcript: { provider: 'r', provider_id: 't', cues: [{ from: -1, to: 1, text: 'x' }] } }), '/transcript/cues/0/from');
      // As long as a call's cue may be, no longer (was unbounded).
      assertInvalid(await h.patch(`/v0/meetings/${m.id}`, { transcript: { provider: 'r', provider_id: 't', cues: [{ from: 0, to: 1, text: 'x'.repeat(65_537) }] } }), '/transcript/cues/0/text');
    });

    it('PATCH tags: only tags of tagsets available on meetings; omitted = unchanged, [] = clear', async () => {
      const meetingsTagset = await h.post('/v0/tagsets', { name: 'Meeting kinds', tags: [{ name: 'Demo', color: 'teal' }, { name: 'Intro' }], associations: [{ type: 'meetings' }] });
      const callsTagset = await h.post('/v0/tagsets', { name: 'Call kinds', tags: [{ name: 'Cold' }], associations: [{ type: 'calls' }] });
      const [demo, intro] = meetingsTagset.body.tags;
      const [cold] = callsTagset.body.tags;
      const m = await makeMeeting(h);
      const res = await h.patch(`/v0/meetings/${m.id}`, { tags: [{ id: demo.id, type: 'tag' }, { id: intro.id, type: 'tag' }] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.tags, [
        { id: demo.id, type: 'tag', name: 'Demo', color: 'teal' },
        { id: intro.id, type: 'tag', name: 'Intro', color: 'lunar' },
      ]);
      assert.deepEqual((await h.patch(`/v0/meetings/${m.id}`, {})).body.tags.map((t: any) => t.id), [demo.id, intro.id], 'omitted: unchanged');
      assertInvalid(await h.patch(`/v0/meetings/${m.id}`, { tags: [{ id: demo.id, type: 'tag' }, { id: cold.id, type: 'tag' }] }), '/tags/1/id');
      assertInvalid(await h.patch(`/v0/meetings/${m.id}`, { tags: [{ id: UNKNOWN_ID, type: 'tag' }] }), '/tags/0/id');
      assert.equal((await h.get(`/v0/meetings/${m.id}`)).body.tags.length, 2, 'a refused PATCH changes nothing');
      assert.deepEqual((await h.patch(`/v0/meetings/${m.id}`, { tags: [] })).body.tags, []);
    });

    it('PATCH tags: a tagset created without associations tags meetings too', async () => {
      const open = await h.post('/v0/tagsets', { name: 'Anywhere', tags: [{ name: 'Follow up' }] });
      assert.equal(open.status, 201, open.text);
      const m = await makeMeeting(h);
      const res = await h.patch(`/v0/meetings/${m.id}`, { tags: [{ id: open.body.tags[0].id, type: 'tag' }] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.tags.map((t: any) => t.name), ['Follow up']);
    });

    it('a read-only key can read meetings but not PATCH or create them (403)', async () => {
      const key = await h.readOnlyKey();
      const m = await makeMeeting(h);
      assert.equal((await h.get(`/v0/meetings/${m.id}`, { key })).status, 200);
      assert.equal((await h.patch(`/v0/meetings/${m.id}`, { tags: [] }, { key })).status, 403);
      assert.equal((await h.post('/v0/tycho/meetings', meetingBody(), { key })).status, 403);
    });

    it('notes associate with meetings ({type: "meeting", id}); include[]=note shows the newest; unknown meeting → 422 at its pointer', async () => {
      const m = await makeMeeting(h);
      const first = await h.post('/v0/notes', { body: '# Prep', associations: [{ type: 'meeting', id: m.id }] });
      assert.equal(first.status, 201, first.text);
      assert.deepEqual(first.body.associations, [{ id: m.id, type: 'meeting' }]);
      const second = await h.post('/v0/notes', { body: '# Follow-up', associations: [{ type: 'item', id: ada.id }, { type: 'meeting', id: m.id }] });
      assert.equal(second.status, 201, second.text);
      assert.deepEqual(second.body.associations.map((a: any) => a.type), ['item', 'meeting']);
      assert.deepEqual((await h.get(`/v0/notes/${second.body.id}`)).body.associations.map((a: any) => a.id), [ada.id, m.id]);
      const got = await h.get(`/v0/meetings/${m.id}?include[]=note`);
      assert.equal(got.body.note.id, second.body.id);
      assert.equal(got.body.note.title, 'Follow-up');
      const created = await activitiesOf(h, 'note', second.body.id);
      assert.ok(created[0].constituents.some((c: any) => c.relation === 'target' && c.entity.type === 'meeting' && c.entity.id === m.id), JSON.stringify(created));
      assertInvalid(await h.post('/v0/notes', { body: 'x', associations: [{ type: 'item', id: ada.id }, { type: 'meeting', id: UNKNOWN_ID }] }), '/associations/1/id');
      const other = await h.newOrg();
      const theirs = await makeMeeting(h, {}, other.key);
      assertInvalid(await h.post('/v0/notes', { body: 'x', associations: [{ type: 'meeting', id: theirs.id }] }), '/associations/0/id');
    });
  });

  describe(`meetings: activity/meeting_held by the server's clock (${engine})`, () => {
    let h: Harness;
    let now = new Date('2030-01-01T12:00:00.000Z');
    before(async () => {
      h = await createHarness(engine, { clock: () => now });
    });
    after(() => h.close());

    it('is recorded once the end has passed (at end_at), when the meeting or the list is read, and never twice', async () => {
      now = new Date('2030-01-01T12:00:00.000Z');
      const m = await makeMeeting(h, { start_at: '2030-01-01T13:00:00Z', end_at: '2030-01-01T14:00:00Z' });
      await h.get(`/v0/meetings/${m.id}`);
      await h.get('/v0/meetings');
      assert.deepEqual((await activitiesOf(h, 'meeting', m.id)).map((a) => a.type), ['activity/meeting_scheduled']);
      now = new Date('2030-01-01T14:00:00.000Z');
      await h.get('/v0/meetings');
      const held = (await activitiesOf(h, 'meeting', m.id)).filter((a) => a.type === 'activity/meeting_held');
      assert.equal(held.length, 1);
      assert.equal(held[0].occurred_at, '2030-01-01T14:00:00.000Z');
      assert.deepEqual(held[0].constituents, [{ type: 'constituent', relation: 'object', entity: { id: m.id, type: 'meeting' } }]);
      now = new Date('2030-01-02T00:00:00.000Z');
      await h.get(`/v0/meetings/${m.id}`);
      await h.get('/v0/meetings');
      assert.equal((await activitiesOf(h, 'meeting', m.id)).filter((a) => a.type === 'activity/meeting_held').length, 1);
    });

    it('racing readers and sweeps record it once per meeting', async () => {
      now = new Date('2030-02-01T00:00:00.000Z');
      const meetings = [];
      for (let i = 0; i < 3; i++) meetings.push(await makeMeeting(h, { start_at: '2030-02-01T01:00:00Z', end_at: `2030-02-01T0${2 + i}:00:00Z` }));
      now = new Date('2030-02-02T00:00:00.000Z');
      const results = await Promise.all([
        ...Array.from({ length: 4 }, () => recordMeetingsHeld(h.store, () => now)),
        ...meetings.map((m) => h.get(`/v0/meetings/${m.id}`)),
        h.get('/v0/meetings'),
      ]);
      const swept = results.slice(0, 4) as number[];
      for (const m of meetings) {
        assert.equal((await activitiesOf(h, 'meeting', m.id)).filter((a) => a.type === 'activity/meeting_held').length, 1, m.id);
      }
      assert.ok(swept.reduce((a, b) => a + b, 0) <= meetings.length);
      assert.equal(await recordMeetingsHeld(h.store, () => now), 0, 'nothing left to record');
    });

    it('a meeting saved after its end gets meeting_scheduled and meeting_held at once', async () => {
      now = new Date('2030-03-01T00:00:00.000Z');
      const m = await makeMeeting(h, { start_at: '2030-02-20T10:00:00Z', end_at: '2030-02-20T11:00:00Z' });
      assert.deepEqual((await activitiesOf(h, 'meeting', m.id)).map((a) => a.type).sort(), ['activity/meeting_held', 'activity/meeting_scheduled']);
    });

    it('a read records it for the meetings it shows and at most 100 others; the sweep records the rest', async () => {
      now = new Date('2030-04-01T00:00:00.000Z');
      const meetings = [];
      for (let i = 0; i < 106; i++) meetings.push(await makeMeeting(h, { start_at: '2030-04-01T01:00:00Z', end_at: '2030-04-01T02:00:00Z' }));
      now = new Date('2030-04-02T00:00:00.000Z');
      const last = meetings.at(-1)!;
      await h.get(`/v0/meetings/${last.id}`);
      assert.equal((await activitiesOf(h, 'meeting', last.id)).filter((a) => a.type === 'activity/meeting_held').length, 1, 'the meeting shown');
      assert.equal(await recordMeetingsHeld(h.store, () => now), 106 - 1 - 100);
    });
  });
}

// ------------------------------------------------------------------------------------------------------------
// tycho meetings import FILE.ics: a real `tycho` process writes, the harness reads the same database.

/** `tycho …` on this database. */
const runCli = (args: string[], databaseUrl: string) => tycho(args, { DATABASE_URL: databaseUrl });

const ICS = (prefix: string) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Tycho tests//EN',
    'BEGIN:VTIMEZONE',
    'TZID:Europe/Berlin',
    'BEGIN:STANDARD',
    'DTSTART:19701025T030000',
    'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
    'TZOFFSETFROM:+0200',
    'TZOFFSETTO:+0100',
    'TZNAME:CET',
    'END:STANDARD',
    'BEGIN:DAYLIGHT',
    'DTSTART:19700329T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0200',
    'TZNAME:CEST',
    'END:DAYLIGHT',
    'END:VTIMEZONE',
    'BEGIN:VEVENT',
    `UID:${prefix}-kickoff@calendar.test`,
    'DTSTAMP:20250101T000000Z',
    'DTSTART;TZID=Europe/Berlin:20250310T100000',
    'DTEND;TZID=Europe/Berlin:20250310T113000',
    'SUMMARY:Kickoff',
    'DESCRIPTION:First meeting',
    'LOCATION:Berlin office',
    'URL:https://calendar.test/kickoff',
    'ORGANIZER;CN=Ada Lovelace:mailto:ada@example.com',
    'ATTENDEE;CN=Wile E.;ROLE=REQ-PARTICIPANT:mailto:wile@acme.test',
    'ATTENDEE:mailto:stranger@nowhere.test',
    'END:VEVENT',
    'BEGIN:VEVENT',
    `UID:${prefix}-future@calendar.test`,
    'DTSTAMP:20250101T000000Z',
    'DTSTART:20400101T090000Z',
    'DURATION:PT45M',
    'SUMMARY:Far future',
    'END:VEVENT',
    'BEGIN:VEVENT',
    `UID:${prefix}-cancelled@calendar.test`,
    'DTSTAMP:20250101T000000Z',
    'DTSTART:20250101T090000Z',
    'DTEND:20250101T100000Z',
    'STATUS:CANCELLED',
    'SUMMARY:Called off',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

for (const engine of ENGINES) {
  describe(`tycho meetings import FILE.ics (${engine})`, () => {
    let h: Harness;
    let dir: string;
    let databaseUrl: string;
    let dropPostgres: (() => Promise<void>) | undefined;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'tycho-meetings-import-'));
      if (engine === 'postgres') {
        const database = await throwawayPostgres();
        databaseUrl = database.url;
        dropPostgres = database.drop;
      } else databaseUrl = join(dir, 'tycho.db');
      // The harness opens (and migrates) the same database the command line writes to.
      h = await createHarness('sqlite', { env: { DATABASE_URL: databaseUrl } });
      await makeItem(h, 'people', { name: text('Ada Lovelace'), email: [email('ada@example.com')] });
      await makeItem(h, 'organizations', { name: text('Acme'), domain: [domain('acme.test')] });
    });
    after(async () => {
      await h.close();
      await dropPostgres?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it('creates one meeting per event (times converted from the event zone), matches people and organizations, skips cancelled ones; a rerun updates', async () => {
      const file = join(dir, 'calendar.ics');
      const prefix = `import-${engine}-${process.pid}`;
      writeFileSync(file, ICS(prefix));
      const first = await runCli(['meetings', 'import', file, '--org', 'default'], databaseUrl);
      assert.equal(first.code, 0, first.stderr + first.stdout);
      assert.match(first.stdout, /Skipped event 3 \(.*-cancelled@calendar\.test\): it is cancelled\./);
      assert.match(first.stdout, /Imported 2 meetings into organization "default": 2 created, 0 updated\./);

      const kickoffUid = `${prefix}-kickoff@calendar.test`;
      const listed = await h.get(`/v0/meetings?filter[i_cal_uid][eq]=${encodeURIComponent(kickoffUid)}`);
      assert.equal(listed.body.data.length, 1, listed.text);
      const id = listed.body.data[0].id;
      const m = (await h.get(`/v0/meetings/${id}?include[]=organizer&include[]=attendees`)).body;
      assert.equal(m.title, 'Kickoff');
      assert.equal(m.description, 'First meeting');
      assert.equal(m.location, 'Berlin office');
      assert.equal(m.provider_uri, 'https://calendar.test/kickoff');
      assert.equal(m.start_at, '2025-03-10T09:00:00.000Z', '10:00 in Berlin (CET) is 09:00 UTC');
      assert.equal(m.end_at, '2025-03-10T10:30:00.000Z');
      assert.equal(m.time_zone, 'Europe/Berlin');
      assert.equal(m.organizer.email, 'ada@example.com');
      assert.equal(m.organizer.person.collection.ref, 'people');
      assert.deepEqual(m.attendees.map((a: any) => [a.email, a.person?.id !== undefined, a.organization?.collection.ref]), [
        ['wile@acme.test', false, 'organizations'],
        ['stranger@nowhere.test', false, undefined],
      ]);
      const future = await h.get(`/v0/meetings?i_cal_uid[eq]=${encodeURIComponent(`${prefix}-future@calendar.test`)}`);
      assert.equal(future.body.data[0].duration, 45 * 60);
      assert.equal(future.body.data[0].time_zone, 'UTC');
      // The kickoff is over: the import recorded meeting_held for it; the future meeting has only meeting_scheduled.
      assert.deepEqual((await activitiesOf(h, 'meeting', id)).map((a) => a.type).sort(), ['activity/meeting_held', 'activity/meeting_scheduled']);
      assert.deepEqual((await activitiesOf(h, 'meeting', future.body.data[0].id)).map((a) => a.type), ['activity/meeting_scheduled']);

      writeFileSync(file, ICS(prefix).replace('SUMMARY:Kickoff', 'SUMMARY:Kickoff (moved)'));
      const again = await runCli(['meetings', 'import', file], databaseUrl);
      assert.equal(again.code, 0, again.stderr + again.stdout);
      assert.match(again.stdout, /0 created, 2 updated/);
      assert.match(again.stdout, new RegExp(`Updated meeting ${id} "Kickoff \\(moved\\)"`));
      assert.equal((await h.get(`/v0/meetings/${id}`)).body.title, 'Kickoff (moved)');
      assert.equal((await activitiesOf(h, 'meeting', id)).length, 2, 'no new activities');

      // An event is the meeting's whole state: a property it no longer has is cleared.
      writeFileSync(file, ICS(prefix).replace(/\r?\nLOCATION:Berlin office/, ''));
      assert.equal((await runCli(['meetings', 'import', file], databaseUrl)).code, 0);
      assert.equal((await h.get(`/v0/meetings/${id}`)).body.location ?? null, null);
    });

    it('a TZID without a VTIMEZONE converts with the IANA zone it names; an all-day event without DTEND lasts a day', async () => {
      const file = join(dir, 'zones.ics');
      const prefix = `zones-${engine}-${process.pid}`;
      const event = (uid: string, ...lines: string[]) => ['BEGIN:VEVENT', `UID:${prefix}-${uid}`, 'DTSTAMP:20250101T000000Z', ...lines, 'END:VEVENT'];
      writeFileSync(
        file,
        [
          'BEGIN:VCALENDAR',
          'VERSION:2.0',
          'PRODID:-//Tycho tests//EN',
          ...event('standup', 'DTSTART;TZID=America/New_York:20250217T100000', 'DTEND;TZID=America/New_York:20250217T101500', 'SUMMARY:Standup'),
          ...event('offsite', 'DTSTART;VALUE=DATE:20250305', 'SUMMARY:Offsite'),
          'END:VCALENDAR',
          '',
        ].join('\r\n'),
      );
      const run = await runCli(['meetings', 'import', file], databaseUrl);
      assert.equal(run.code, 0, run.stderr + run.stdout);
      const meeting = async (uid: string) => (await h.get(`/v0/meetings?i_cal_uid[eq]=${encodeURIComponent(`${prefix}-${uid}`)}`)).body.data[0];
      const standup = await meeting('standup');
      assert.deepEqual([standup.start_at, standup.end_at, standup.time_zone], ['2025-02-17T15:00:00.000Z', '2025-02-17T15:15:00.000Z', 'America/New_York']);
      const offsite = await meeting('offsite');
      assert.deepEqual([offsite.start_at, offsite.end_at, offsite.duration], ['2025-03-05T00:00:00.000Z', '2025-03-06T00:00:00.000Z', 24 * 60 * 60]);
    });

    it('a file that is not iCalendar, a missing file or an unknown organization → exit 1 with the reason; no file argument → usage (2)', async () => {
      const bad = join(dir, 'bad.ics');
      writeFileSync(bad, 'this is not a calendar');
      const notIcs = await runCli(['meetings', 'import', bad], databaseUrl);
      assert.equal(notIcs.code, 1, notIcs.stdout);
      assert.match(notIcs.stderr, /not an iCalendar file/);
      const missing = await runCli(['meetings', 'import', join(dir, 'missing.ics')], databaseUrl);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /cannot read/);
      const org = await runCli(['meetings', 'import', bad, '--org', 'no such org'], databaseUrl);
      assert.equal(org.code, 1);
      assert.match(org.stderr, /no organization is named "no such org"/);
      const usage = await runCli(['meetings', 'import'], databaseUrl);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /Usage: tycho meetings import FILE\.ics/);
    });
  });
}
