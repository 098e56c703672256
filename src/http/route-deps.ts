// What every resource route plugin is given: the store, the list mechanism, the clock, the blob store and the
// download URL signer.
import type { Clock } from '../domain/clock.ts';
import type { Store } from '../domain/ports/store.ts';
import type { Listing } from './pagination.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { DownloadSigner } from '../domain/downloads.ts';

export interface RouteDeps {
  store: Store;
  listing: Listing;
  clock: Clock;
  blobs: BlobStore;
  downloads: DownloadSigner;
}
