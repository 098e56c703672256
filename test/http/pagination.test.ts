import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness, type Response } from '../helpers/harness.ts';
import { encodeBase58 } from '../../src/domain/ids.ts';
import type { Collection } from '../../src/domain/collections.ts';

interface Page {
  ids: string[];
  prev?: string;
  next?: string;
}

async function page(h: Harness, query: string, key?: string): Promise<Page> {
  const res = await h.get(`/v0/collections?${query}`, key ? { key } : {});
  assert.equal(res.status, 200, `${query}: ${res.text}`);
  assert.equal(res.body.type, 'list');
  const cursors = res.body.meta.cursors;
  for (const name of Object.keys(cursors)) assert.ok(name === 'prev' || name === 'next', `unexpected cursor ${name}`);
  return { ids: res.body.data.map((c: any) => c.id), prev: cursors.prev, next: cursors.next };
}

/** Follows `next` from the first page; stops when a page has none (with a guard against loops). */
async function walkForward(h: Harness, limit: number, onPage?: (p: Page, index: number) => Promise<void>): Promise<Page[]> {
  const pages: Page[] = [];
  let p = await page(h, `limit=${limit}`);
  for (;;) {
    pages.push(p);
    if (onPage) await onPage(p, pages.length - 1);
    if (!p.next) return pages;
    assert.ok(pages.length < 100, 'the walk does not end');
    p = await page(h, `limit=${limit}&after=${encodeURIComponent(p.next)}`);
  }
}

function assertBadParameter(res: Response, parameter: string): void {
  assert.equal(res.status, 400, res.text);
  const error = errorOf(res);
  assert.equal(error.title, 'Bad Request');
  assert.equal(error.source?.parameter, parameter, res.text);
}

const ascending = (ids: string[]) => ids.every((id, i) => i === 0 || ids[i - 1]! < id);

/** `token` with one character of its payload (before the dot) replaced by another base64url character. */
function tamper(token: string): string {
  const i = Math.floor(token.indexOf('.') / 2);
  const replacement = token[i] === 'A' ? 'B' : 'A';
  return token.slice(0, i) + replacement + token.slice(i + 1);
}

