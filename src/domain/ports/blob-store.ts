// Where file contents live: a small port, so an object store could replace the local disk (src/store
// implements it on the local disk).

export interface BlobStore {
  put(key: string, data: Buffer): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  delete(key: string): Promise<void>;
}
