import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createCursorCodec } from '../../src/domain/cursor.ts';
import type { Position } from '../../src/domain/pagination.ts';

const codec = createCursorCodec('0123456789abcdef0123456789abcdef');
const SCOPE = 'org_1/collections';

// JSON cannot tell -0 from 0 (and SQL does not either), so positions are generated without it.
const sortValue = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
  fc.integer(),
  fc.constant(null),
);
const position: fc.Arbitrary<Position> = fc.record({
  key: fc.array(sortValue, { maxLength: 4 }),
  id: fc.string({ unit: 'binary', maxLength: 30 }),
}, { noNullPrototype: true });
const scope = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 });

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Every character a hand-edited cursor might plausibly contain. */
const EDIT_CHARS = `${BASE64URL}+/=.~! `;

/** Every token that differs from `token` in exactly one character. */
function* singleEdits(token: string): Generator<string> {
  for (let i = 0; i < token.length; i++) {
    for (const ch of EDIT_CHARS) if (ch !== token[i]) yield token.slice(0, i) + ch + token.slice(i + 1);
  }
}

describe('cursors', () => {
  it('round-trip any position', () => {
    fc.assert(
      fc.property(scope, position, (s, p) => {
        assert.deepEqual(codec.decode(s, codec.encode(s, p)), p);
      }),
    );
  });

  it('are URL-safe: base64url payload, a dot, base64url MAC', () => {
    fc.assert(
      fc.property(scope, position, (s, p) => {
        assert.match(codec.encode(s, p), /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      }),
    );
  });

  it('are deterministic and do not expire: the same position encodes to the same token', () => {
    const p: Position = { key: ['a', 1, null], id: 'x' };
    assert.equal(codec.encode(SCOPE, p), codec.encode(SCOPE, p));
    assert.equal(createCursorCodec('0123456789abcdef0123456789abcdef').encode(SCOPE, p), codec.encode(SCOPE, p));
  });

  it('decode to null in a different scope (another organization or list)', () => {
    fc.assert(
      fc.property(scope, scope, position, (a, b, p) => {
        fc.pre(a !== b);
        assert.equal(codec.decode(b, codec.encode(a, p)), null);
      }),
    );
    const token = codec.encode('org_1/collections', { key: [], id: 'abc' });
    assert.equal(codec.decode('org_2/collections', token), null);
    assert.equal(codec.decode('org_1/items', token), null);
  });

  it('decode to null under a different secret', () => {
    const other = createCursorCodec('another secret, another database');
    fc.assert(
      fc.property(scope, position, (s, p) => {
        assert.equal(other.decode(s, codec.encode(s, p)), null);
      }),
    );
  });

  it('decode to null after any single-character change to the payload', () => {
    fc.assert(
      fc.property(scope, position, fc.nat(), fc.constantFrom(...EDIT_CHARS), (s, p, at, ch) => {
        const token = codec.encode(s, p);
        const i = at % token.indexOf('.');
        fc.pre(token[i] !== ch);
        assert.equal(codec.decode(s, token.slice(0, i) + ch + token.slice(i + 1)), null);
      }),
    );
  });

  it('never decode to a different position after a single-character change anywhere', () => {
    fc.assert(
      fc.property(scope, position, (s, p) => {
        const token = codec.encode(s, p);
        for (const edited of singleEdits(token)) {
          const decoded = codec.decode(s, edited);
          if (decoded !== null) assert.deepEqual(decoded, p, `${edited} decoded to another position`);
        }
      }),
      { numRuns: 25 },
    );
  });

  it(
    'decode to null after any single-character change anywhere (MAC included)',
    () => {
      fc.assert(
        fc.property(scope, position, (s, p) => {
          const token = codec.encode(s, p);
          for (const edited of singleEdits(token)) assert.equal(codec.decode(s, edited), null, `${edited} was accepted`);
        }),
        { numRuns: 25 },
      );
    },
  );

  it('decode to null for arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        assert.equal(codec.decode(SCOPE, text), null);
      }),
    );
    for (const text of ['', '.', 'abc', '.abc', 'abc.', 'a.b.c', `${'A'.repeat(5000)}.${'A'.repeat(22)}`]) {
      assert.equal(codec.decode(SCOPE, text), null, text);
    }
  });

  it('decode to null when the MAC is valid but the payload is not a position', () => {
    // encode() signs whatever it is given; decode() must still check the shape it reads back.
    const bogus = [
      { key: 'not-an-array', id: 'x' },
      { key: [], id: 5 },
      { key: [{}], id: 'x' },
      { key: [[1]], id: 'x' },
      { key: [true], id: 'x' },
      { key: [], id: null },
    ];
    for (const p of bogus) assert.equal(codec.decode(SCOPE, codec.encode(SCOPE, p as unknown as Position)), null, JSON.stringify(p));
  });
});
