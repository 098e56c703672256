// What every resource route plugin is given: the store, the list mechanism, the clock, the blob store, the
// download URL signer and the webhook URL rules.
import type { Clock } from '../domain/clock.ts';
import type { Store } from '../domain/ports/store.ts';
import type { Listing } from './pagination.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { DownloadSigner } from '../domain/downloads.ts';
import type { WebhookUrlPolicy } from '../domain/webhook-urls.ts';

export interface RouteDeps {
  store: Store;
  listing: Listing;
  clock: Clock;
  blobs: BlobStore;
  downloads: DownloadSigner;
  /** Which webhook endpoint URLs are accepted. */
  webhookUrls: WebhookUrlPolicy;
}
