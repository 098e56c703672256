// Turns at SQLite's write lock between the threads of one process (the API's and the webhook thread's), so
// that neither waits for the other inside SQLite's busy handler. That handler blocks the whole thread and
// sleeps in growing steps (1, 2, 5, 10 ms …): the API's event loop stood still, and the webhook thread, which
// wants the lock a few times per round while the API opens a batch on every turn, lost most of its turns.
// Here a thread whose write lock is held by another awaits the release (its event loop keeps running), and a
// thread that waited goes next.
//
// The turns are advice, never needed for correctness: SQLite's lock still decides, and every wait is
// bounded, so a thread that died holding a turn (or waiting for one) costs one bounded wait, after which
// the next thread to begin writes over what it left. Other processes on the file are not part of this; they
// meet at the busy handler as before.
import { threadId } from 'node:worker_threads';

const HOLDER = 0; // threadId + 1 of the thread inside a write transaction, or 0
const NEXT = 1; // threadId + 1 of a thread that waited for the holder and goes next, or 0
const CHANGES = 2; // moves whenever HOLDER does, for waiters to wake on
const SLOTS = 3;

/**
 * How long a thread waits for another's write transaction before leaving it to SQLite's busy handler: longer
 * than any of ours lasts, so that only a thread that died inside one (a stale turn) is waited out.
 */
const HOLDER_WAIT_MS = 1000;
/** How long a thread lets one that waited before it go first. */
const NEXT_WAIT_MS = 2;

let slots = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
const me = threadId + 1;

/** The turns of this process, to hand to a worker thread that opens the same SQLite file. */
export function writeTurnsBuffer(): SharedArrayBuffer {
  return slots.buffer as SharedArrayBuffer;
}

/** In a worker thread: take turns with the thread that created it (before the thread opens its store). */
export function adoptWriteTurns(buffer: SharedArrayBuffer): void {
  slots = new Int32Array(buffer);
}

/** Whether this thread should `awaitTurn()` before it begins a write transaction. */
export function mustWait(): boolean {
  const holder = Atomics.load(slots, HOLDER);
  const next = Atomics.load(slots, NEXT);
  return (holder !== 0 && holder !== me) || (next !== 0 && next !== me);
}

/** Resolves when this thread may begin: no other thread writes, and none that waited is still to go first. */
export async function awaitTurn(): Promise<void> {
  const started = performance.now();
  let deferred = false;
  for (;;) {
    const changes = Atomics.load(slots, CHANGES);
    const holder = Atomics.load(slots, HOLDER);
    const next = Atomics.load(slots, NEXT);
    if (holder !== 0 && holder !== me) {
      Atomics.compareExchange(slots, NEXT, 0, me);
      const left = HOLDER_WAIT_MS - (performance.now() - started);
      if (left <= 0) return;
      await changed(changes, left);
    } else if (next !== 0 && next !== me && !deferred) {
      deferred = true;
      // One that never comes (it ended while waiting) is forgotten.
      if ((await changed(changes, NEXT_WAIT_MS)) === 'timed-out') Atomics.compareExchange(slots, NEXT, next, 0);
    } else {
      return;
    }
  }
}

// Node 20 has it; TypeScript's ES2022 library does not declare it.
const waitAsync = (Atomics as unknown as {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

async function changed(from: number, timeoutMs: number): Promise<string> {
  const wait = waitAsync(slots, CHANGES, from, timeoutMs);
  return wait.async ? await wait.value : wait.value;
}

/** This thread has begun a write transaction. */
export function began(): void {
  Atomics.store(slots, HOLDER, me);
  Atomics.compareExchange(slots, NEXT, me, 0);
  moved();
}

/** This thread's write transaction has ended (committed or rolled back). */
export function ended(): void {
  Atomics.compareExchange(slots, HOLDER, me, 0);
  moved();
}

function moved(): void {
  Atomics.add(slots, CHANGES, 1);
  Atomics.notify(slots, CHANGES);
}
