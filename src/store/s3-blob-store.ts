// File contents in an S3-compatible bucket (TYCHO_BLOB_URL=s3://bucket/prefix): AWS S3, MinIO, Cloudflare R2,
// Ceph. Uploads stream through lib-storage (multipart above one part), so memory stays bounded whatever the
// size; every process on the same database reads and deletes the same objects.
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  NoSuchKey,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import { serviceUnavailable } from '../domain/errors.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { S3Location } from '../config.ts';
import { storeFailure } from './blob-store.ts';

/** How long one request to the bucket may take before the store counts as unavailable. */
const REQUEST_TIMEOUT_MS = 30_000;

export function s3BlobStore(location: S3Location): BlobStore & { close(): void } {
  const client = new S3Client({
    region: location.region,
    forcePathStyle: location.forcePathStyle,
    ...(location.endpoint ? { endpoint: location.endpoint } : {}),
    ...(location.credentials ? { credentials: location.credentials } : {}),
    // Checksums only where S3 requires them: S3-compatible servers differ in which of the newer ones they know.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Fail over to 503 quickly instead of retrying for long against a bucket that is down.
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 5_000, requestTimeout: REQUEST_TIMEOUT_MS },
  });
  const Bucket = location.bucket;
  const Key = (key: string) => location.prefix + key;
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw serviceUnavailable(error);
    }
  };
  const store: BlobStore & { close(): void } = {
    async put(key, data) {
      let size = 0;
      const counted = Readable.from(
        (async function* () {
          for await (const chunk of data) {
            size += (chunk as Buffer).length;
            yield chunk as Buffer;
          }
        })(),
      );
      try {
        // One part (PutObject) for small uploads, a multipart upload (aborted on failure) for larger ones.
        await new Upload({ client, params: { Bucket, Key: Key(key), Body: counted }, leavePartsOnError: false }).done();
        return size;
      } catch (error) {
        const failure = storeFailure(data, error);
        // The upload may have stopped reading mid-way: release the source (a request or another object).
        data.destroy();
        throw failure;
      }
    },
    async get(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: Key(key) }));
        return { stream: object.Body as Readable, size: object.ContentLength ?? 0 };
      } catch (error) {
        if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) return undefined;
        throw serviceUnavailable(error);
      }
    },
    async delete(key) {
      await call(() => client.send(new DeleteObjectCommand({ Bucket, Key: Key(key) })));
    },
    async *list() {
      try {
        for await (const page of paginateListObjectsV2({ client }, { Bucket, Prefix: location.prefix })) {
          for (const object of page.Contents ?? []) {
            if (object.Key) yield { key: object.Key.slice(location.prefix.length), storedAt: object.LastModified ?? new Date(0) };
          }
        }
      } catch (error) {
        throw serviceUnavailable(error);
      }
    },
    async ping() {
      await client.send(new HeadBucketCommand({ Bucket }));
    },
    close: () => client.destroy(),
  };
  if (location.presignedDownloads) {
    store.directUrl = (key, download) =>
      call(() =>
        getSignedUrl(
          client,
          new GetObjectCommand({
            Bucket,
            Key: Key(key),
            ResponseContentType: download.contentType,
            ResponseContentDisposition: `attachment; filename*=UTF-8''${encodeURIComponent(download.filename)}`,
          }),
          { expiresIn: Math.max(1, Math.round((download.expires.getTime() - download.now.getTime()) / 1000)), signingDate: download.now },
        ),
      );
  }
  return store;
}
