// The request journal is written off the request path: entries wait here and go to the store at most FLUSH_MS
// after the first of them arrived (at once when MAX_PENDING wait), in transactions of at most CHUNK entries.
// Reading or clearing the journal through this process flushes first, so a client finds every request it
// has had an answer to; through another process sharing the database they show within FLUSH_MS. A process
// that stops flushes on close; one that dies loses its unflushed entries (never an API write).
//
// Writing is what the journal costs: a stored entry is a row of up to a few kilobytes, written to the
// database's log, checkpointed, and deleted again once `keep` newer ones exist. So an organization's entries
// wait here at most `keep` deep: one pushed out before it was written would only have been written to be
// deleted. Under load (more than `keep` requests of one organization in FLUSH_MS) most entries are never
// written; below it every entry is. And under that load each round would write the organization's whole
// journal anew (1,000 rows a second by default: a fifth of the CPU a list page costs), so such an organization
// is written every BUSY_ROUNDS rounds instead, its newest `keep` then.
import { journalEntry, saveJournalEntries, type JournalRequest } from '../domain/journal.ts';
import { JournalRing } from './journal-ring.ts';
import type { JournalEntry } from '../domain/ports/toolkit-store.ts';
import type { Store } from '../domain/ports/store.ts';

const FLUSH_MS = 1000;
/** Entries of all organizations waiting that make the flush start at once: bounds the memory they hold. */
const MAX_PENDING = 5_000;
/** Entries per transaction: a write holds the event loop, and the database, for a few milliseconds at most. */
const CHUNK = 100;
/** Rounds an organization that had more than `keep` requests in one waits before it is written. */
const BUSY_ROUNDS = 5;

export interface JournalBuffer {
  /** An answered request: held in its organization's ring (journal-ring.ts), made into an entry (redacted) only if it is written. */
  add(request: JournalRequest): void;
  /** Resolves once every entry added so far is stored (or, when the store failed, reported and dropped). */
  flush(): Promise<void>;
}

export function journalBuffer(store: Store, keep: number, onError: (error: unknown) => void): JournalBuffer {
  // Rings stay while their organization is answered, so their slots are reused; one idle for a whole flush
  // interval is dropped.
  const rings = new Map<string, JournalRing>();
  let count = 0;
  let timer: NodeJS.Timeout | undefined;
  // Batches are written one after the other, so each organization's trimming sees the batches before it.
  let written: Promise<void> = Promise.resolve();
  // A chunk that fails (an organization deleted meanwhile) is written again organization by organization, so
  // only the entries that cannot be written are dropped.
  const saveChunk = async (chunk: JournalEntry[]) => {
    try {
      await saveJournalEntries(store, chunk, keep);
    } catch {
      for (const orgId of new Set(chunk.map((e) => e.orgId))) {
        await saveJournalEntries(store, chunk.filter((e) => e.orgId === orgId), keep).catch(onError);
      }
    }
  };
  const save = async (entries: JournalEntry[]) => {
    for (let i = 0; i < entries.length; i += CHUNK) await saveChunk(entries.slice(i, i + CHUNK));
  };
  /** Writes what waits: everything, or (a timer's round) all but the busy organizations' until their turn. */
  const flush = (everything = true) => {
    clearTimeout(timer);
    timer = undefined;
    const batch: JournalEntry[] = [];
    count = 0;
    for (const [orgId, ring] of rings) {
      if (ring.count === 0) rings.delete(orgId);
      else if (!everything && ring.dropped > 0 && ++ring.roundsWaited < BUSY_ROUNDS) count += ring.count;
      else for (const request of ring.drain()) batch.push(journalEntry(request));
    }
    // Another round writes what still waits, and drops the rings that stay idle until then.
    if (rings.size > 0) timer = setTimeout(flush, FLUSH_MS, false).unref();
    if (batch.length > 0) written = written.then(() => save(batch));
    return written;
  };
  return {
    add(request) {
      let ring = rings.get(request.orgId);
      if (!ring) rings.set(request.orgId, (ring = new JournalRing(request.orgId, keep)));
      if (ring.add(request)) count++;
      if (count >= MAX_PENDING) void flush();
      else if (timer === undefined) timer = setTimeout(flush, FLUSH_MS, false).unref();
    },
    flush: () => flush(),
  };
}
