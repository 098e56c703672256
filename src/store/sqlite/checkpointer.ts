// Checkpoints of a served SQLite file, run from a thread of their own. By default SQLite checkpoints in the
// connection whose commit took the WAL past 1,000 pages: the API thread then copied those pages into the
// database file and waited for its fsync, once every hundred-odd creates, with every request of the process
// held up meanwhile. Here a second connection, on a worker thread, runs a PASSIVE checkpoint every
// CHECKPOINT_MS (it takes no write lock, so writes go on meanwhile), and the API's connection checkpoints only
// past SAFETY_NET_PAGES: a WAL that a checkpoint alongside continuous writes never finds fully copied is not
// rewound (SQLite rewinds it at a write that finds every frame copied), and would otherwise grow without end.
// Durability is SQLite's as before: a commit is in the WAL when it is acknowledged, and a checkpoint syncs
// the database file before any WAL frame is overwritten.
//
// The thread runs a few lines of plain JavaScript (evaluated, not a module of the build): it needs nothing of
// Tycho but better-sqlite3. Its heap is capped: with V8's defaults the thread added ~60 MB to an idle
// server's RSS, with the caps ~10 MB.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the thread checkpoints: about a thousand WAL pages apart under saturating writes. */
export const CHECKPOINT_MS = 100;
/** Where the API's connection checkpoints itself: when the thread's checkpoints leave the WAL growing. */
export const SAFETY_NET_PAGES = 10_000;

const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const database = new Database(workerData.path, { fileMustExist: true });
// A checkpoint may find a writer or a reader in its way: it then copies what it can and tries again later.
database.pragma('busy_timeout = 0');
const checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try {
    checkpoint.run();
  } catch (error) {
    parentPort.postMessage(String(error && error.message));
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  database.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** Starts checkpointing the WAL of the SQLite file at `path` from a worker thread; `onError` hears failed checkpoints. */
export function startCheckpointer(path: string, onError: (message: string) => void): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD, { eval: true, workerData: { path, driver, intervalMs: CHECKPOINT_MS }, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 } });
  worker.on('message', onError);
  worker.on('error', (error) => onError(error.message));
  // Nothing else keeps a process alive for it.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Held on to until it has closed its connection (it was left out of what keeps the process alive).
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
