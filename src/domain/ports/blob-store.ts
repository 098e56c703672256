// Where file contents live: the local disk or an S3-compatible bucket (src/store implements both). Contents
// move as streams, so an upload or a download never has to fit in memory.
import type { Readable } from 'node:stream';

export interface BlobContent {
  stream: Readable;
  size: number;
}

export interface StoredBlob {
  key: string;
  storedAt: Date;
}

/** What a pre-signed URL of the store itself serves the blob as. */
export interface DirectDownload {
  filename: string;
  contentType: string;
  /** When the URL stops working. */
  expires: Date;
  /** The time the URL is signed at (the injectable clock's). */
  now: Date;
}

export interface BlobStore {
  /**
   * Stores `data` under `key` as it arrives and resolves with its size once every byte is stored. When `data`
   * fails (a too-large or broken upload), rejects with that error and stores nothing; when the store fails,
   * rejects with a 503 `AppError`.
   */
  put(key: string, data: Readable): Promise<number>;
  /** The blob's contents, or undefined when there is none under `key`. */
  get(key: string): Promise<BlobContent | undefined>;
  /** Removes the blob; removing one that is not there is no error. */
  delete(key: string): Promise<void>;
  /** Every blob, with when it was stored, in no particular order (for the sweeper of unreferenced blobs). */
  list(): AsyncIterable<StoredBlob>;
  /** Resolves when the store answers; rejects otherwise (readiness). */
  ping(): Promise<void>;
  /** A URL of the store itself serving the blob until `download.expires`, when the store is set to give them. */
  directUrl?(key: string, download: DirectDownload): Promise<string>;
}
