// Webhook delivery on a worker thread of the server process, which `serve` runs: the API's event loop writes
// outbox rows (and, on SQLite, the rounds' records), while the thread, with store connections of its own opened on the same database, runs
// the delivery loop (webhook-worker.ts) and signs and sends the requests. Delivery then takes the API thread
// little CPU time beyond the outbox row and one message per turn, where a core is free to run it.
//
// - On SQLite the API thread writes each round's record (`writeRound`, inside its group commit), so that in
//   the steady state it is the only writer. When the thread wrote them itself, the API's writes waited for
//   the thread's turns at the write lock, each commit by the thread's connection made the API's connection
//   drop its page cache (3.8× the page reads per create), and the pages both touch (the outbox's) were
//   written twice. On PostgreSQL the thread records through its own pool: nothing of that applies there.
// - The API thread wakes the thread after a turn whose commits wrote outbox rows (one message for the turn,
//   sent after its last commit, so the round it starts sees them all), and only while the thread is idle: in
//   shared memory the API marks work pending and the thread says whether it is idle (`WakeGate`). Under load
//   the thread's next round is always near, and a message per turn cost the API thread ~20 µs per create.
//   The thread's own store hears the notices of other processes sharing a PostgreSQL database, and polls.
// - The thread reports each attempt (for /metrics, which the API thread serves) and each failed round (for
//   the log). If it dies all the same, it is started again after a pause: its leases expire meanwhile.
// - Stopping: the thread lets its in-flight attempts finish (or releases their endpoints), records them,
//   closes its store and is ended.
import { parentPort, Worker, workerData } from 'node:worker_threads';
import type { DatabaseLocation } from './store/open-store.ts';
import { openStore } from './store/open-store.ts';
import { adoptWriteTurns, writeTurnsBuffer } from './store/sqlite/write-turns.ts';
import type { Store } from './domain/ports/store.ts';
import { writeRound, type AttemptOutcome, type DeliveryObserver, type Recorder, type RoundRecord } from './domain/webhook-delivery.ts';
import type { WebhookUrlPolicy } from './domain/webhook-urls.ts';
import { httpWebhookSender } from './webhook-sender.ts';
import { startDeliveryWorker, type DeliveryWorker, type WakeGate } from './webhook-worker.ts';

/** What the thread runs: from the sources, an entry that registers the TypeScript loader first; built, the bundle's. */
const THREAD_ENTRY = new URL(import.meta.url.endsWith('.ts') ? './webhook-thread.mjs' : './webhook-thread-main.js', import.meta.url);
/** How often a server whose thread has not started looks for pending deliveries it was not told of. */
const IDLE_LOOK_MS = 2000;
/** How long a thread that died waits before it is started again. */
const RESTART_MS = 1000;
/**
 * PostgreSQL connections the thread's pool opens at most (besides its LISTEN connection): a round holds one
 * only for a statement or the short transaction that records it, never while a request is in flight.
 */
export const THREAD_POOL_SIZE = 4;

/** What the thread is started with (structured-cloned: plain data only). */
interface ThreadData {
  database: DatabaseLocation;
  webhookUrls: WebhookUrlPolicy;
  /** Shared, not copied: the thread takes turns at SQLite's write lock with this one (store/sqlite/write-turns.ts). */
  writeTurns: SharedArrayBuffer;
  /** Shared too: whether the thread is idle and whether work is pending (`sharedWakeGate`). */
  wakeGate: SharedArrayBuffer;
}

const IDLE = 0;
const PENDING = 1;

/**
 * Both sides of the wake gate over one shared buffer. Sequentially consistent, so a wake is never lost: the
 * API marks work pending before it reads whether the thread is idle, and the thread says it is idle before it
 * reads whether work is pending; one of the two sees the other's mark.
 */
export function sharedWakeGate(buffer: SharedArrayBuffer): WakeGate & { mustPost(): boolean } {
  const slots = new Int32Array(buffer);
  return {
    busy() {
      Atomics.store(slots, IDLE, 0);
      Atomics.store(slots, PENDING, 0);
    },
    idle() {
      Atomics.store(slots, IDLE, 1);
      if (Atomics.load(slots, PENDING) === 0) return false;
      Atomics.store(slots, IDLE, 0);
      return true;
    },
    /** The API's side: marks work pending; true when the thread is idle and must be told. */
    mustPost() {
      Atomics.store(slots, PENDING, 1);
      return Atomics.load(slots, IDLE) === 1;
    },
  };
}

type SerializedError = { name: string; message: string; stack?: string };

type ToThread = { kind: 'wake' } | { kind: 'stop' } | { kind: 'recorded'; id: number; error?: SerializedError };

type FromThread =
  | { kind: 'ready' }
  | { kind: 'record'; id: number; record: RoundRecord }
  | { kind: 'attempts'; attempts: [AttemptOutcome, number][] }
  | { kind: 'error'; error: SerializedError }
  | { kind: 'stopped' };

export interface DeliveryThreadOptions extends Omit<ThreadData, 'writeTurns' | 'wakeGate'> {
  /** The store the API writes through: its commits of outbox rows wake the thread. */
  store: Store;
  observer?: DeliveryObserver;
  onError(error: unknown): void;
  /** The thread is running (told on every start). */
  onReady?(threadId: number): void;
}

/**
 * Starts delivery on a worker thread; `stop` resolves once it has ended. The thread is started on demand: when
 * deliveries are first written (by this process, or announced by another), or found pending (written before
 * this process started, or by a process it cannot hear, such as a command on the same SQLite file). A server
 * whose organizations send no webhooks pays nothing for it (a second V8 isolate, ~100 MB, and a second store).
 */
