import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, type Harness } from '../helpers/harness.ts';
import { loadConfig } from '../../src/config.ts';

const ORIGIN = 'https://app.example.com';

const preflight = (h: Harness, origin: string) =>
  h.request('OPTIONS', '/v0/collections/people/items/search', {
    key: null,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, update-one-strategy' },
  });

for (const engine of ENGINES) {
  describe(`CORS (${engine})`, () => {
    let off: Harness;
    let on: Harness;
    before(async () => {
      off = await createHarness(engine);
      on = await createHarness(engine, { env: { TYCHO_CORS_ORIGINS: `${ORIGIN}, http://localhost:5173` } });
    });
    after(async () => {
      await off.close();
      await on.close();
    });

    it('is off by default: no CORS headers, and a preflight is not answered as one', async () => {
      const res = await off.get('/v0/collections', { headers: { origin: ORIGIN } });
      assert.equal(res.status, 200);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      const pre = await preflight(off, ORIGIN);
      assert.equal(pre.headers['access-control-allow-origin'], undefined);
      assert.equal(pre.body.type, 'errors');
    });

    it('answers preflights for listed origins without credentials, allowing the SDK headers', async () => {
      const res = await preflight(on, ORIGIN);
      assert.equal(res.status, 204);
      assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
      assert.match(String(res.headers['access-control-allow-methods']), /PATCH/);
      assert.match(String(res.headers['access-control-allow-headers']), /authorization/);
      assert.match(String(res.headers['access-control-allow-headers']), /update-one-strategy/);
    });

    it('adds the CORS headers to answers and errors for listed origins only', async () => {
      const ok = await on.get('/v0/collections', { headers: { origin: ORIGIN } });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['access-control-allow-origin'], ORIGIN);
      assert.match(String(ok.headers['access-control-expose-headers']), /x-request-id/);
      const denied = await on.get('/v0/collections', { key: null, headers: { origin: ORIGIN } });
      assert.equal(denied.status, 401);
      assert.equal(denied.headers['access-control-allow-origin'], ORIGIN, 'the browser may read the error envelope');
      const other = await on.get('/v0/collections', { headers: { origin: 'https://evil.example' } });
      assert.equal(other.headers['access-control-allow-origin'], undefined);
      assert.equal((await preflight(on, 'https://evil.example')).headers['access-control-allow-origin'], undefined);
    });
  });
}

describe('TYCHO_CORS_ORIGINS', () => {
  it('is a comma-separated list of origins, or *', () => {
    assert.deepEqual(loadConfig({}).corsOrigins, []);
    assert.deepEqual(loadConfig({ TYCHO_CORS_ORIGINS: '*' }).corsOrigins, ['*']);
    assert.deepEqual(loadConfig({ TYCHO_CORS_ORIGINS: 'https://a.example/, http://localhost:3000' }).corsOrigins, ['https://a.example', 'http://localhost:3000']);
  });

  it('refuses paths, other schemes and * among origins, naming the variable', () => {
    for (const bad of ['https://a.example/app', 'ftp://a.example', 'a.example', '*, https://a.example']) {
      assert.throws(() => loadConfig({ TYCHO_CORS_ORIGINS: bad }), /^ConfigError: TYCHO_CORS_ORIGINS /, bad);
    }
  });
});
