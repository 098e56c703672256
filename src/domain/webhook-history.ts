// How long webhook history is kept. Every attempt is logged and every delivery stays after it finished, so that
// an endpoint's attempts can be listed and any event re-sent; without an end, both tables would grow with
// every event ever sent. Attempts older than HISTORY_RETENTION_MS, and deliveries finished (sent or given up)
// and last attempted before then, are deleted by the due-work sweep (due-work.ts), in batches of short
// transactions. Time is the organization's own clock, so advancing a sandbox's clock ages its history too.
// A pending delivery is never deleted, and an event whose delivery went can still be re-sent: `resendEvent`
// makes a new delivery with the same `webhook-id`.
import { firstIdAt } from './ids.ts';
import type { HistoryCutoff, Store } from './ports/store.ts';

/** 30 days: what Stripe keeps of its webhook events, and longer than the whole retry schedule (~28 h). */
export const HISTORY_RETENTION_MS = 30 * 24 * 3600e3;

/** Rows deleted per transaction: a long backlog goes in steps that never hold the writer for long. */
export const PRUNE_BATCH = 1000;

/** Deletes the organization's webhook history older than the retention at `now`; returns how many rows went. */
export async function pruneWebhookHistory(store: Store, orgId: string, now: Date): Promise<number> {
  const at = now.getTime() - HISTORY_RETENTION_MS;
  const before: HistoryCutoff = { id: firstIdAt(at), at: new Date(at).toISOString() };
  // A read first: most sweeps find nothing, and a read takes no write lock.
  if (!(await store.webhookDeliveries.hasHistoryBefore(orgId, before))) return 0;
  let removed = 0;
  for (;;) {
    const batch = await store.transaction((tx) => tx.webhookDeliveries.pruneHistory(orgId, before, PRUNE_BATCH));
    removed += batch;
    if (batch < PRUNE_BATCH) return removed;
  }
}
