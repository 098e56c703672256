// Webhook endpoints through HTTP (reference §5.18): create (the only answer with the `whsec_` secret), list,
// retrieve, update (subscriptions replaced, ids of kept event types kept), delete; subscriptions checked
// against the 18 activity types; the URL rules (HTTPS, loopback HTTP, the operator's settings for plain HTTP
// and private ranges); organization isolation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ACTIVITY_TYPES } from '../../src/domain/activity.ts';
import { assertBareNotFound, createHarness, ENGINES, errorOf, type Harness } from '../helpers/harness.ts';

const endpoint = (url: string, extra: Record<string, unknown> = {}) => ({ url, ...extra });

for (const engine of ENGINES) {
  describe(`webhook endpoints (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('creates an enabled endpoint whose secret is whsec_ + base64 of a 32-byte key, shown only in the create answer', async () => {
      const res = await h.post('/v0/webhook_endpoints', endpoint('https://hooks.example.com/moonbase', { subscriptions: [{ event_type: 'activity/item_created' }] }));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.type, 'webhook_endpoint');
      assert.equal(res.body.status, 'enabled');
      assert.equal(res.body.url, 'https://hooks.example.com/moonbase');
      assert.match(res.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
      assert.equal(Buffer.from(res.body.secret.slice(6), 'base64').length, 32);
      assert.deepEqual(res.body.subscriptions.map((s: any) => [s.type, s.event_type]), [['webhook_subscription', 'activity/item_created']]);
      const got = await h.get(`/v0/webhook_endpoints/${res.body.id}`);
      assert.equal(got.status, 200);
      assert.equal(got.body.secret, undefined);
      const { secret: _secret, ...rest } = res.body;
      assert.deepEqual(got.body, rest);
      const list = await h.get('/v0/webhook_endpoints');
      assert.equal(list.status, 200);
      assert.ok(list.body.data.some((e: any) => e.id === res.body.id));
      assert.ok(list.body.data.every((e: any) => e.secret === undefined));
    });

    it('accepts every one of the 18 activity types and refuses another at its pointer', async () => {
      const all = await h.post('/v0/webhook_endpoints', endpoint('https://hooks.example.com/all', { subscriptions: ACTIVITY_TYPES.map((event_type) => ({ event_type })) }));
      assert.equal(all.status, 201, all.text);
      assert.equal(all.body.subscriptions.length, 18);
      const bad = await h.post('/v0/webhook_endpoints', endpoint('https://hooks.example.com/x', { subscriptions: [{ event_type: 'activity/item_created' }, { event_type: 'item.created' }] }));
      assert.equal(bad.status, 422, bad.text);
      const error = errorOf(bad);
      assert.equal(error.source?.pointer, '/subscriptions/1/event_type');
      assert.match(error.detail!, /activity\/item_created/);
    });

    it('refuses a status other than enabled or disabled, and a missing url', async () => {
      const status = await h.post('/v0/webhook_endpoints', endpoint('https://hooks.example.com/x', { status: 'paused' }));
      assert.ok(status.status === 400 || status.status === 422, status.text);
      assert.equal(errorOf(status).source?.pointer, '/status');
      const missing = await h.post('/v0/webhook_endpoints', { subscriptions: [] });
      assert.ok(missing.status === 400 || missing.status === 422, missing.text);
    });

    it('takes HTTPS URLs, and plain HTTP only on loopback; refuses private addresses, other schemes and credentials', async () => {
      for (const url of ['https://hooks.example.com/a', 'http://127.0.0.1:9999/a', 'http://localhost:9999/a', 'http://[::1]:9999/a', 'https://8.8.8.8/a']) {
        const res = await h.post('/v0/webhook_endpoints', endpoint(url));
        assert.equal(res.status, 201, `${url}: ${res.text}`);
      }
      // Echoed as sent, not as the URL parser would write it (no trailing slash added, case kept).
      for (const url of ['https://Hooks.Example.com', 'https://hooks.example.com:443/a?b=c%2f']) {
        const res = await h.post('/v0/webhook_endpoints', endpoint(url));
        assert.equal(res.status, 201, `${url}: ${res.text}`);
        assert.equal(res.body.url, url);
        assert.equal((await h.get(`/v0/webhook_endpoints/${res.body.id}`)).body.url, url);
      }
      for (const url of ['http://hooks.example.com/a', 'https://10.0.0.1/a', 'https://192.168.1.20/a', 'https://169.254.169.254/latest', 'ftp://hooks.example.com/a', 'not a url', 'https://user:pw@hooks.example.com/a', 'https://0.0.0.0/a', 'https://hooks.example.com:0/a', 'https://0xa9fea9fe/a', 'https://[::ffff:169.254.169.254]/a']) {
        const res = await h.post('/v0/webhook_endpoints', endpoint(url));
        assert.equal(res.status, 422, `${url}: ${res.text}`);
        const error = errorOf(res);
        assert.equal(error.source?.pointer, '/url');
        assert.match(error.detail!, /url must be/);
      }
    });

    it('updates url, status and subscriptions (replacing the set, keeping the ids of event types kept)', async () => {
      const created = await h.post('/v0/webhook_endpoints', endpoint('https://hooks.example.com/u', { subscriptions: [{ event_type: 'activity/item_created' }, { event_type: 'activity/note_created' }] }));
      const kept = created.body.subscriptions.find((s: any) => s.event_type === 'activity/note_created');
      const res = await h.patch(`/v0/webhook_endpoints/${created.body.id}`, {
        url: 'https://hooks.example.com/v',
        status: 'disabled',
        subscriptions: [{ event_type: 'activity/note_created', id: kept.id }, { event_type: 'activity/call_occurred' }],
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.url, 'https://hooks.example.com/v');
      assert.equal(res.body.status, 'disabled');
      assert.equal(res.body.secret, undefined);
      assert.deepEqual(res.body.subscriptions.map((s: any) => s.event_type), ['activity/note_created', 'activity/call_occurred']);
      assert.equal(res.body.subscriptions[0].id, kept.id);
      const bad = await h.patch(`/v0/webhook_endpoints/${created.body.id}`, { url: 'http://hooks.example.com/v' });
      assert.equal(bad.status, 422);
      assert.equal(errorOf(bad).source?.pointer, '/url');
      const unchanged = await h.get(`/v0/webhook_endpoints/${created.body.id}`);
      assert.deepEqual(unchanged.body, res.body);
    });

    it('concurrent PATCHes of different properties all hold (none writes back what it read before another wrote)', async () => {
      for (let round = 0; round < 5; round++) {
        const created = await h.post('/v0/webhook_endpoints', endpoint('https://hooks.example.com/a'));
        const path = `/v0/webhook_endpoints/${created.body.id}`;
        const answers = await Promise.all([
          h.patch(path, { status: 'disabled' }),
          h.patch(path, { url: 'https://hooks.example.com/b' }),
          h.patch(path, { subscriptions: [{ event_type: 'activity/note_created' }] }),
        ]);
        for (const res of answers) assert.equal(res.status, 200, res.text);
        // Regression (PostgreSQL): each PATCH wrote the whole row it had read, so one undid another's change.
        const after = (await h.get(path)).body;
        assert.deepEqual([after.status, after.url, after.subscriptions.map((s: any) => s.event_type)], ['disabled', 'https://hooks.example.com/b', ['activity/note_created']]);
      }
    });

    it('PATCH with a subscription id changes that subscription, which keeps its id; an id of no subscription of the endpoint → 422', async () => {
      const created = await h.post('/v0/webhook_endpoints', endpoint('https://hooks.example.com/s', { subscriptions: [{ event_type: 'activity/item_created' }, { event_type: 'activity/note_created' }] }));
      const [items, notes] = created.body.subscriptions;
      // Regression: the id was ignored, so the changed subscription got a new one.
      const res = await h.patch(`/v0/webhook_endpoints/${created.body.id}`, {
        subscriptions: [{ id: items.id, event_type: 'activity/call_occurred' }, { event_type: 'activity/item_created' }, { id: notes.id, event_type: 'activity/note_created' }],
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.subscriptions.map((s: any) => [s.id === items.id ? 'items' : s.id === notes.id ? 'notes' : 'new', s.event_type]),
        [['items', 'activity/call_occurred'], ['new', 'activity/item_created'], ['notes', 'activity/note_created']],
      );
      const other = await h.post('/v0/webhook_endpoints', endpoint('https://hooks.example.com/t', { subscriptions: [{ event_type: 'activity/item_created' }] }));
      for (const id of [other.body.subscriptions[0].id, 'nope']) {
        const refused = await h.patch(`/v0/webhook_endpoints/${created.body.id}`, { subscriptions: [{ id, event_type: 'activity/item_created' }] });
        assert.equal(refused.status, 422, refused.text);
        assert.equal(errorOf(refused).source?.pointer, '/subscriptions/0/id');
      }
      const twice = await h.patch(`/v0/webhook_endpoints/${created.body.id}`, { subscriptions: [{ id: notes.id, event_type: 'activity/item_created' }, { id: notes.id, event_type: 'activity/call_occurred' }] });
      assert.equal(errorOf(twice).source?.pointer, '/subscriptions/1/id');
      assert.deepEqual((await h.get(`/v0/webhook_endpoints/${created.body.id}`)).body, res.body, 'refused changes change nothing');
      const copied = await h.post('/v0/webhook_endpoints', endpoint('https://hooks.example.com/c', { subscriptions: res.body.subscriptions }));
      assert.equal(copied.status, 201, copied.text);
      assert.ok(copied.body.subscriptions.every((s: any) => s.id !== items.id && s.id !== notes.id), 'a new endpoint gets new subscriptions');
    });

    it('deletes an endpoint (204), after which it is gone', async () => {
      const created = await h.post('/v0/webhook_endpoints', endpoint('https://hooks.example.com/d'));
      const res = await h.delete(`/v0/webhook_endpoints/${created.body.id}`);
      assert.equal(res.status, 204);
      assertBareNotFound(await h.get(`/v0/webhook_endpoints/${created.body.id}`));
      assertBareNotFound(await h.delete(`/v0/webhook_endpoints/${created.body.id}`));
      assertBareNotFound(await h.patch(`/v0/webhook_endpoints/${created.body.id}`, { status: 'enabled' }));
    });

    it("keeps organizations apart: another organization's key sees none of the endpoints", async () => {
      const created = await h.post('/v0/webhook_endpoints', endpoint('https://hooks.example.com/iso'));
      const other = await h.newOrg();
      assertBareNotFound(await h.get(`/v0/webhook_endpoints/${created.body.id}`, { key: other.key }));
      assertBareNotFound(await h.patch(`/v0/webhook_endpoints/${created.body.id}`, { status: 'disabled' }, { key: other.key }));
      assertBareNotFound(await h.delete(`/v0/webhook_endpoints/${created.body.id}`, { key: other.key }));
      const list = await h.get('/v0/webhook_endpoints', { key: other.key });
      assert.deepEqual(list.body.data, []);
    });
  });

  describe(`webhook endpoint URL settings (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine, { env: { TYCHO_WEBHOOK_ALLOW_HTTP: 'on', TYCHO_WEBHOOK_ALLOW_PRIVATE: 'on' } });
    });
    after(() => h.close());

    it('accepts plain HTTP and private ranges when the operator allows them, never the unspecified address', async () => {
      for (const url of ['http://hooks.example.com/a', 'https://10.0.0.1/a', 'http://192.168.1.20/a']) {
        const res = await h.post('/v0/webhook_endpoints', endpoint(url));
        assert.equal(res.status, 201, `${url}: ${res.text}`);
      }
      const res = await h.post('/v0/webhook_endpoints', endpoint('http://0.0.0.0/a'));
      assert.equal(res.status, 422, res.text);
    });
  });
}
