// A journal ring gives back exactly what it was given (the newest `keep`, oldest first), and holds them in slots
// it writes over instead of allocating per request.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JournalRing } from '../../src/http/journal-ring.ts';
import type { HeldBody, JournalRequest } from '../../src/domain/journal.ts';

const text = fc.string({ unit: 'binary', maxLength: 300 });
const body: fc.Arbitrary<HeldBody> = fc.oneof(
  fc.constant(undefined),
  text,
  text.map((kept) => ({ kept })),
  fc.constant({ kept: null }),
);
const request = fc.record({
  id: text,
  occurredAt: text,
  orgId: fc.constant('org'),
  requestId: text,
  method: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE'),
  url: text,
  status: fc.integer({ min: 100, max: 599 }),
  latencyMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
  headers: fc.dictionary(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }), text, { maxKeys: 12 }),
  requestBody: body,
  responseBody: body,
}) satisfies fc.Arbitrary<JournalRequest>;

describe('journal ring', () => {
  it('gives back the newest keep requests as they were added, oldest first', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(request, { maxLength: 15 }), (keep, requests) => {
        const ring = new JournalRing('org', keep);
        for (const r of requests) ring.add(r);
        assert.equal(ring.count, Math.min(keep, requests.length));
        // fast-check may make objects without a prototype; the ring gives back plain ones.
        const plain = (r: JournalRequest) => ({ ...r, headers: { ...r.headers } });
        assert.deepEqual(ring.drain().map(plain), requests.slice(-keep).map(plain));
        assert.equal(ring.count, 0);
        assert.deepEqual(ring.drain(), []);
      }),
    );
  });

  it('joins a repeated header as the journal records it', () => {
    const ring = new JournalRing('org', 2);
    ring.add({ id: 'j', occurredAt: 't', orgId: 'org', requestId: 'r', method: 'GET', url: '/v0/x', status: 200, latencyMs: 0.5, headers: { 'x-tag': ['a', 'b'], gone: undefined }, requestBody: undefined, responseBody: undefined });
    assert.deepEqual(ring.drain()[0]!.headers, { 'x-tag': 'a, b' });
  });

  it('writes over its slots: requests of a similar size allocate nothing once it has gone round', () => {
    const ring = new JournalRing('org', 50);
    const add = (n: number) =>
      ring.add({ id: `j${n}`, occurredAt: 't', orgId: 'org', requestId: 'r', method: 'GET', url: `/v0/items?n=${n}`, status: 200, latencyMs: 1, headers: { accept: '*/*' }, requestBody: undefined, responseBody: 'x'.repeat(3000 + (n % 7)) });
    for (let n = 0; n < 50; n++) add(n);
    const bytes = ring.bytes;
    for (let n = 50; n < 5000; n++) {
      add(n);
      if (n % 120 === 0) ring.drain();
    }
    assert.equal(ring.bytes, bytes);
    assert.equal(ring.drain().at(-1)!.id, 'j4999');
  });
});
