// The contract every resource keeps, checked for each row of RESOURCES (resources.ts) on every engine: an
// unknown or malformed id is a bare 404 on retrieve and on every write; another organization's key finds
// nothing (404, absent from its lists) and changes nothing; a read-only key gets a bare 403 on every write and
// writes nothing (no record, no change, no activity); lists walk forward with `after` and back with `before`
// in order, without duplicates or gaps, with `prev` absent on the first page and `next` on the last; and a
// cursor that is garbage, or belongs to another list or organization, is a 400 naming the parameter.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertBareNotFound, createHarness, ENGINES, errorOf, type Harness, type Response } from '../helpers/harness.ts';
import { RESOURCES, send, type ResourceContract } from './resources.ts';

/** Well-formed (22 base58 characters) but never issued. */
const UNKNOWN_ID = '1ChFLYDsNehG6QDPrqx815';

/** Ids no record can have, as they appear in the path (already URL-encoded); `todo` names a known bug. */
const WEIRD_IDS: Array<[label: string, segment: string, todo?: string]> = [
  ['a word', 'not-an-id'],
  ['22 characters outside base58', '0OIl0OIl0OIl0OIl0OIl0O'],
  ['one character too long', `${UNKNOWN_ID}1`],
  ['100 characters', 'x'.repeat(100)],
  ['300 characters', 'x'.repeat(300)],
  ['8,000 characters', 'x'.repeat(8000)],
  ['non-ASCII', '%C3%BC%F0%9F%98%80'],
  ['SQL', "%27%20OR%20%271%27%3D%271"],
  ['a space', 'a%20b'],
  ['NUL', 'a%00b'],
];

const LIMIT = 3;
const RECORDS = 7;

function assertBareForbidden(res: Response, what: string): void {
  assert.equal(res.status, 403, `${what}: ${res.text}`);
  const error = errorOf(res);
  assert.equal(error.title, 'Forbidden', what);
  assert.equal(error.detail, undefined, `${what}: ${res.text}`);
}

function assertBadCursor(res: Response, parameter: string, what: string): void {
  assert.equal(res.status, 400, `${what}: ${res.text}`);
  const error = errorOf(res);
  assert.equal(error.source?.parameter, parameter, `${what}: ${res.text}`);
  assert.equal(error.code, 'invalid_cursor', `${what}: ${res.text}`);
}

const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

interface Page {
  ids: string[];
  prev?: string;
  next?: string;
}

async function page(h: Harness, path: string, query: string, key: string): Promise<Page> {
  const res = await h.get(withQuery(path, query), { key });
  assert.equal(res.status, 200, `GET ${path}?${query}: ${res.text}`);
  assert.equal(res.body.type, 'list', res.text);
  const { prev, next } = res.body.meta.cursors;
  return { ids: res.body.data.map((x: { id: string }) => x.id), prev, next };
}

/** Every id of a list, in list order, through `next`. */
async function allIds(h: Harness, path: string, key: string): Promise<string[]> {
  const ids: string[] = [];
  let p = await page(h, path, 'limit=100', key);
  for (let guard = 0; ; guard++) {
    assert.ok(guard < 100, `the walk over ${path} does not end`);
    ids.push(...p.ids);
    if (!p.next) return ids;
    p = await page(h, path, `limit=100&after=${encodeURIComponent(p.next)}`, key);
  }
}

/** Everything a refused write could have changed: the record, the resource's list (or container) and the activity feed. */
async function snapshot(h: Harness, r: ResourceContract, key: string, id?: string): Promise<unknown> {
  const view = async (path: string) => {
    const res = await h.get(path, { key });
    assert.equal(res.status, 200, `GET ${path}: ${res.text}`);
    return res.body;
  };
  return {
    record: id === undefined ? undefined : (r.stable ?? ((b: unknown) => b))(await view(r.inspect?.(id) ?? r.retrieve(id))),
    list: r.list ? await allIds(h, r.list.path, key) : undefined,
    container: r.container ? await view(r.container) : undefined,
    activities: await allIds(h, '/v0/activities', key),
  };
}

