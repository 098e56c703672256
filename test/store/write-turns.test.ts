// Two threads of one process writing to one SQLite file (the API's and the webhook thread's) take turns at
// the write lock (src/store/sqlite/write-turns.ts): while the other thread holds it, a thread's write waits
// on its event loop — which keeps serving everything else — not inside SQLite's busy handler, which would
// block the thread, and it runs as soon as the other commits.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { openStore } from '../../src/store/open-store.ts';
import { writeTurnsBuffer } from '../../src/store/sqlite/write-turns.ts';
import type { Store } from '../../src/domain/ports/store.ts';

describe('write turns between threads on one SQLite file', () => {
  let dir: string;
  let path: string;
  let store: Store;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tycho-write-turns-'));
    path = join(dir, 'tycho.sqlite');
    store = await openStore({ engine: 'sqlite', path });
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("waits for the other thread's write transaction without blocking this thread, then writes at once", async () => {
    const worker = new Worker(new URL('../helpers/write-turns-worker.mjs', import.meta.url), { workerData: { path, turns: writeTurnsBuffer() } });
    const steps: string[] = [];
    const step = (what: string) => new Promise<void>((resolve) => worker.on('message', (message) => message === what && resolve()));
    const holding = step('holding');
    const committed = step('committed').then(() => steps.push('worker committed'));
    try {
      await holding;
      const write = store.transaction((tx) => tx.settings.getOrInsert('written by the test', 'yes')).then(() => steps.push('test wrote'));
      // Were the write waiting inside SQLite, this thread would run nothing until the busy timeout (5 s) ended
      // the wait with an error.
      const started = Date.now();
      const turns = await new Promise<number>((resolve) => {
        let count = 0;
        const tick = setInterval(() => {
          if (++count < 5) return;
          clearInterval(tick);
          resolve(count);
        }, 10);
      });
      assert.equal(turns, 5);
      assert.ok(Date.now() - started < 2500, `five 10 ms timers took ${Date.now() - started} ms: the thread was blocked`);
      assert.deepEqual(steps, [], 'the write waits while the worker holds the lock');
      worker.postMessage('commit');
      await Promise.all([write, committed]);
      // Which is heard of first is a race (the worker reports after its turn has passed on); both are done.
      assert.deepEqual(steps.sort(), ['test wrote', 'worker committed']);
      assert.equal(await store.settings.getOrInsert('held by the worker', 'no'), 'yes');
      assert.equal(await store.settings.getOrInsert('written by the test', 'no'), 'yes');
    } finally {
      await worker.terminate();
    }
  });
});