for (const engine of ENGINES) {
  describe(`pagination (${engine})`, () => {
    let h: Harness;
    let all: string[];
    before(async () => {
      h = await createHarness(engine);
      for (let i = 0; i < 45; i++) {
        const res = await h.post('/v0/collections', { name: `Paged ${String(i).padStart(2, '0')}` });
        assert.equal(res.status, 201);
      }
      const full = await page(h, 'limit=100');
      all = full.ids;
      assert.equal(all.length, 49);
      assert.equal(full.next, undefined);
      assert.equal(full.prev, undefined);
    });
    after(() => h.close());

    it('lists in id order', () => {
      assert.ok(ascending(all));
      assert.equal(new Set(all).size, all.length);
    });

    it('defaults to 20 per page, with a next cursor', async () => {
      const p = await page(h, '');
      assert.deepEqual(p.ids, all.slice(0, 20));
      assert.equal(typeof p.next, 'string');
      assert.equal(p.prev, undefined);
    });

    it('accepts limit 1 and 100', async () => {
      assert.deepEqual((await page(h, 'limit=1')).ids, all.slice(0, 1));
      assert.deepEqual((await page(h, 'limit=100')).ids, all);
    });

    it('walks forward with next/after: every collection once, in id order, no next on the last page', async () => {
      const pages = await walkForward(h, 10);
      assert.deepEqual(pages.map((p) => p.ids.length), [10, 10, 10, 10, 9]);
      assert.deepEqual(pages.flatMap((p) => p.ids), all);
      assert.equal(pages[0]!.prev, undefined, 'the first page has no prev');
      for (const p of pages.slice(1)) assert.equal(typeof p.prev, 'string', 'later pages have prev');
      for (const p of pages.slice(0, -1)) assert.equal(typeof p.next, 'string');
      assert.equal(pages.at(-1)!.next, undefined, 'the last page has no next');
    });

    it('walks back with prev/before from the last page: the same set, once each', async () => {
      const forward = await walkForward(h, 10);
      const last = forward.at(-1)!;
      const pages: Page[] = [last];
      let p = last;
      while (p.prev) {
        assert.ok(pages.length < 100, 'the walk does not end');
        p = await page(h, `limit=10&before=${encodeURIComponent(p.prev)}`);
        pages.push(p);
        assert.equal(typeof p.next, 'string', 'a page reached backwards has a next page');
      }
      assert.equal(pages.at(-1)!.prev, undefined);
      const ids = pages.reverse().flatMap((x) => x.ids);
      assert.deepEqual(ids, all);
      // Walking back lands on the same pages as walking forward.
      assert.deepEqual(pages.map((x) => x.ids), forward.map((x) => x.ids));
    });

    it('prev of a page leads to exactly the page before it', async () => {
      const first = await page(h, 'limit=7');
      const second = await page(h, `limit=7&after=${encodeURIComponent(first.next!)}`);
      const third = await page(h, `limit=7&after=${encodeURIComponent(second.next!)}`);
      const back = await page(h, `limit=7&before=${encodeURIComponent(third.prev!)}`);
      assert.deepEqual(back.ids, second.ids);
      const backAgain = await page(h, `limit=7&before=${encodeURIComponent(back.prev!)}`);
      assert.deepEqual(backAgain.ids, first.ids);
      assert.equal(backAgain.prev, undefined);
    });

    it('a cursor can be reused with another limit (SDKs re-send the query plus after)', async () => {
      const first = await page(h, 'limit=5');
      assert.deepEqual((await page(h, `limit=12&after=${encodeURIComponent(first.next!)}`)).ids, all.slice(5, 17));
    });

    describe('rejects bad parameters with 400 and source.parameter', () => {
      for (const value of ['0', '101', 'abc', '1.5', '-1', '']) {
        it(`limit=${value}`, async () => {
          assertBadParameter(await h.get(`/v0/collections?limit=${value}`), 'limit');
        });
      }

      it('limit twice (limit=2&limit=3)', async () => {
        assertBadParameter(await h.get('/v0/collections?limit=2&limit=3'), 'limit');
      });

      it('after and before together, even when both are valid cursors', async () => {
        const first = await page(h, 'limit=10');
        const second = await page(h, `limit=10&after=${encodeURIComponent(first.next!)}`);
        const res = await h.get(`/v0/collections?after=${encodeURIComponent(second.next!)}&before=${encodeURIComponent(second.prev!)}`);
        assert.equal(res.status, 400, res.text);
        const parameter = errorOf(res).source?.parameter;
        assert.ok(parameter === 'after' || parameter === 'before', res.text);
      });

      for (const name of ['after', 'before'] as const) {
        it(`an empty ${name}: the detail says so plainly`, async () => {
          const res = await h.get(`/v0/collections?${name}=`);
          assertBadParameter(res, name);
          // Regression: the generic length message read "must be at least 1 characters long".
          assert.equal(errorOf(res).detail, `${name} must not be empty`);
        });

        it(`a forged ${name} cursor`, async () => {
          for (const forged of ['abc', 'x.y', 'not-a-cursor.at-all', '.', `${'A'.repeat(40)}.${'B'.repeat(22)}`]) {
            assertBadParameter(await h.get(`/v0/collections?${name}=${encodeURIComponent(forged)}`), name);
          }
        });

        it(`a valid ${name} cursor with one character changed`, async () => {
          const first = await page(h, 'limit=10');
          const second = await page(h, `limit=10&after=${encodeURIComponent(first.next!)}`);
          const token = name === 'after' ? second.next! : second.prev!;
          // The untouched cursor works…
          assert.equal((await h.get(`/v0/collections?${name}=${encodeURIComponent(token)}`)).status, 200);
          // …the edited one does not.
          assertBadParameter(await h.get(`/v0/collections?${name}=${encodeURIComponent(tamper(token))}`), name);
        });
      }

      it("a cursor from another organization's list", async () => {
        const other = await h.newOrg();
        const theirs = await page(h, 'limit=2', other.key);
        assert.equal(typeof theirs.next, 'string');
        assertBadParameter(await h.get(`/v0/collections?after=${encodeURIComponent(theirs.next!)}`), 'after');
        // And the other way round.
        const mine = await page(h, 'limit=2');
        assertBadParameter(await h.get(`/v0/collections?before=${encodeURIComponent(mine.next!)}`, { key: other.key }), 'before');
      });
    });

    describe('bracket query syntax', () => {
      it('limit=5 works', async () => {
        assert.deepEqual((await page(h, 'limit=5')).ids, all.slice(0, 5));
      });

      it('limit[foo]=5 is an object, not a number: 400', async () => {
        assertBadParameter(await h.get('/v0/collections?limit[foo]=5'), 'limit');
      });

      it('after[x]=y is an object, not a cursor: 400', async () => {
        assertBadParameter(await h.get('/v0/collections?after[x]=y'), 'after');
      });

      it('a one-element bracket array for a scalar parameter is read as its element (limit[]=5 is limit=5)', async () => {
        const res = await h.get('/v0/collections?limit[]=5');
        assert.equal(res.status, 200);
        assert.equal(res.body.data.length, 5);
        assertBadParameter(await h.get('/v0/collections?limit[]=5&limit[]=6'), 'limit');
      });
    });
  });

  describe(`pagination under concurrent inserts (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
      for (let i = 0; i < 30; i++) assert.equal((await h.post('/v0/collections', { name: `Before ${i}` })).status, 201);
    });
    after(() => h.close());

    it('collections created during a forward walk neither duplicate nor skip the existing ones', async () => {
      const existing = (await page(h, 'limit=100')).ids;
      assert.equal(existing.length, 34);
      const created: string[] = [];
      const pages = await walkForward(h, 10, async (_p, index) => {
        if (index === 1) {
          for (let i = 0; i < 5; i++) created.push((await h.post('/v0/collections', { name: `During ${i}` })).body.id);
        }
      });
      const seen = pages.flatMap((p) => p.ids);
      assert.equal(new Set(seen).size, seen.length, 'no collection appears twice');
      assert.ok(ascending(seen));
      for (const id of existing) assert.equal(seen.filter((s) => s === id).length, 1, `existing ${id} seen once`);
      // New ids sort after every existing one, so the walk reaches them too.
      for (const id of created) assert.ok(seen.includes(id), `new ${id} reached`);
    });

    it('rows inserted before and after the cursor position do not shift the walk', async () => {
      // Ids are chosen here (smaller than every generated one, 1000 apart) so that the inserts land in the
      // middle of the list: one in the part already walked, one in the part still ahead. Offset pagination
      // would repeat a row; keyset pagination does not.
      const base = 1_000_000n;
      assert.ok(encodeBase58(base, 22) < (await page(h, 'limit=1')).ids[0]!);
      const make = (n: bigint, ref: string): Collection => ({
        id: encodeBase58(base + n, 22),
        orgId: h.orgId,
        ref,
        name: ref,
        description: null,
        iconName: 'folder',
        kind: 'custom',
        createdAt: '2024-01-01T00:00:00.000Z',
        updatedAt: '2024-01-01T00:00:00.000Z',
      });
      for (let k = 0n; k < 30n; k++) await h.store.collections.insert(make(k * 1000n, `spaced_${k}`));
      const existing = (await page(h, 'limit=100')).ids;
      const spaced = existing.slice(0, 30);
      const behind = make(2n * 1000n + 500n, 'inserted_behind');
      const ahead = make(27n * 1000n + 500n, 'inserted_ahead');

      let walkedBeforeInsert: string[] = [];
      const pages = await walkForward(h, 10, async (p, index) => {
        if (index === 0) {
          walkedBeforeInsert = p.ids;
          assert.ok(p.ids.includes(spaced[2]!) && p.ids.includes(spaced[3]!), 'the first insert lands inside the walked page');
          await h.store.collections.insert(behind);
          await h.store.collections.insert(ahead);
        }
      });
      assert.ok(walkedBeforeInsert.length > 0);
      const seen = pages.flatMap((p) => p.ids);
      assert.equal(new Set(seen).size, seen.length, 'no collection appears twice');
      for (const id of existing) assert.equal(seen.filter((s) => s === id).length, 1, `existing ${id} seen once`);
      assert.ok(!seen.includes(behind.id), 'a row inserted behind the cursor is not seen');
      assert.ok(seen.includes(ahead.id), 'a row inserted ahead of the cursor is seen');
      assert.ok(ascending(seen));
    });
  });

  describe(`cursor sides after deletes (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('prev and next say whether rows remain on the other side of the cursor, after deletes too', async () => {
      const collection = (await h.post('/v0/collections', { name: 'Shrinking' })).body;
      const items = `/v0/collections/${collection.id}/items`;
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await h.post(items, { values: {} })).body.id);
      const get = async (query: string) => {
        const res = await h.get(`${items}?${query}`);
        assert.equal(res.status, 200, res.text);
        return { ids: res.body.data.map((i: any) => i.id), ...res.body.meta.cursors };
      };
      const first = await get('limit=2');
      const last = await get(`limit=2&after=${encodeURIComponent((await get(`limit=2&after=${encodeURIComponent(first.next)}`)).next)}`);
      assert.deepEqual(last.ids, ids.slice(4));
      assert.equal(typeof (await get(`limit=2&after=${encodeURIComponent(first.next)}`)).prev, 'string');
      assert.equal(typeof (await get(`limit=2&before=${encodeURIComponent(last.prev)}`)).next, 'string');

      // With the rows behind each cursor gone (the cursor's own row included), the pages lose that side.
      for (const id of [...ids.slice(0, 2), ...ids.slice(4)]) assert.equal((await h.delete(`${items}/${id}`)).status, 204);
      const middle = await get(`limit=2&after=${encodeURIComponent(first.next)}`);
      assert.deepEqual(middle.ids, ids.slice(2, 4));
      assert.equal(middle.prev, undefined);
      const back = await get(`limit=2&before=${encodeURIComponent(last.prev)}`);
      assert.deepEqual(back.ids, ids.slice(2, 4));
      assert.equal(back.next, undefined);
    });
  });
}
