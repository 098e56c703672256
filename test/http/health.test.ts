import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';

for (const engine of ENGINES) {
  describe(`health probes (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    for (const path of ['/healthz', '/readyz']) {
      it(`${path} answers 200 JSON without authentication`, async () => {
        const res = await h.get(path, { key: null });
        assert.equal(res.status, 200, res.text);
        assert.match(String(res.headers['content-type']), /^application\/json\b/);
        assert.equal(typeof res.body, 'object');
        assert.equal(typeof res.body.status, 'string');
        assert.equal(typeof res.headers['x-request-id'], 'string');
      });

      it(`${path} ignores an invalid Authorization header`, async () => {
        const res = await h.get(path, { headers: { authorization: 'Bearer not-a-real-key-at-all' } });
        assert.equal(res.status, 200, res.text);
      });
    }

    describe('when the database does not answer', () => {
      let original: () => Promise<void>;
      before(() => {
        original = h.store.ping;
        (h.store as { ping: () => Promise<void> }).ping = async () => {
          throw new Error('database is gone');
        };
      });
      after(() => {
        (h.store as { ping: () => Promise<void> }).ping = original;
      });

      it('/readyz answers 503 with the envelope and a retry-later detail', async () => {
        const res = await h.get('/readyz', { key: null });
        assert.equal(res.status, 503, res.text);
        const error = errorOf(res);
        assert.equal(error.title, 'Service Unavailable');
        assert.equal(typeof error.detail, 'string');
        assert.match(error.detail!, /unavailable/i);
        assert.match(error.detail!, /retry/i);
        assert.ok(!res.text.includes('database is gone'), 'the internal error is not exposed');
        assert.match(String(res.headers['content-type']), /^application\/json\b/);
      });

      it('/healthz (liveness) still answers 200', async () => {
        assert.equal((await h.get('/healthz', { key: null })).status, 200);
      });
    });

    it('/readyz recovers once the database answers again', async () => {
      assert.equal((await h.get('/readyz', { key: null })).status, 200);
    });
  });
}