export function startDeliveryThread(options: DeliveryThreadOptions): DeliveryWorker {
  const database = options.database.engine === 'postgres' ? { ...options.database, poolSize: Math.min(options.database.poolSize, THREAD_POOL_SIZE) } : options.database;
  const data: ThreadData = { database, webhookUrls: options.webhookUrls, writeTurns: writeTurnsBuffer(), wakeGate: new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT) };
  const gate = sharedWakeGate(data.wakeGate);
  let stopping = false;
  let thread: Worker | undefined;
  let exited: Promise<void> = Promise.resolve();
  let restart: NodeJS.Timeout | undefined;
  const start = () => {
    restart = undefined;
    const current = new Worker(THREAD_ENTRY, { workerData: data });
    thread = current;
    current.on('message', (message: FromThread) => {
      switch (message.kind) {
        case 'ready':
          options.onReady?.(current.threadId);
          break;
        case 'record':
          writeRound(options.store, message.record).then(
            () => current.postMessage({ kind: 'recorded', id: message.id } satisfies ToThread),
            (error: unknown) => current.postMessage({ kind: 'recorded', id: message.id, error: serialized(error) } satisfies ToThread),
          );
          break;
        case 'attempts':
          for (const [outcome, seconds] of message.attempts) options.observer?.attempted(outcome, seconds);
          break;
        case 'error':
          options.onError(revived(message.error));
          break;
        case 'stopped':
          void current.terminate();
      }
    });
    current.on('error', (error) => options.onError(error));
    exited = new Promise((resolve) =>
      current.once('exit', (code) => {
        if (!stopping) {
          options.onError(new Error(`the webhook delivery thread ended (exit code ${code}); starting it again in ${RESTART_MS} ms`));
          restart = setTimeout(start, RESTART_MS);
        }
        resolve();
      }),
    );
  };

  // Until the thread runs: any announcement of due deliveries starts it, and so does a look now and then (and
  // once at start) that finds deliveries pending or an endpoint enabled — so that, where events are to be
  // expected, the first ones do not wait for the thread to start. Once it runs, its own store hears other
  // processes and polls.
  let stopHearing: (() => void) | undefined = options.store.onDeliveriesDue(() => begin());
  const look = async () => {
    try {
      if ((await options.store.webhookDeliveries.pendingCount()) > 0 || (await options.store.webhookEndpoints.anyEnabled())) begin();
    } catch (error) {
      options.onError(error);
    }
  };
  const looking = setInterval(look, IDLE_LOOK_MS);
  looking.unref();
  void look();
  const quiet = () => {
    clearInterval(looking);
    stopHearing?.();
    stopHearing = undefined;
  };
  const begin = () => {
    if (thread || stopping) return;
    quiet();
    start();
  };

  let wakeQueued = false;
  const wake = () => {
    if (!thread) return begin();
    if (!gate.mustPost() || wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      thread?.postMessage({ kind: 'wake' } satisfies ToThread);
    });
  };
  const stopWaking = options.store.onDeliveriesDue(wake, 'this store');
  return {
    wake,
    async stop() {
      if (stopping) return exited;
      stopping = true;
      quiet();
      stopWaking();
      if (restart) clearTimeout(restart);
      else thread?.postMessage({ kind: 'stop' } satisfies ToThread);
      await exited;
    },
  };
}

/** The thread's side: run by webhook-thread-main.ts inside the worker. */
export async function runDeliveryThread(): Promise<void> {
  const port = parentPort!;
  const data = workerData as ThreadData;
  const report = (message: FromThread) => port.postMessage(message);
  // Attempts are reported once per turn, not one message each.
  let attempts: [AttemptOutcome, number][] = [];
  const flush = () => {
    if (attempts.length > 0) report({ kind: 'attempts', attempts });
    attempts = [];
  };
  const observer: DeliveryObserver = {
    attempted(outcome, seconds) {
      if (attempts.length === 0) setImmediate(flush);
      attempts.push([outcome, seconds]);
    },
  };
  const onError = (error: unknown) => report({ kind: 'error', error: serialized(error) });
  // On SQLite, rounds are recorded by the API thread (see the top of this file).
  const recording = new Map<number, { resolve(): void; reject(error: Error): void }>();
  let recorded = 0;
  const recorder: Recorder = (record) =>
    new Promise((resolve, reject) => {
      const id = ++recorded;
      recording.set(id, { resolve, reject });
      report({ kind: 'record', id, record });
    });
  adoptWriteTurns(data.writeTurns);
  const store = await openStore(data.database);
  const worker = startDeliveryWorker(store, httpWebhookSender(data.webhookUrls), {
    observer,
    onError,
    wakeGate: sharedWakeGate(data.wakeGate),
    ...(data.database.engine === 'sqlite' ? { recorder } : {}),
  });
  // Messages sent before this listener existed were queued: a stop during start-up is not lost.
  port.on('message', (message: ToThread) => {
    if (message.kind === 'wake') return worker.wake();
    if (message.kind === 'recorded') {
      const waiting = recording.get(message.id);
      recording.delete(message.id);
      return message.error ? waiting?.reject(revived(message.error)) : waiting?.resolve();
    }
    void worker
      .stop()
      .then(() => store.close())
      .catch(onError)
      .finally(() => {
        flush();
        report({ kind: 'stopped' });
      });
  });
  report({ kind: 'ready' });
}

function serialized(error: unknown): SerializedError {
  const e = error instanceof Error ? error : new Error(String(error));
  return { name: e.name, message: e.message, ...(e.stack ? { stack: e.stack } : {}) };
}

function revived(error: SerializedError): Error {
  return Object.assign(new Error(error.message), error);
}
