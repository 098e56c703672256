import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, type Harness } from '../helpers/harness.ts';

for (const engine of ENGINES) {
  describe(`OpenAPI document (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('is served without auth and describes the routes from their schemas', async () => {
      const res = await h.get('/openapi.json', { key: null });
      assert.equal(res.status, 200);
      assert.match(res.body.openapi, /^3\./);
      const paths = res.body.paths;
      for (const path of ['/v0/collections', '/v0/collections/{collection_id}/fields', '/v0/collections/{collection_id}/items/search', '/v0/funnels']) {
        assert.ok(paths[path], `${path} is documented`);
      }
      const create = paths['/v0/collections'].post;
      assert.deepEqual(create.requestBody.content['application/json'].schema.required, ['name']);
      assert.ok(create.responses['201']);
    });
  });
}
