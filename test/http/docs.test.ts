import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, type Harness } from '../helpers/harness.ts';

for (const engine of ENGINES) {
  describe(`Docs page and index (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('GET / points to the docs page, the console and the document, as HTML for browsers and JSON otherwise', async () => {
      const json = await h.get('/', { key: null });
      assert.equal(json.status, 200);
      assert.deepEqual(json.body.links, { docs: '/docs', console: '/console', openapi: '/openapi.json' });
      const html = await h.get('/', { key: null, headers: { accept: 'text/html,application/xhtml+xml' } });
      assert.match(String(html.headers['content-type']), /text\/html/);
      for (const link of ['/docs', '/console', '/openapi.json']) assert.ok(html.text.includes(`href="${link}"`), link);
    });

    it('GET /docs serves the reference from the package: every asset is local and the page may load nothing else', async () => {
      const page = await h.get('/docs/', { key: null });
      assert.equal(page.status, 200);
      assert.match(String(page.headers['content-type']), /text\/html/);
      const csp = String(page.headers['content-security-policy']);
      assert.match(csp, /default-src 'self'/);
      assert.doesNotMatch(csp, /https?:|\*/, 'no other origin is allowed');
      const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      assert.ok(assets.length >= 4, `assets: ${assets.join(', ')}`);
      for (const asset of assets) {
        assert.doesNotMatch(asset, /^(https?:)?\/\//, `${asset} is served by Tycho`);
        const res = await h.get(new URL(asset, 'http://tycho/docs/').pathname, { key: null });
        assert.equal(res.status, 200, asset);
      }
      const init = await h.get('/docs/static/swagger-initializer.js', { key: null });
      assert.match(init.text, /\/openapi\.json/, 'the page shows the served document');
      assert.match(init.text, /"validatorUrl":\s*null/, 'no validator badge fetched from swagger.io');
    });
  });
}
