import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { memoryCounter, redisCounter, type RateCounter } from '../../src/http/rate-counters.ts';

for (const engine of ENGINES) {
  describe(`rate limits (${engine})`, () => {
    let h: Harness;
    let now = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
    before(async () => {
      h = await createHarness(engine, { rateLimits: { reads: 3, writes: 2, counter: memoryCounter(), now: () => now } });
    });
    after(() => h.close());

    it('allows the read budget per second, then answers 429 with retry headers and no detail', async () => {
      for (let i = 0; i < 3; i++) {
        const ok = await h.get('/v0/collections');
        assert.equal(ok.status, 200);
        assert.equal(ok.headers['ratelimit-policy'], '"reads";q=3;w=1');
        assert.equal(ok.headers['ratelimit'], `"reads";r=${2 - i};t=1`);
      }
      const limited = await h.get('/v0/collections');
      assert.equal(limited.status, 429);
      const error = errorOf(limited);
      assert.equal(error.title, 'Too Many Requests');
      assert.equal(error.detail, undefined);
      assert.equal(limited.headers['retry-after'], '1');
      assert.equal(limited.headers['retry-after-ms'], '750');
      assert.equal(limited.headers['ratelimit'], '"reads";r=0;t=1');
    });

    it('counts writes separately, and a refused write has no effect', async () => {
      // Still the same second: reads are exhausted, writes are not.
      assert.equal((await h.post('/v0/collections', { name: 'First' })).status, 201);
      assert.equal((await h.post('/v0/collections', { name: 'Second' })).status, 201);
      const refused = await h.post('/v0/collections', { name: 'Third' });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['ratelimit-policy'], '"writes";q=2;w=1');
      now += 1000;
      const list = await h.get('/v0/collections?limit=100');
      assert.deepEqual(list.body.data.map((c: any) => c.name).filter((n: string) => ['First', 'Second', 'Third'].includes(n)), ['First', 'Second']);
    });

    it('treats item search as a read', async () => {
      now += 1000;
      for (let i = 0; i < 2; i++) assert.equal((await h.post('/v0/collections', { name: `W${i}` })).status, 201);
      assert.equal((await h.post('/v0/collections/people/items/search', {})).status, 200);
    });

    it('gives each organization its own budget', async () => {
      now += 1000;
      const other = await h.newOrg();
      for (let i = 0; i < 3; i++) assert.equal((await h.get('/v0/collections')).status, 200);
      assert.equal((await h.get('/v0/collections')).status, 429);
      assert.equal((await h.get('/v0/collections', { key: other.key })).status, 200);
    });

    it('opens a new budget in the next window', async () => {
      now += 1000;
      assert.equal((await h.get('/v0/collections')).status, 200);
    });
  });
}

describe('rate limits shared through Redis', { skip: !process.env.TEST_REDIS_URL && 'TEST_REDIS_URL is not set' }, () => {
  let a: Harness;
  let counters: RateCounter[];
  const now = Date.now() - (Date.now() % 1000) + 10_000_000;
  before(async () => {
    counters = [await redisCounter(process.env.TEST_REDIS_URL!, () => {}), await redisCounter(process.env.TEST_REDIS_URL!, () => {})];
    a = await createHarness('sqlite', { rateLimits: { reads: 4, writes: 4, counter: counters[0]!, now: () => now } });
  });
  after(async () => {
    await a.close();
    for (const c of counters) await c.close();
  });

  it('requests counted by one process are seen by another', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await a.get('/v0/collections')).status);
    // A second process (its own Redis connection) spends one more request of the same budget…
    assert.equal(await counters[1]!.hit(`tycho:rl:${a.orgId}:read:${now}`, 2000), 4);
    // …so the first process has none left.
    statuses.push((await a.get('/v0/collections')).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });
});
