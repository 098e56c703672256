import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness, type Response } from '../helpers/harness.ts';
import { createApiKey, revokeApiKey } from '../../src/domain/api-keys.ts';

/** 401 with the bearer-format explanation (seed §5, §7). */
function assertUnauthorized(res: Response): void {
  assert.equal(res.status, 401, res.text);
  const error = errorOf(res);
  assert.equal(error.title, 'Unauthorized');
  assert.equal(typeof error.detail, 'string');
  assert.ok(error.detail!.includes('Authorization: Bearer'), `detail should explain the header format: ${error.detail}`);
}

/** 403 `Forbidden` with neither detail nor code (seed §7). */
function assertForbidden(res: Response): void {
  assert.equal(res.status, 403, res.text);
  const error = errorOf(res);
  assert.equal(error.title, 'Forbidden');
  assert.equal(error.detail, undefined);
  assert.equal(error.code, undefined);
}

/** 404 without detail (seed §7). */
function assertNotFound(res: Response): void {
  assert.equal(res.status, 404, res.text);
  const error = errorOf(res);
  assert.equal(error.title, 'Not Found');
  assert.equal(error.detail, undefined);
}

for (const engine of ENGINES) {
  describe(`authentication (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('accepts the harness key', async () => {
      assert.equal((await h.get('/v0/collections')).status, 200);
    });

    it('answers 401 with the header format when the Authorization header is missing', async () => {
      assertUnauthorized(await h.get('/v0/collections', { key: null }));
      assertUnauthorized(await h.post('/v0/collections', { name: 'Nope' }, { key: null }));
    });

    for (const header of ['Basic abc', 'Bearer', 'Bearer ', 'Token tycho_test_key_0123456789abcdef', 'Bearertycho_test_key_0123456789abcdef', 'Bearer tycho_test_key_0123456789abcdef extra']) {
      it(`answers 401 for the malformed header ${JSON.stringify(header)}`, async () => {
        assertUnauthorized(await h.get('/v0/collections', { headers: { authorization: header } }));
      });
    }

    it('answers 401 for an unknown key', async () => {
      assertUnauthorized(await h.get('/v0/collections', { key: 'tycho_this_key_was_never_created_000' }));
      // One character off the real key is just as unknown.
      assertUnauthorized(await h.get('/v0/collections', { key: `${h.key.slice(0, -1)}x` }));
    });

    it('answers 401 for a revoked key, which worked before', async () => {
      const { key, token } = await createApiKey(h.store, h.orgId, { name: 'to revoke' });
      assert.equal((await h.get('/v0/collections', { key: token })).status, 200);
      await revokeApiKey(h.store, key.prefix);
      assertUnauthorized(await h.get('/v0/collections', { key: token }));
      assertUnauthorized(await h.post('/v0/collections', { name: 'After revocation' }, { key: token }));
      // Other keys are unaffected.
      assert.equal((await h.get('/v0/collections')).status, 200);
    });

    it('authenticates before looking anything up: an unknown collection is 401 without a key', async () => {
      assertUnauthorized(await h.get('/v0/collections/people', { key: null }));
      assertUnauthorized(await h.get('/v0/collections/does_not_exist', { key: null }));
    });

    it('treats the scheme case-insensitively', async () => {
      for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
        const res = await h.get('/v0/collections', { headers: { authorization: `${scheme} ${h.key}` } });
        assert.equal(res.status, 200, `${scheme}: ${res.text}`);
      }
    });

    describe('read-only keys', () => {
      let readOnly: string;
      let existing: any;
      before(async () => {
        readOnly = await h.readOnlyKey();
        existing = (await h.post('/v0/collections', { name: 'Read Only Target' })).body;
      });

      it('can list and retrieve', async () => {
        const list = await h.get('/v0/collections', { key: readOnly });
        assert.equal(list.status, 200);
        assert.ok(list.body.data.some((c: any) => c.id === existing.id));
        const one = await h.get(`/v0/collections/${existing.id}`, { key: readOnly });
        assert.equal(one.status, 200);
        assert.equal(one.body.name, 'Read Only Target');
      });

      it('cannot create: 403 Forbidden without detail or code, and nothing is written', async () => {
        const countBefore = (await h.get('/v0/collections?limit=100')).body.data.length;
        assertForbidden(await h.post('/v0/collections', { name: 'Sneaky' }, { key: readOnly }));
        const afterList = (await h.get('/v0/collections?limit=100')).body.data;
        assert.equal(afterList.length, countBefore);
        assert.ok(!afterList.some((c: any) => c.name === 'Sneaky'));
        assertNotFound(await h.get('/v0/collections/sneaky'));
      });

      it('cannot update: 403 Forbidden, and the collection is unchanged', async () => {
        assertForbidden(await h.patch(`/v0/collections/${existing.id}`, { name: 'Renamed' }, { key: readOnly }));
        assertForbidden(await h.patch(`/v0/collections/${existing.ref}`, { description: 'x' }, { key: readOnly }));
        const now = (await h.get(`/v0/collections/${existing.id}`)).body;
        assert.equal(now.name, 'Read Only Target');
        assert.equal(now.description, undefined);
        assert.equal(now.updated_at, existing.updated_at);
      });

      it('is refused a write before the body is looked at (403, not 400/422)', async () => {
        assertForbidden(await h.post('/v0/collections', { name: 123 }, { key: readOnly }));
        assertForbidden(await h.request('POST', '/v0/collections', { key: readOnly, payload: '{not json', headers: { 'content-type': 'application/json' } }));
      });
    });

    describe('tenant isolation', () => {
      let other: { orgId: string; key: string };
      let mine: any;
      before(async () => {
        other = await h.newOrg();
        mine = (await h.post('/v0/collections', { name: 'Private Stuff', description: 'org one only' })).body;
      });

      it("lists only the other organization's own collections", async () => {
        const res = await h.get('/v0/collections?limit=100', { key: other.key });
        assert.equal(res.status, 200);
        const refs = res.body.data.map((c: any) => c.ref);
        assert.deepEqual(refs, ['people', 'organizations', 'deals', 'tasks']);
        assert.ok(!res.body.data.some((c: any) => c.id === mine.id));
      });

      it("answers 404 without detail for the first organization's collection, by id and by ref", async () => {
        assertNotFound(await h.get(`/v0/collections/${mine.id}`, { key: other.key }));
        assertNotFound(await h.get(`/v0/collections/${mine.ref}`, { key: other.key }));
      });

      it("cannot update the first organization's collection, by id or by ref", async () => {
        assertNotFound(await h.patch(`/v0/collections/${mine.id}`, { name: 'Hijacked' }, { key: other.key }));
        assertNotFound(await h.patch(`/v0/collections/${mine.ref}`, { name: 'Hijacked' }, { key: other.key }));
        const now = (await h.get(`/v0/collections/${mine.id}`)).body;
        assert.equal(now.name, 'Private Stuff');
        assert.equal(now.description, 'org one only');
        assert.equal(now.updated_at, mine.updated_at);
      });

      it('gives each organization its own system collections with different ids', async () => {
        const a = (await h.get('/v0/collections?limit=100')).body.data.filter((c: any) => c.kind === 'system');
        const b = (await h.get('/v0/collections?limit=100', { key: other.key })).body.data.filter((c: any) => c.kind === 'system');
        assert.equal(a.length, 4);
        assert.equal(b.length, 4);
        const idsA = new Set(a.map((c: any) => c.id));
        for (const c of b) assert.ok(!idsA.has(c.id), `system collection ${c.ref} shares id ${c.id}`);
        // The same ref resolves to each organization's own collection.
        const peopleA = (await h.get('/v0/collections/people')).body;
        const peopleB = (await h.get('/v0/collections/people', { key: other.key })).body;
        assert.notEqual(peopleA.id, peopleB.id);
        assert.equal(peopleB.id, b.find((c: any) => c.ref === 'people').id);
        // A system collection of one organization is not reachable by id from the other.
        assertNotFound(await h.get(`/v0/collections/${peopleA.id}`, { key: other.key }));
      });

      it('derives refs per organization: the same name gets the same ref in both', async () => {
        const created = await h.post('/v0/collections', { name: 'Private Stuff' }, { key: other.key });
        assert.equal(created.status, 201);
        assert.equal(created.body.ref, mine.ref);
        assert.notEqual(created.body.id, mine.id);
        // Each ref still resolves inside its own organization.
        assert.equal((await h.get(`/v0/collections/${mine.ref}`)).body.id, mine.id);
        assert.equal((await h.get(`/v0/collections/${mine.ref}`, { key: other.key })).body.id, created.body.id);
      });
    });
  });
}
