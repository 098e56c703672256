// The request journal through HTTP (issue 16): every authenticated request of an organization, newest first,
// with method, path, query, status, latency, request id, headers and bodies; Authorization and secrets
// redacted; bodies cut; filtered by path, method, status and time; paged; capped at the configured size;
// clearable; per organization.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { buildApp } from '../../src/app.ts';

for (const engine of ENGINES) {
  describe(`toolkit: the request journal (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine, { env: { TYCHO_JOURNAL_SIZE: '20' } });
    });
    after(() => h.close());

    const journal = async (query = '') => {
      const res = await h.get(`/v0/tycho/journal${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body.data as any[];
    };

    it('records what was sent and answered, newest first, with secrets redacted', async () => {
      assert.equal((await h.delete('/v0/tycho/journal')).status, 204);
      const created = await h.post('/v0/notes?x=1', { body: 'journaled', password: 'hunter2' }, { headers: { 'x-request-id': 'req-journal-1', 'x-api-key': 'sekrit' } });
      assert.equal(created.status, 201, created.text);
      await h.get('/v0/notes?limit=5&access_token=abc');
      const [list, post] = await journal();
      assert.equal(list.method, 'GET');
      assert.equal(list.path, '/v0/notes');
      assert.equal(list.query, 'limit=5&access_token=[redacted]');
      assert.equal(list.status, 200);
      assert.equal(post.type, 'tycho_request');
      assert.equal(post.method, 'POST');
      assert.equal(post.query, 'x=1');
      assert.equal(post.status, 201);
      assert.equal(post.request_id, 'req-journal-1');
      assert.ok(post.latency_ms >= 0);
      assert.equal(post.request_headers.authorization, '[redacted]');
      assert.equal(post.request_headers['x-api-key'], '[redacted]');
      assert.deepEqual(JSON.parse(post.request_body), { body: 'journaled', password: '[redacted]' });
      assert.equal(JSON.parse(post.response_body).id, created.body.id);
      assert.ok(!JSON.stringify(post).includes(h.key), 'the API key appears nowhere');
      assert.ok(!JSON.stringify(post).includes('hunter2'));
    });

    it('filters by path, path prefix, method, status, status class and time, and pages with before', async () => {
      await h.delete('/v0/tycho/journal');
      const start = new Date().toISOString();
      await h.post('/v0/tagsets', { name: 'journal' });
      await h.get('/v0/notes/1ChFLYDsNehG6QDPrqx815');
      await h.get('/v0/tagsets');
      assert.deepEqual((await journal('?path=/v0/tagsets')).map((e) => e.method), ['GET', 'POST']);
      assert.equal((await journal('?path_prefix=/v0/notes/')).length, 1);
      assert.deepEqual((await journal('?method=POST')).map((e) => e.path), ['/v0/tagsets']);
      assert.deepEqual((await journal('?status=404')).map((e) => e.path), ['/v0/notes/1ChFLYDsNehG6QDPrqx815']);
      assert.deepEqual((await journal('?status=2xx')).map((e) => e.status), [200, 201]);
      assert.equal((await journal(`?since=${start}`)).length, 3);
      assert.equal((await journal('?until=2000-01-01T00:00:00Z')).length, 0);
      const [newest] = await journal('?limit=1');
      assert.deepEqual((await journal(`?before=${newest.id}`)).map((e) => e.method), ['GET', 'POST']);
      for (const before of ['', 'nope']) {
        const res = await h.get(`/v0/tycho/journal?before=${before}`);
        assert.equal(res.status, 400, `before=${before}: ${res.text}`);
        assert.equal(errorOf(res).source?.parameter, 'before');
      }
    });

    it('keeps only the newest TYCHO_JOURNAL_SIZE requests and never records its own calls', async () => {
      await h.delete('/v0/tycho/journal');
      for (let i = 0; i < 25; i++) await h.get(`/v0/notes?limit=${i + 1}`);
      // Its own route however spelled (was recorded: the check compared the raw URL's text).
      assert.equal((await h.get('/v0/tycho/%6aournal')).status, 200);
      const entries = await journal('?limit=100');
      assert.equal(entries.length, 20);
      assert.equal(entries[0].query, 'limit=25');
      assert.equal(entries[19].query, 'limit=6');
      assert.ok(entries.every((e) => !e.path.startsWith('/v0/tycho/journal') && !e.path.startsWith('/v0/tycho/%6a')));
    });

    it("another server on the same database writes its newest requests when it stops, the ones it answered last", async () => {
      await h.delete('/v0/tycho/journal');
      // A second server with a journal buffer of its own, as another process sharing the database would be.
      const other = await buildApp({ store: h.store, blobs: h.blobs, cursorSecret: 'other-cursor-secret', downloadSecret: 'other-download-secret', logLevel: 'silent', journalSize: 20 });
      const headers = { authorization: `Bearer ${h.key}` };
      for (let i = 0; i < 30; i++) assert.equal((await other.inject({ method: 'GET', url: `/v0/notes?limit=${i + 1}`, headers })).statusCode, 200);
      await other.close();
      const entries = await journal('?limit=100');
      assert.deepEqual(
        entries.map((e) => e.query),
        Array.from({ length: 20 }, (_, i) => `limit=${30 - i}`),
      );
    });

    it("through another server, a busy organization's requests wait for every fifth round, a calm one's for the next", async () => {
      const busy = await h.newOrg();
      const calm = await h.newOrg();
      const other = await buildApp({ store: h.store, blobs: h.blobs, cursorSecret: 'other-cursor-secret', downloadSecret: 'other-download-secret', logLevel: 'silent', journalSize: 5 });
      const send = async (key: string, n: number) => {
        for (let i = 0; i < n; i++) assert.equal((await other.inject({ method: 'GET', url: `/v0/notes?limit=${i + 1}`, headers: { authorization: `Bearer ${key}` } })).statusCode, 200);
      };
      const seen = async (key: string) => ((await h.get('/v0/tycho/journal?limit=100', { key })).body.data as any[]).map((e) => e.query);
      try {
        await send(busy.key, 8);
        await send(calm.key, 3);
        // The first round, a second after these requests: the calm organization's are written.
        const deadline = Date.now() + 4000;
        while ((await seen(calm.key)).length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(await seen(calm.key), ['limit=3', 'limit=2', 'limit=1']);
        assert.deepEqual(await seen(busy.key), [], 'more than keep in a round: not written before its fifth round');
      } finally {
        await other.close();
      }
      assert.deepEqual(await seen(busy.key), ['limit=8', 'limit=7', 'limit=6', 'limit=5', 'limit=4'], 'written when the server stops, newest keep only');
    });

    it('redacts a secret in the kept part of a long body and cuts it, request and response alike', async () => {
      await h.delete('/v0/tycho/journal');
      const created = await h.post('/v0/notes', { password: 'hunter2', body: 'é'.repeat(10_000) });
      assert.equal(created.status, 201, created.text);
      const [entry] = await journal();
      assert.match(entry.request_body, /^\{"password":"\[redacted\]","body":"é+… \[\d+ more characters\]$/);
      assert.ok(entry.request_body.length < 4200);
      assert.ok(!JSON.stringify(entry).includes('hunter2'));
      assert.match(entry.response_body, /more characters\]$/);
      assert.ok(entry.response_body.length < 4200);
      assert.equal(entry.response_body.slice(0, 4096), created.text.slice(0, 4096));
    });

    it('cuts long bodies and belongs to one organization', async () => {
      await h.delete('/v0/tycho/journal');
      await h.post('/v0/notes', { body: 'x'.repeat(10_000) });
      const [entry] = await journal();
      assert.ok(entry.request_body.length < 4200);
      assert.match(entry.request_body, /more characters\]$/);
      const other = await h.newOrg();
      const theirs = await h.get('/v0/tycho/journal', { key: other.key });
      assert.deepEqual(theirs.body.data, []);
    });

    it('refuses malformed filters with the parameter named', async () => {
      for (const [query, parameter] of [['?status=99', 'status'], ['?since=yesterday', 'since'], ['?limit=0', 'limit']] as const) {
        const res = await h.get(`/v0/tycho/journal${query}`);
        assert.equal(res.status, 400, res.text);
        assert.equal(errorOf(res).source?.parameter, parameter);
      }
    });
  });
}
