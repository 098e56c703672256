// An S3-compatible server inside the test process (s3rver, on a random port, objects in a temporary
// directory), so the files and attachments suites run against a bucket as well as the local disk.
import S3rver from 's3rver';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

/** s3rver accepts any signature made with this key pair. */
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface S3Server {
  endpoint: string;
  /** Stops answering (connections refused), as a bucket outage; `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** A new empty bucket, and the environment that points Tycho at it. */
  bucketEnv(): Promise<Record<string, string>>;
}

let buckets = 0;

export async function startS3Server(): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'tycho-s3-'));
  let port = 0;
  let server: S3rver | undefined;
  const start = async () => {
    server = new S3rver({ address: '127.0.0.1', port, silent: true, directory });
    port = (await server.run()).port;
    // Ends with the test process even if a suite forgets to stop it.
    server.httpServer.unref();
  };
  await start();
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    start,
    stop: async () => {
      server!.httpServer.closeAllConnections();
      await server!.close();
    },
    async bucketEnv() {
      const bucket = `tycho-${process.pid}-${++buckets}`;
      const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      client.destroy();
      return {
        TYCHO_BLOB_URL: `s3://${bucket}/uploads`,
        TYCHO_S3_ENDPOINT: endpoint,
        TYCHO_S3_FORCE_PATH_STYLE: 'true',
        TYCHO_S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
        TYCHO_S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      };
    },
  };
}

let shared: Promise<S3Server> | undefined;

/** One server for the whole test process, started on first use. */
export function sharedS3Server(): Promise<S3Server> {
  return (shared ??= startS3Server());
}
