// File contents on the local disk: the BlobStore port's one implementation.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BlobStore } from '../domain/ports/blob-store.ts';

/** Blobs as files under `root` (by default `blobs/` in the data directory). */
export function localBlobStore(root: string): BlobStore {
  const path = (key: string) => {
    if (!/^[A-Za-z0-9/_-]+$/.test(key) || key.includes('..')) throw new Error(`invalid blob key ${key}`);
    return join(root, key);
  };
  return {
    async put(key, data) {
      await mkdir(dirname(path(key)), { recursive: true });
      await writeFile(path(key), data);
    },
    async get(key) {
      try {
        return await readFile(path(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async delete(key) {
      await rm(path(key), { force: true });
    },
  };
}
