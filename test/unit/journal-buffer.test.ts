// The journal buffer writes each organization's newest `keep` requests, in order, in transactions of at most 100:
// one pushed out before it was written is never written (it would only be deleted again).
import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { journalBuffer } from '../../src/http/journal-buffer.ts';
import type { JournalEntry } from '../../src/domain/ports/toolkit-store.ts';
import type { JournalRequest } from '../../src/domain/journal.ts';
import type { Store } from '../../src/domain/ports/store.ts';

/** A store whose journal records each insertMany call (its entries' ids), failing for `refused` organizations. */
function recordingStore(refused = new Set<string>()) {
  const calls: string[][] = [];
  const tx = {
    journal: {
      async insertMany(entries: JournalEntry[]) {
        if (entries.some((e) => refused.has(e.orgId))) throw new Error('organization deleted');
        calls.push(entries.map((e) => e.id));
      },
    },
  };
  const store = { transaction: <T>(fn: (tx: Store) => Promise<T>) => fn(tx as unknown as Store) } as unknown as Store;
  return { store, calls };
}

const entry = (orgId: string, n: number): JournalRequest => ({
  id: `${orgId}-${String(n).padStart(5, '0')}`,
  occurredAt: new Date(0).toISOString(),
  orgId,
  requestId: `req-${n}`,
  method: 'GET',
  url: '/v0/notes?limit=1',
  status: 200,
  latencyMs: 1,
  headers: { accept: '*/*' },
  requestBody: undefined,
  responseBody: '{"type":"list","data":[]}',
});

const range = (orgId: string, from: number, to: number) => Array.from({ length: to - from }, (_, i) => entry(orgId, from + i).id);

describe('journal buffer', () => {
  it("writes only each organization's newest keep entries, oldest first", async () => {
    const { store, calls } = recordingStore();
    const buffer = journalBuffer(store, 5, (error) => assert.fail(String(error)));
    for (let n = 0; n < 23; n++) buffer.add(entry('a', n));
    for (let n = 0; n < 3; n++) buffer.add(entry('b', n));
    await buffer.flush();
    assert.deepEqual(calls.flat(), [...range('a', 18, 23), ...range('b', 0, 3)]);
    await buffer.flush();
    assert.equal(calls.length, 1, 'nothing is written twice');
  });

  it('writes in transactions of at most 100 entries', async () => {
    const { store, calls } = recordingStore();
    const buffer = journalBuffer(store, 1000, (error) => assert.fail(String(error)));
    for (let n = 0; n < 250; n++) buffer.add(entry('a', n));
    await buffer.flush();
    assert.deepEqual(calls.map((c) => c.length), [100, 100, 50]);
    assert.deepEqual(calls.flat(), range('a', 0, 250));
  });

  it('starts writing without waiting once 5,000 entries wait', async () => {
    const { store, calls } = recordingStore();
    const buffer = journalBuffer(store, 1000, (error) => assert.fail(String(error)));
    for (let org = 0; org < 10; org++) for (let n = 0; n < 500; n++) buffer.add(entry(`o${org}`, n));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(calls.flat().length, 5000, 'written before any timer fired');
  });

  it("drops only the entries of an organization that cannot be written, reporting the failure", async () => {
    const { store, calls } = recordingStore(new Set(['gone']));
    const errors: unknown[] = [];
    const buffer = journalBuffer(store, 10, (error) => errors.push(error));
    buffer.add(entry('a', 0));
    buffer.add(entry('gone', 0));
    buffer.add(entry('a', 1));
    await buffer.flush();
    assert.deepEqual(calls.flat(), range('a', 0, 2));
    assert.equal(errors.length, 1);
  });

  it('writes an organization with more than keep requests in a round every fifth round, any other every round', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const { store, calls } = recordingStore();
      const buffer = journalBuffer(store, 5, (error) => assert.fail(String(error)));
      const round = async () => {
        mock.timers.tick(1000);
        await new Promise((resolve) => setImmediate(resolve));
      };
      let n = 0;
      for (let r = 1; r <= 5; r++) {
        for (let i = 0; i < 8; i++) buffer.add(entry('busy', n++));
        buffer.add(entry('calm', r));
        await round();
        const written = calls.flat();
        assert.deepEqual(written.filter((id) => id.startsWith('calm')), range('calm', 1, r + 1), `calm, round ${r}`);
        assert.deepEqual(written.filter((id) => id.startsWith('busy')), r < 5 ? [] : range('busy', 35, 40), `busy, round ${r}`);
      }
      buffer.add(entry('busy', n++));
      buffer.add(entry('busy', n++));
      await buffer.flush();
      assert.deepEqual(calls.flat().filter((id) => id.startsWith('busy')), range('busy', 35, 42), 'reading the journal writes everything');
    } finally {
      mock.timers.reset();
    }
  });
});
