import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';
import { ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { createJwtVerifier } from '../../src/domain/jwt.ts';
import { useTempDir } from '../helpers/temp-dir.ts';

const SECRET = 'a-shared-secret-of-at-least-32-characters!';
const hs256 = (claims: Record<string, unknown>, options: { exp?: number | string; nbf?: number | string; secret?: string } = {}) => {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setSubject('integration-bot');
  jwt = jwt.setExpirationTime(options.exp ?? '5m');
  if (options.nbf !== undefined) jwt = jwt.setNotBefore(options.nbf);
  return jwt.sign(new TextEncoder().encode(options.secret ?? SECRET));
};

for (const engine of ENGINES) {
  describe(`bearer JWT, HS256 (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine, { jwt: await createJwtVerifier({ secret: SECRET }) });
    });
    after(() => h.close());

    it('accepts a token naming the organization by id or by name', async () => {
      assert.equal((await h.get('/v0/collections', { key: await hs256({ org: h.orgId, scope: 'read' }) })).status, 200);
      assert.equal((await h.get('/v0/collections', { key: await hs256({ org: 'default', scope: 'read' }) })).status, 200);
    });

    it('a write scope writes (its activity has no actor: a JWT subject is no documented entity); a read scope gets 403 on writes', async () => {
      const writer = await hs256({ org: h.orgId, scope: 'read write' });
      const created = await h.post('/v0/collections/people/items', { values: { name: { type: 'value/text/single_line', data: 'Via JWT' } } }, { key: writer });
      assert.equal(created.status, 201);
      const [activity] = await h.store.activities.listByEntity(h.orgId, 'item', created.body.id);
      assert.deepEqual(activity!.constituents.map((c) => [c.relation, c.entity.type]), [['object', 'item'], ['target', 'collection']]);
      const reader = await hs256({ org: h.orgId, scope: 'read' });
      const refused = await h.post('/v0/collections', { name: 'Nope' }, { key: reader });
      assert.equal(refused.status, 403);
      assert.equal(errorOf(refused).detail, undefined);
    });

    it('refuses expired, not-yet-valid, wrongly signed, scope-less and unknown-organization tokens with 401', async () => {
      const now = Math.floor(Date.now() / 1000);
      const tokens = [
        await hs256({ org: h.orgId, scope: 'read' }, { exp: now - 60 }),
        await hs256({ org: h.orgId, scope: 'read' }, { nbf: now + 600 }),
        await hs256({ org: h.orgId, scope: 'read' }, { secret: 'another-secret-of-at-least-32-characters!!' }),
        await hs256({ org: h.orgId }),
        await hs256({ org: 'no-such-organization', scope: 'read' }),
      ];
      for (const token of tokens) {
        const res = await h.get('/v0/collections', { key: token });
        assert.equal(res.status, 401);
        assert.match(errorOf(res).detail ?? '', /Authorization: Bearer/);
      }
    });

    it('API keys keep working beside JWTs', async () => {
      assert.equal((await h.get('/v0/collections')).status, 200);
    });
  });
}

describe('bearer JWT, RS256 public key file and ES256 JWKS file', () => {
  const tempDir = useTempDir('tycho-jwt-');

  it('verifies RS256 tokens against a PEM public key', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const file = join(tempDir(), 'public.pem');
    writeFileSync(file, await exportSPKI(publicKey));
    const h = await createHarness('sqlite', { jwt: await createJwtVerifier({ publicKeyFile: file }) });
    try {
      const token = await new SignJWT({ org: h.orgId, scope: 'read' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('5m').sign(privateKey);
      assert.equal((await h.get('/v0/collections', { key: token })).status, 200);
      const forged = await hs256({ org: h.orgId, scope: 'read' });
      assert.equal((await h.get('/v0/collections', { key: forged })).status, 401, 'an HS256 token is refused when RS256 is configured');
    } finally {
      await h.close();
    }
  });

  it('verifies ES256 tokens against a JWKS file, choosing the key by kid', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const file = join(tempDir(), 'jwks.json');
    writeFileSync(file, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] }));
    const h = await createHarness('sqlite', { jwt: await createJwtVerifier({ jwksFile: file }) });
    try {
      const token = await new SignJWT({ org: h.orgId, scope: 'write' }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setExpirationTime('5m').sign(privateKey);
      assert.equal((await h.post('/v0/collections', { name: 'Signed' }, { key: token })).status, 201);
    } finally {
      await h.close();
    }
  });
});
