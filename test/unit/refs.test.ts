import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { deriveRef, uniqueRef } from '../../src/domain/refs.ts';

const REF = /^[a-z0-9]+(_[a-z0-9]+)*$/;
const FALLBACK = 'collection';

const anyName = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: fc.constantFrom(...'aZ9 _-!.éÅßİﬁ①Ⅻ\u0301\t\n日本'), maxLength: 30 }),
);
const validRef = fc.stringMatching(/^[a-z0-9]{1,8}(_[a-z0-9]{1,8}){0,3}$/);

describe('deriveRef', () => {
  it('turns names into lower-case words joined by underscores', () => {
    const cases: [string, string][] = [
      ['Lead Source', 'lead_source'],
      ['Lead Sources!', 'lead_sources'],
      ['  Deals  ', 'deals'],
      ['Q3 -- Pipeline (EU)', 'q3_pipeline_eu'],
      ['snake_case_already', 'snake_case_already'],
      ['a__b', 'a_b'],
      ['CamelCase', 'camelcase'],
      ['Café Crème', 'cafe_creme'],
      ['ÅNGSTRÖM 2', 'angstrom_2'],
      ['2024', '2024'],
    ];
    for (const [name, ref] of cases) assert.equal(deriveRef(name, FALLBACK), ref, name);
  });

  it('falls back when nothing usable is left', () => {
    for (const name of ['', '   ', '!!!', '---', '日本語', '🚀', '_']) assert.equal(deriveRef(name, FALLBACK), FALLBACK, JSON.stringify(name));
    assert.equal(deriveRef('???', 'field'), 'field');
  });

  it('always yields a well-formed ref or the fallback', () => {
    fc.assert(
      fc.property(anyName, (name) => {
        const ref = deriveRef(name, FALLBACK);
        assert.ok(ref === FALLBACK || REF.test(ref), `${JSON.stringify(name)} → ${JSON.stringify(ref)}`);
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent on its output', () => {
    fc.assert(
      fc.property(anyName, validRef, (name, fallback) => {
        const ref = deriveRef(name, fallback);
        assert.equal(deriveRef(ref, fallback), ref);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves well-formed refs unchanged', () => {
    fc.assert(
      fc.property(validRef, (ref) => {
        assert.equal(deriveRef(ref, FALLBACK), ref);
      }),
    );
  });

  it('ignores case and punctuation', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z0-9]{1,6}$/), { minLength: 1, maxLength: 4 }), fc.constantFrom(' ', '-', '.', ' & ', '/'), (words, sep) => {
        const name = words.map((w) => w.toUpperCase()).join(sep);
        assert.equal(deriveRef(name, FALLBACK), words.join('_'));
      }),
    );
  });
});

describe('uniqueRef', () => {
  it('keeps a free base', () => {
    assert.equal(uniqueRef('leads', new Set()), 'leads');
    assert.equal(uniqueRef('leads', new Set(['deals', 'leads_2'])), 'leads');
  });

  it('numbers a taken base from 2, taking the first free number', () => {
    assert.equal(uniqueRef('leads', new Set(['leads'])), 'leads_2');
    assert.equal(uniqueRef('leads', new Set(['leads', 'leads_2'])), 'leads_3');
    assert.equal(uniqueRef('leads', new Set(['leads', 'leads_3'])), 'leads_2');
  });

  it('returns the first of base, base_2, base_3, … that is not taken', () => {
    fc.assert(
      fc.property(validRef, fc.uniqueArray(fc.integer({ min: 1, max: 30 })), fc.array(validRef, { maxLength: 5 }), (base, numbers, noise) => {
        const taken = new Set([...numbers.map((n) => (n === 1 ? base : `${base}_${n}`)), ...noise]);
        const ref = uniqueRef(base, taken);
        assert.ok(!taken.has(ref), `${ref} is taken`);
        const candidates = [base, ...Array.from({ length: 40 }, (_, i) => `${base}_${i + 2}`)];
        assert.equal(ref, candidates.find((c) => !taken.has(c)));
        assert.match(ref, REF);
      }),
    );
  });
});
