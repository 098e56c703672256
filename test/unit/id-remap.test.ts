// Renaming a copied organization's ids (domain/id-remap.ts): every standalone occurrence of a source id, in
// any column and inside nested JSON text, becomes the copy's id; order is kept; other text is left alone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renameIds } from '../../src/domain/id-remap.ts';
import fc from 'fast-check';
import { encodeBase58, idShift, isId, newId, shiftId } from '../../src/domain/ids.ts';

describe('renameIds', () => {
  const org = newId();
  const a = newId();
  const b = newId();
  const target = newId();
  const doc = JSON.stringify({ [a]: [{ id: b }], note: `line\n${b}\ttext ${b}x` });
  const rows = [
    { id: a, org_id: org, doc, blob_key: `${org}/${a}`, key_rev: [...b].reverse().join('') },
    { id: b, org_id: org, doc: null, blob_key: null, key_rev: null },
  ];
  const tables = { items: { columns: Object.keys(rows[0]!), json: JSON.stringify(rows) } };
  const { tables: out, rename } = renameIds(tables, org, target);
  const copied = JSON.parse(out.items!.json) as typeof rows;

  it('gives every row a new id, in the same order', () => {
    assert.notEqual(copied[0]!.id, a);
    assert.notEqual(copied[1]!.id, b);
    assert.ok(copied[0]!.id < copied[1]!.id);
  });

  it('renames ids inside nested JSON, after escapes, in blob keys and reversed index keys; not inside longer words', () => {
    const inner = JSON.parse(copied[0]!.doc!) as Record<string, unknown> & { note: string };
    assert.deepEqual(Object.keys(inner), [copied[0]!.id, 'note']);
    assert.deepEqual(inner[copied[0]!.id], [{ id: copied[1]!.id }]);
    assert.equal(inner.note, `line\n${copied[1]!.id}\ttext ${b}x`);
    assert.equal(copied[0]!.blob_key, `${target}/${copied[0]!.id}`);
    assert.equal(copied[0]!.key_rev, [...copied[1]!.id].reverse().join(''));
    assert.equal(rename(`${org}/attachments/${b}`), `${target}/attachments/${copied[1]!.id}`);
  });

  it('leaves ids that are not the source organization\'s alone', () => {
    const other = newId();
    assert.equal(rename(`see ${other}`), `see ${other}`);
  });
});

describe('shiftId', () => {
  it('keeps the order of any two ids and changes both (property)', () => {
    const idArb = fc.tuple(fc.integer({ min: 0, max: 2 ** 47 }), fc.bigInt({ min: 0n, max: (1n << 80n) - 1n })).map(([ms, random]) => encodeBase58((BigInt(ms) << 80n) | random, 22));
    fc.assert(
      fc.property(idArb, idArb, (x, y) => {
        const shift = idShift();
        const [sx, sy] = [shiftId(x, shift), shiftId(y, shift)];
        assert.ok(isId(sx) && sx !== x);
        const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
        assert.equal(order(sx, sy), order(x, y));
      }),
    );
  });
});
