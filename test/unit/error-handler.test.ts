// The error envelope's retry hint: official SDKs re-send a 409 unless told not to, so every 409 says whether a
// later try of the same request can succeed (x-should-retry).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { AppError } from '../../src/domain/errors.ts';
import { registerErrorHandling } from '../../src/http/plugins/error-handler.ts';

test('409s say whether retrying helps: only a key still being answered and a write that kept colliding do', async () => {
  const app = Fastify();
  registerErrorHandling(app);
  app.get('/:code', async (req) => {
    throw new AppError((req.params as { code: 'conflict' }).code, 'as the test says');
  });
  const hint = async (code: string) => {
    const res = await app.inject({ url: `/${code}` });
    assert.equal(res.statusCode, 409, res.body);
    assert.equal(res.json().errors[0].code, code);
    return res.headers['x-should-retry'];
  };
  assert.equal(await hint('conflict'), 'false');
  assert.equal(await hint('stale_lock_version'), 'false');
  assert.equal(await hint('idempotency_key_in_use'), 'true');
  // Regression: this one said "retry it" in its detail and false in the header.
  assert.equal(await hint('write_contention'), 'true');
  await app.close();
});
