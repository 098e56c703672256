import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeBase58, firstIdAt, isId, newId } from '../../src/domain/ids.ts';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const ID = /^[1-9A-HJ-NP-Za-km-z]{22}$/;
const MAX_128 = (1n << 128n) - 1n;

const decodeBase58 = (text: string): bigint => [...text].reduce((n, ch) => n * 58n + BigInt(ALPHABET.indexOf(ch)), 0n);
const compare = (a: string | bigint, b: string | bigint) => (a < b ? -1 : a > b ? 1 : 0);

describe('ids', () => {
  it('are 22 base58 characters', () => {
    for (let i = 0; i < 1000; i++) {
      const id = newId();
      assert.match(id, ID);
      assert.ok(isId(id));
    }
  });

  it('increase strictly in creation order, also many within one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} !< ${ids[i]}`);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('increase strictly when the clock stands still or goes backwards', () => {
    const now = Date.now();
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5_000, max: 5 }), { minLength: 1, maxLength: 200 }), (offsets) => {
        let previous = newId(now);
        for (const offset of offsets) {
          const id = newId(now + offset);
          assert.ok(previous < id, `${previous} !< ${id}`);
          assert.match(id, ID);
          previous = id;
        }
      }),
    );
  });

  it('carry their creation millisecond in the leading bits', () => {
    // Beyond every millisecond used so far, so no earlier id pins the time.
    let ms = Date.now() + 60_000;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (step) => {
        ms += step;
        const id = newId(ms);
        assert.equal(decodeBase58(id) >> 80n, BigInt(ms));
      }),
    );
  });

  it('within one millisecond count up by one, carrying across every 16-bit limb of the random part', () => {
    // Beyond every millisecond used so far; more ids than one limb holds, so the lowest limb wraps at least once.
    const ms = Date.now() + 3_600_000;
    let previous = decodeBase58(newId(ms));
    for (let i = 0; i < 70_000; i++) {
      const id = newId(ms);
      const value = decodeBase58(id);
      if (value >> 80n !== BigInt(ms)) break; // the 80 random bits overflowed into the next millisecond
      assert.equal(value, previous + 1n, id);
      assert.equal(encodeBase58(value, 22), id, 'the same digits as the reference encoding');
      previous = value;
    }
  });

  it('firstIdAt(ms) is the least id of its millisecond: above every id of an earlier one, at most any id made at or after it', () => {
    const now = Date.now() + 7_200_000;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), (back) => {
        const ms = now - back;
        const first = firstIdAt(ms);
        assert.match(first, ID);
        assert.equal(decodeBase58(first), BigInt(ms) << 80n);
        assert.ok(first > encodeBase58((BigInt(ms) << 80n) - 1n, 22), 'above the last id of the millisecond before');
        assert.ok(first <= newId(ms), 'at most an id made then (or, the clock having moved on, later)');
      }),
    );
  });

  it('isId rejects anything but 22 base58 characters', () => {
    const good = newId();
    for (const bad of ['', good.slice(1), `${good}1`, `0${good.slice(1)}`, `O${good.slice(1)}`, `I${good.slice(1)}`, `l${good.slice(1)}`, `${good.slice(1)}_`, ` ${good.slice(1)}`]) {
      assert.equal(isId(bad), false, JSON.stringify(bad));
    }
  });

  describe('encodeBase58', () => {
    it('pads to the width with the zero digit', () => {
      assert.equal(encodeBase58(0n, 22), '1'.repeat(22));
      assert.equal(encodeBase58(57n, 3), '11z');
      assert.equal(encodeBase58(58n, 3), '121');
    });

    it('round-trips every 128-bit value in 22 characters', () => {
      fc.assert(
        fc.property(fc.bigInt({ min: 0n, max: MAX_128 }), (n) => {
          const text = encodeBase58(n, 22);
          assert.match(text, ID);
          assert.equal(decodeBase58(text), n);
        }),
      );
      assert.match(encodeBase58(MAX_128, 22), ID);
    });

    it('preserves order: string order equals numeric order at a fixed width', () => {
      fc.assert(
        fc.property(fc.bigInt({ min: 0n, max: MAX_128 }), fc.bigInt({ min: 0n, max: MAX_128 }), (a, b) => {
          assert.equal(compare(encodeBase58(a, 22), encodeBase58(b, 22)), compare(a, b));
        }),
      );
      // Neighbours too, where only the last digit differs.
      fc.assert(
        fc.property(fc.bigInt({ min: 0n, max: MAX_128 - 1n }), (a) => {
          assert.ok(encodeBase58(a, 22) < encodeBase58(a + 1n, 22));
        }),
      );
    });
  });
});
