// The request journal is written off the request path: entries wait here and go to the store in one
// transaction per batch, at most FLUSH_MS after the first of them arrived (at once when MAX_BATCH wait).
// Reading or clearing the journal through this process flushes first, so a client finds every request it
// has had an answer to; through another process sharing the database they show within FLUSH_MS. A process
// that stops flushes on close; one that dies loses its unflushed entries (never an API write).
import { saveJournalEntries } from '../domain/journal.ts';
import type { JournalEntry } from '../domain/ports/toolkit-store.ts';
import type { Store } from '../domain/ports/store.ts';

const FLUSH_MS = 50;
const MAX_BATCH = 200;

export interface JournalBuffer {
  add(entry: JournalEntry): void;
  /** Resolves once every entry added so far is stored (or, when the store failed, reported and dropped). */
  flush(): Promise<void>;
}

export function journalBuffer(store: Store, keep: number, onError: (error: unknown) => void): JournalBuffer {
  let pending: JournalEntry[] = [];
  let timer: NodeJS.Timeout | undefined;
  // Batches are written one after the other, so each organization's trimming sees the batches before it.
  let written: Promise<void> = Promise.resolve();
  // A batch that fails (an organization deleted meanwhile) is written again organization by organization, so only
  // the entries that cannot be written are dropped.
  const save = async (batch: JournalEntry[]) => {
    try {
      await saveJournalEntries(store, batch, keep);
    } catch {
      for (const orgId of new Set(batch.map((e) => e.orgId))) {
        await saveJournalEntries(store, batch.filter((e) => e.orgId === orgId), keep).catch(onError);
      }
    }
  };
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length > 0) written = written.then(() => save(batch));
    return written;
  };
  return {
    add(entry) {
      pending.push(entry);
      if (pending.length >= MAX_BATCH) void flush();
      else if (timer === undefined) timer = setTimeout(flush, FLUSH_MS).unref();
    },
    flush,
  };
}
