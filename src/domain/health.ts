// Readiness: what the service needs before it can answer requests.
import type { Store } from './ports/store.ts';
import type { BlobStore } from './ports/blob-store.ts';

/** Resolves when the database and the blob store answer; rejects with the first failure otherwise. */
export async function checkReady(store: Store, blobs: BlobStore): Promise<void> {
  await Promise.all([store.ping(), blobs.ping()]);
}
