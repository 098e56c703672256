// Readiness: what the service needs before it can answer requests.
import type { Store } from './ports/store.ts';

/** Resolves when the database answers; rejects with the driver's error otherwise. */
export function checkReady(store: Store): Promise<void> {
  return store.ping();
}
