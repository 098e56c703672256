// The parts of s3rver (an S3-compatible server for tests; it ships no types) the test helpers use.
declare module 's3rver' {
  import type { Server } from 'node:http';
  export default class S3rver {
    constructor(options: { address?: string; port?: number; silent?: boolean; directory: string; configureBuckets?: { name: string }[] });
    httpServer: Server;
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
