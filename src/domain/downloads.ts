// Signed download URLs: a file can be fetched without a bearer token for one hour, through a path that names
// the organization, the file and the expiry, with an HMAC over all three. Generated per response, never stored.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { BlobStore } from './ports/blob-store.ts';
import type { Store } from './ports/store.ts';
import type { Readable } from 'node:stream';

export const DOWNLOAD_TTL_SECONDS = 3600;
export const DOWNLOAD_PATH = '/tycho/downloads';

export interface DownloadSigner {
  /** The path and query of a download URL valid for an hour from `now` (seconds). */
  path(orgId: string, fileId: string, now: number): string;
  /** Whether a signature is genuine and not expired. */
  verify(orgId: string, fileId: string, expires: number, signature: string, now: number): boolean;
}

export function createDownloadSigner(secret: string): DownloadSigner {
  const sign = (orgId: string, fileId: string, expires: number) =>
    createHmac('sha256', secret).update(`${orgId}/${fileId}/${expires}`).digest('base64url');
  return {
    path(orgId, fileId, now) {
      const expires = Math.floor(now) + DOWNLOAD_TTL_SECONDS;
      return `${DOWNLOAD_PATH}/${orgId}/${fileId}?expires=${expires}&signature=${sign(orgId, fileId, expires)}`;
    },
    verify(orgId, fileId, expires, signature, now) {
      if (!Number.isSafeInteger(expires) || expires < now) return false;
      const expected = Buffer.from(sign(orgId, fileId, expires));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export interface Download {
  filename: string;
  contentType: string;
  size: number;
  stream: Readable;
}

/** What a download URL is made for: a file or a message attachment. */
export interface Downloadable {
  orgId: string;
  id: string;
  blobKey: string;
  filename: string;
  contentType: string;
}

/**
 * The download URL of a file or attachment, valid for an hour from `now`: Tycho's own signed path under
 * `base` (streamed from the blob store by /tycho/downloads), or a pre-signed URL of the bucket itself when
 * the blob store is set to give them (TYCHO_BLOB_PRESIGNED_DOWNLOADS).
 */
export async function downloadUrl(blobs: BlobStore, signer: DownloadSigner, base: string, target: Downloadable, now: Date): Promise<string> {
  if (blobs.directUrl) {
    const expires = new Date((Math.floor(now.getTime() / 1000) + DOWNLOAD_TTL_SECONDS) * 1000);
    return blobs.directUrl(target.blobKey, { filename: target.filename, contentType: target.contentType, expires, now });
  }
  return `${base}${signer.path(target.orgId, target.id, now.getTime() / 1000)}`;
}

/** The contents of a file or a message attachment (the two share one id space), or undefined when gone. */
export async function findDownload(store: Store, blobs: BlobStore, orgId: string, id: string): Promise<Download | undefined> {
  const file = (await store.files.find(orgId, id)) ?? (await store.attachments.find(orgId, id));
  const content = file && (await blobs.get(file.blobKey));
  return file && content && { filename: file.filename, contentType: file.contentType, ...content };
}