/** A valid cursor of a list other than `path`, in the organization of `key`. */
async function cursorOfAnotherList(h: Harness, path: string, key: string): Promise<string> {
  // A new organization has four system collections, so its collection list always has a second page.
  let other = '/v0/collections';
  if (path === other) {
    other = '/v0/funnels';
    for (const name of ['Cursor source 1', 'Cursor source 2']) {
      const res = await h.post(other, { name, steps: [{ name: 'Open', step_type: 'active' }] }, { key });
      assert.equal(res.status, 201, res.text);
    }
  }
  const p = await page(h, other, 'limit=1', key);
  assert.ok(p.next, `${other} has a second page`);
  return p.next;
}

for (const engine of ENGINES) {
  describe(`resource contract (${engine})`, () => {
    let h: Harness;
    let other: { orgId: string; key: string };
    let readOnly: string;
    before(async () => {
      h = await createHarness(engine);
      other = await h.newOrg();
      readOnly = await h.readOnlyKey();
    });
    after(() => h.close());

    for (const r of RESOURCES) {
      describe(r.name, () => {
        it('an unknown id → bare 404 on retrieve and on every write', async () => {
          assertBareNotFound(await h.get(r.retrieve(UNKNOWN_ID)));
          for (const w of r.writes) {
            const res = await send(h, w.method, w.path(UNKNOWN_ID), w.payload, h.key);
            assert.equal(res.status, 404, `${w.name} ${w.method} ${w.path(UNKNOWN_ID)}: ${res.text}`);
            assertBareNotFound(res);
          }
        });

        for (const [label, segment, todo] of WEIRD_IDS) {
          it(`a malformed id (${label}) → bare 404 on retrieve and on every write`, todo ? { todo } : {}, async () => {
            const retrieved = await h.get(r.retrieve(segment));
            assert.equal(retrieved.status, 404, `GET ${r.retrieve(segment)}: ${retrieved.text}`);
            assertBareNotFound(retrieved);
            for (const w of r.writes) {
              const res = await send(h, w.method, w.path(segment), w.payload, h.key);
              assert.equal(res.status, 404, `${w.name} ${w.method} ${w.path(segment)}: ${res.text}`);
              assertBareNotFound(res);
            }
          });
        }

        it("another organization's key: retrieve and every write → bare 404, absent from its list, and unchanged for the owner", async () => {
          const id = await r.create(h, h.key);
          const before = await snapshot(h, r, h.key, id);
          const retrieved = await h.get(r.retrieve(id), { key: other.key });
          assert.equal(retrieved.status, 404, `GET ${r.retrieve(id)}: ${retrieved.text}`);
          assertBareNotFound(retrieved);
          if (r.list) assert.ok(!(await allIds(h, r.list.path, other.key)).includes(id), `${r.list.path} of the other organization lists ${id}`);
          for (const lookup of r.lookups?.(id) ?? []) {
            assert.deepEqual((await page(h, lookup, 'limit=100', other.key)).ids, [], `GET ${lookup} with the other organization's key`);
            assert.deepEqual((await page(h, lookup, 'limit=100', h.key)).ids, [id], `GET ${lookup} with the owner's key`);
          }
          for (const w of r.writes) {
            const res = await send(h, w.method, w.path(id), w.payload, other.key);
            assert.equal(res.status, 404, `${w.name} ${w.method} ${w.path(id)}: ${res.text}`);
            assertBareNotFound(res);
          }
          assert.deepEqual(await snapshot(h, r, h.key, id), before);
        });

        it('a read-only key reads: retrieve → 200 with what the owner sees, and the list holds the record', async () => {
          const id = await r.create(h, h.key);
          const stable = r.stable ?? ((b: unknown) => b);
          const owner = await h.get(r.inspect?.(id) ?? r.retrieve(id));
          const reader = await h.get(r.inspect?.(id) ?? r.retrieve(id), { key: readOnly });
          assert.equal(reader.status, 200, reader.text);
          assert.deepEqual(stable(reader.body), stable(owner.body));
          if (r.list) assert.ok((await allIds(h, r.list.path, readOnly)).includes(id), `${r.list.path} with the read-only key lists ${id}`);
        });

        for (const c of r.creates) {
          it(`a read-only key: ${c.name} (${c.method} ${c.path}) → bare 403, nothing written`, async () => {
            const payload = typeof c.payload === 'function' ? await c.payload(h, h.key) : c.payload;
            const before = await snapshot(h, r, h.key);
            assertBareForbidden(await send(h, c.method, c.path, payload, readOnly), `${c.method} ${c.path}`);
            assert.deepEqual(await snapshot(h, r, h.key), before);
          });
        }

        for (const w of r.writes) {
          it(`a read-only key: ${w.name} (${w.method} ${w.path(':id')}) → bare 403, nothing written`, async () => {
            const id = await r.create(h, h.key);
            const before = await snapshot(h, r, h.key, id);
            assertBareForbidden(await send(h, w.method, w.path(id), w.payload, readOnly), `${w.method} ${w.path(id)}`);
            assert.deepEqual(await snapshot(h, r, h.key, id), before);
          });
        }

        const list = r.list;
        if (list) {
          it(`pagination: ${RECORDS} records with limit=${LIMIT} walk forward with after and back with before, ${list.order}, once each`, async () => {
            const { key } = await h.newOrg();
            const existing = await allIds(h, list.path, key);
            const created: string[] = [];
            for (let i = 0; i < RECORDS; i++) created.push(await r.create(h, key));
            const expected = list.order === 'oldest first' ? [...existing, ...created] : [...created.reverse(), ...existing];

            const forward: Page[] = [await page(h, list.path, `limit=${LIMIT}`, key)];
            while (forward.at(-1)!.next) {
              assert.ok(forward.length < 50, 'the forward walk does not end');
              forward.push(await page(h, list.path, `limit=${LIMIT}&after=${encodeURIComponent(forward.at(-1)!.next!)}`, key));
            }
            assert.deepEqual(forward.flatMap((p) => p.ids), expected, 'forward walk');
            assert.equal(forward[0]!.prev, undefined, 'the first page has no prev');
            assert.equal(forward.at(-1)!.next, undefined, 'the last page has no next');
            for (const [i, p] of forward.entries()) {
              assert.ok(p.ids.length <= LIMIT && p.ids.length > 0, `page ${i} holds 1..${LIMIT} records: ${p.ids.length}`);
              if (i > 0) assert.equal(typeof p.prev, 'string', `page ${i} has prev`);
            }

            const backward: Page[] = [forward.at(-1)!];
            while (backward.at(-1)!.prev) {
              assert.ok(backward.length < 50, 'the backward walk does not end');
              const p = await page(h, list.path, `limit=${LIMIT}&before=${encodeURIComponent(backward.at(-1)!.prev!)}`, key);
              assert.equal(typeof p.next, 'string', 'a page reached backwards has next');
              assert.ok(p.ids.length <= LIMIT && p.ids.length > 0, `a page reached backwards holds 1..${LIMIT} records`);
              backward.push(p);
            }
            assert.deepEqual(backward.reverse().flatMap((p) => p.ids), expected, 'backward walk');
            assert.equal(backward[0]!.prev, undefined, 'the walk back ends on a page without prev');
          });

          const remove = r.writes.find((w) => w.method === 'DELETE');
          if (remove) {
            it('a page emptied by deletions since its cursor was made still leads back to the rows before it (or after it)', async () => {
              const { key } = await h.newOrg();
              const made: string[] = [];
              for (let i = 0; i < 4; i++) made.push(await r.create(h, key));
              const full = await allIds(h, list.path, key);
              const [a, b, c, d] = full.filter((id) => made.includes(id)) as [string, string, string, string];
              // Walks one record a page from the start to the page holding `id`.
              const pageOf = async (id: string) => {
                let p = await page(h, list.path, 'limit=1', key);
                for (let guard = 0; p.ids[0] !== id; guard++) {
                  assert.ok(guard < 50 && p.next, `${id} is on no page`);
                  p = await page(h, list.path, `limit=1&after=${encodeURIComponent(p.next!)}`, key);
                }
                return p;
              };
              const deleteAll = async (ids: string[]) => {
                for (const id of ids) assert.equal((await send(h, remove.method, remove.path(id), remove.payload, key)).status, 204);
              };
              // The page `direction` the cursor is empty, with only the cursor back, which leads to b.
              const emptyLeadsBackToB = async (direction: 'after' | 'before', cursor: string) => {
                const [back, away, opposite] = direction === 'after' ? (['prev', 'next', 'before'] as const) : (['next', 'prev', 'after'] as const);
                const empty = await page(h, list.path, `limit=1&${direction}=${encodeURIComponent(cursor)}`, key);
                assert.deepEqual(empty.ids, []);
                assert.equal(empty[away], undefined);
                assert.equal(typeof empty[back], 'string', `the empty page has ${back}`);
                const returned = await page(h, list.path, `limit=1&${opposite}=${encodeURIComponent(empty[back]!)}`, key);
                assert.deepEqual(returned.ids, [b], `${back} leads to the row the empty page was asked ${direction}`);
                assert.equal(returned[away], undefined, `nothing is ${direction} b any more`);
                return { back: empty[back]!, returned };
              };
              // After b, only c and d: delete them.
              if (full.at(-1) === d && full.at(-2) === c) {
                const afterB = (await pageOf(b)).next!;
                await deleteAll([c, d]);
                const { back, returned } = await emptyLeadsBackToB('after', afterB);
                assert.equal(typeof returned.prev, 'string', 'a is still before b');
                // A larger page from the same cursor back holds b and the row before it: none is skipped.
                const wider = await page(h, list.path, `limit=2&before=${encodeURIComponent(back)}`, key);
                assert.deepEqual(wider.ids, full.slice(full.indexOf(b) - 1, full.indexOf(b) + 1));
              }
              // Before b, only a (the list's first): delete it.
              if (full[0] === a) {
                const beforeB = (await pageOf(b)).prev!;
                await deleteAll([a]);
                await emptyLeadsBackToB('before', beforeB);
              }
            });
          }

          it('a bad cursor (garbage, another list’s, another organization’s) → 400 naming after or before', async () => {
            const { key } = await h.newOrg();
            for (let i = 0; i < 2; i++) await r.create(h, key);
            const own = await page(h, list.path, 'limit=1', key);
            assert.ok(own.next, `${list.path} has a second page`);
            const foreign = await cursorOfAnotherList(h, list.path, key);
            const cursors: Array<[string, string]> = [
              ['garbage', 'garbage'],
              ['garbage with a dot', 'AAAA.BBBB'],
              ['an empty payload', '.'],
              ['another list', foreign],
            ];
            for (const [label, cursor] of cursors) {
              for (const parameter of ['after', 'before']) {
                const res = await h.get(withQuery(list.path, `limit=${LIMIT}&${parameter}=${encodeURIComponent(cursor)}`), { key });
                assertBadCursor(res, parameter, `${parameter}: ${label}`);
              }
            }
            // The same list's own cursor from this organization, presented by another one.
            for (const parameter of ['after', 'before']) {
              const res = await h.get(withQuery(list.path, `limit=${LIMIT}&${parameter}=${encodeURIComponent(own.next!)}`), { key: other.key });
              assertBadCursor(res, parameter, `${parameter}: another organization's cursor`);
            }
          });
        }
      });
    }
  });
}
