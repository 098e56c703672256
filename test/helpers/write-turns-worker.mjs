// A second thread on a SQLite file, for test/store/write-turns.test.ts: it takes turns with the thread that
// started it, holds a write transaction open until told to commit, and reports each step.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { adoptWriteTurns } = await import('../../src/store/sqlite/write-turns.ts');
const { openStore } = await import('../../src/store/open-store.ts');
adoptWriteTurns(workerData.turns);
const store = await openStore({ engine: 'sqlite', path: workerData.path });
const told = (what) => new Promise((resolve) => parentPort.on('message', (message) => message === what && resolve()));
const commit = told('commit');
await store.transaction(async (tx) => {
  await tx.settings.getOrInsert('held by the worker', 'yes');
  parentPort.postMessage('holding');
  await commit;
});
parentPort.postMessage('committed');
await store.close();
