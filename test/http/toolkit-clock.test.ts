// Per-organization clocks through HTTP (issue 16): freeze, set, advance, resume and release; everything that
// reads time follows the organization's clock — timestamps, ids' time part, occurred_at, list order, signed
// download expiry, rate-limit windows, meeting_held — while other organizations keep the real time; advance
// runs the due work before it answers; the setting is shared by every process on the database.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_KEY, ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { downloadBytes, postMultipart } from '../helpers/multipart.ts';
import { memoryCounter } from '../../src/http/rate-counters.ts';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { appOptions, openRuntime } from '../../src/runtime.ts';

const T0 = '2030-01-01T09:00:00.000Z';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** The millisecond an id was made at (its first 48 bits). */
const idTime = (id: string) => new Date(Number([...id].reduce((n, c) => n * 58n + BigInt(ALPHABET.indexOf(c)), 0n) >> 80n)).toISOString();

async function sandbox(h: Harness): Promise<string> {
  const res = await h.post('/v0/tycho/admin/sandboxes', {}, { key: ADMIN_KEY });
  assert.equal(res.status, 201, res.text);
  return res.body.api_key;
}

for (const engine of ENGINES) {
  describe(`toolkit: the organization clock (${engine})`, () => {
    let h: Harness;
    let key: string;
    before(async () => {
      h = await createHarness(engine);
      key = await sandbox(h);
    });
    after(() => h.close());

    const clock = (path: string, body?: unknown) => h.post(`/v0/tycho/clock${path}`, body, { key });

    it('reads the system clock until controlled', async () => {
      const res = await h.get('/v0/tycho/clock', { key });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.controlled, false);
      assert.equal(res.body.frozen, false);
      assert.ok(Math.abs(Date.parse(res.body.now) - Date.now()) < 60_000);
    });

    it('frozen: timestamps, ids and occurred_at carry the frozen time; ids still grow in creation order', async () => {
      const frozen = await clock('/freeze', { at: '2030-01-01T09:00:00Z' });
      assert.equal(frozen.status, 200, frozen.text);
      assert.deepEqual({ ...frozen.body, offset_ms: undefined }, { type: 'tycho_clock', now: T0, frozen: true, controlled: true, offset_ms: undefined });
      const a = (await h.post('/v0/notes', { body: 'first' }, { key })).body;
      const b = (await h.post('/v0/notes', { body: 'second' }, { key })).body;
      assert.equal(a.created_at, T0);
      assert.equal(b.created_at, T0);
      assert.equal(idTime(a.id), T0);
      assert.ok(a.id < b.id, 'creation order survives a frozen clock');
      const listed = (await h.get('/v0/notes', { key })).body.data.map((n: { id: string }) => n.id);
      assert.deepEqual(listed.slice(-2), [a.id, b.id]);
      const own = await h.get(`/v0/activities?constituent_entity_type[eq]=note&constituent_entity_id[eq]=${a.id}`, { key });
      assert.equal(own.body.data[0].occurred_at, T0);
      // occurred_at filters read the same clock's values.
      const since = await h.get(`/v0/activities?occurred_at[gte]=${T0}&type[eq]=activity/note_created`, { key });
      assert.equal(since.status, 200, since.text);
      assert.equal(since.body.data.length, 2);
    });

    it('other organizations keep the real time', async () => {
      const note = (await h.post('/v0/notes', { body: 'real' })).body;
      assert.ok(Math.abs(Date.parse(note.created_at) - Date.now()) < 60_000, note.created_at);
    });

    it('requests of a frozen organization and of one on the real clock, interleaved, each keep their own time', async () => {
      // Only the frozen organization's requests run in a time context; the others, running beside them, run in none.
      assert.equal((await clock('/freeze', { at: T0 })).status, 200);
      const notes = await Promise.all(
        Array.from({ length: 12 }, (_, i) => h.post('/v0/notes', { body: `interleaved ${i}` }, i % 2 === 0 ? { key } : {})),
      );
      for (const [i, res] of notes.entries()) {
        assert.equal(res.status, 201, res.text);
        if (i % 2 === 0) {
          assert.equal(res.body.created_at, T0);
          assert.equal(idTime(res.body.id), T0);
        } else {
          assert.ok(Math.abs(Date.parse(res.body.created_at) - Date.now()) < 60_000, res.body.created_at);
          assert.ok(Math.abs(Date.parse(idTime(res.body.id)) - Date.now()) < 60_000, res.body.id);
        }
      }
    });

    it('advance moves a frozen clock and runs due work (meeting_held) before it answers', async () => {
      await clock('/set', { to: T0, frozen: true });
      const m = await h.post(
        '/v0/tycho/meetings',
        { i_cal_uid: `clock-${engine}@tycho.test`, start_at: '2030-01-01T10:00:00Z', end_at: '2030-01-01T11:00:00Z', time_zone: 'UTC' },
        { key },
      );
      assert.equal(m.status, 201, m.text);
      const held = async () => {
        const res = await h.get(`/v0/activities?constituent_entity_type[eq]=meeting&constituent_entity_id[eq]=${m.body.id}&type[eq]=activity/meeting_held`, { key });
        return res.body.data;
      };
      assert.deepEqual(await held(), []);
      const advanced = await clock('/advance', { hours: 2, minutes: 30 });
      assert.equal(advanced.status, 200, advanced.text);
      assert.equal(advanced.body.now, '2030-01-01T11:30:00.000Z');
      assert.equal(advanced.body.frozen, true);
      const recorded = await held();
      assert.equal(recorded.length, 1);
      assert.equal(recorded[0].occurred_at, '2030-01-01T11:00:00.000Z');
    });

    it('signed download links expire on the organization clock', async () => {
      await clock('/set', { to: T0, frozen: true });
      const up = await postMultipart(h, '/v0/files', [{ name: 'file', filename: 'a.txt', content: 'hello', contentType: 'text/plain' }], key);
      assert.equal(up.status, 201, up.text);
      const url = new URL(up.body.download_url);
      assert.equal(url.searchParams.get('expires'), String(Date.parse(T0) / 1000 + 3600));
      assert.equal((await downloadBytes(h, up.body.download_url)).status, 200);
      await clock('/advance', { minutes: 61 });
      assert.equal((await downloadBytes(h, up.body.download_url)).status, 404);
    });

    it('set running, resume and release', async () => {
      const set = await clock('/set', { to: '2031-06-01T00:00:00Z', frozen: false });
      assert.equal(set.status, 200, set.text);
      assert.equal(set.body.frozen, false);
      const note = (await h.post('/v0/notes', { body: 'running' }, { key })).body;
      const at = Date.parse(note.created_at) - Date.parse('2031-06-01T00:00:00Z');
      assert.ok(at >= 0 && at < 60_000, note.created_at);
      const frozen = await clock('/freeze');
      assert.equal(frozen.body.frozen, true);
      const resumed = await clock('/resume');
      assert.equal(resumed.body.frozen, false);
      assert.ok(Date.parse(resumed.body.now) >= Date.parse(frozen.body.now));
      const released = await h.delete('/v0/tycho/clock', { key });
      assert.equal(released.status, 200, released.text);
      assert.equal(released.body.controlled, false);
      const real = (await h.post('/v0/notes', { body: 'real again' }, { key })).body;
      assert.ok(Math.abs(Date.parse(real.created_at) - Date.now()) < 60_000, real.created_at);
    });

    it('refuses bad instants and amounts with the field named', async () => {
      const bad = await clock('/set', { to: 'tomorrow' });
      assert.equal(bad.status, 422, bad.text);
      assert.equal(errorOf(bad).source?.pointer, '/to');
      const negative = await clock('/advance', { hours: -1 });
      assert.ok(negative.status === 400 || negative.status === 422, negative.text);
      assert.equal(errorOf(negative).source?.pointer, '/hours');
      const tooFar = await clock('/advance', { days: 100_000 });
      assert.equal(tooFar.status, 422, tooFar.text);
      assert.equal(errorOf(tooFar).source?.pointer, '/milliseconds');
      // Advances that add up past 9999 are refused as set and freeze refuse such times (was: "+010909-…").
      assert.equal((await clock('/set', { to: '9999-06-01T00:00:00Z' })).status, 200);
      const past = await clock('/advance', { days: 365 });
      assert.equal(past.status, 422, past.text);
      assert.equal(errorOf(past).code, 'invalid_state');
      assert.match(errorOf(past).detail!, /past 9999-12-31T23:59:59\.999Z/);
      // A running clock set to the last instant stops there (was: items created a moment later "+010000-…").
      assert.equal((await clock('/set', { to: '9999-12-31T23:59:59.999Z', frozen: false })).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const late = await h.post('/v0/collections/people/items', { values: { name: { type: 'value/text/single_line', data: 'Last' } } }, { key });
      assert.equal(late.status, 201, late.text);
      assert.equal(late.body.values.created_at.data, '9999-12-31T23:59:59.999Z');
      assert.equal((await clock('/set', { to: '2030-01-01T09:00:00Z' })).status, 200);
      // Regression: read in the server's zone, or rolled over into the next month.
      for (const [path, body, pointer] of [
        ['/set', { to: '2030-01-01T09:00:00' }, '/to'],
        ['/set', { to: '2030-02-31T00:00:00Z' }, '/to'],
        ['/freeze', { at: '2031-04-31T10:00:00Z' }, '/at'],
      ] as const) {
        const res = await clock(path, body);
        assert.equal(res.status, 422, `${path} ${JSON.stringify(body)}: ${res.text}`);
        assert.equal(errorOf(res).source?.pointer, pointer);
      }
    });

    it('concurrent advances add up (each reads the clock the one before it left)', async () => {
      const start = (await clock('/freeze', { at: T0 })).body.now;
      const answers = await Promise.all(Array.from({ length: 10 }, () => clock('/advance', { minutes: 1 })));
      for (const res of answers) assert.equal(res.status, 200, res.text);
      const now = (await h.get('/v0/tycho/clock', { key })).body.now;
      assert.equal(Date.parse(now) - Date.parse(start), 10 * 60_000);
    });
  });

  describe(`toolkit: rate-limit windows follow the organization clock (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine, { rateLimits: { reads: 2, writes: 100, counter: memoryCounter() } });
    });
    after(() => h.close());

    it('a frozen clock keeps one window until it is advanced', async () => {
      const key = await sandbox(h);
      assert.equal((await h.post('/v0/tycho/clock/freeze', { at: T0 }, { key })).status, 200);
      assert.equal((await h.get('/v0/notes', { key })).status, 200);
      assert.equal((await h.get('/v0/notes', { key })).status, 200);
      const limited = await h.get('/v0/notes', { key });
      assert.equal(limited.status, 429, limited.text);
      assert.equal((await h.post('/v0/tycho/clock/advance', { seconds: 1 }, { key })).status, 200);
      assert.equal((await h.get('/v0/notes', { key })).status, 200);
    });
  });
}

if (ENGINES.includes('postgres')) {
  describe('toolkit: the organization clock is shared by every process on PostgreSQL', () => {
    let h: Harness;
    before(async () => {
      h = await createHarness('postgres');
    });
    after(() => h.close());

    it('a clock frozen through one process is read by another', async () => {
      const key = await sandbox(h);
      const config = loadConfig({ DATABASE_URL: h.databaseUrl!, LOG_LEVEL: 'silent' });
      const runtime = await openRuntime(config);
      const other = await buildApp({ ...appOptions(runtime, config), logLevel: 'silent' });
      try {
        assert.equal((await h.post('/v0/tycho/clock/freeze', { at: T0 }, { key })).status, 200);
        const res = await other.inject({ method: 'POST', url: '/v0/notes', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: '{"body":"elsewhere"}' });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(JSON.parse(res.body).created_at, T0);
      } finally {
        await other.close();
        await runtime.close();
      }
    });
  });
}
