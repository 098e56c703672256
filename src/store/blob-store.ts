// File contents on the local disk (TYCHO_BLOB_URL unset or a directory): one file per blob under a root
// directory. A blob is written to a temporary name and renamed once whole, so a reader never sees half of one.
import { createWriteStream } from 'node:fs';
import { access, constants, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { serviceUnavailable } from '../domain/errors.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';

/**
 * The upload's own failure (too large, malformed) as is; anything else is the store failing (503). The
 * pipeline passes the first failure on to every stream, so `data` is errored either way: `storeFailed` says
 * whether the store's side failed first.
 */
export function storeFailure(data: Readable, error: unknown, storeFailed = false): unknown {
  return (!storeFailed && data.errored) || serviceUnavailable(error);
}

/** The keys Tycho makes (`<org>/<id>`, `<org>/attachments/<id>`): safe as relative paths. */
const KEY = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** Blobs up to this size are read whole rather than streamed. */
const SMALL = 256 * 1024;

/** Blobs as files under `root` (by default `blobs/` in the data directory). */
export function localBlobStore(root: string): BlobStore {
  const path = (key: string) => {
    if (!KEY.test(key)) throw new Error(`invalid blob key ${key}`);
    return join(root, key);
  };
  return {
    async put(key, data) {
      const target = path(key);
      const partial = `${target}.${randomBytes(6).toString('hex')}.part`;
      let fileFailed = false;
      try {
        await mkdir(dirname(target), { recursive: true });
        const file = createWriteStream(partial);
        // The file's own failure (a directory that cannot be written), not the upload's passed on to it.
        file.once('error', () => (fileFailed ||= !data.errored));
        await pipeline(data, file);
        await rename(partial, target);
        return file.bytesWritten;
      } catch (error) {
        await rm(partial, { force: true }).catch(() => {});
        throw storeFailure(data, error, fileFailed);
      }
    },
    async get(key) {
      let handle;
      try {
        handle = await open(path(key));
        const { size } = await handle.stat();
        if (size > SMALL) return { stream: handle.createReadStream(), size };
        // A small blob is read in one call: cheaper than a file stream's reads and close.
        const data = await handle.readFile();
        await handle.close();
        return { stream: Readable.from([data]), size: data.length };
      } catch (error) {
        await handle?.close();
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw serviceUnavailable(error);
      }
    },
    async delete(key) {
      try {
        await rm(path(key), { force: true });
      } catch (error) {
        throw serviceUnavailable(error);
      }
    },
    async *list() {
      let names: string[];
      try {
        names = await readdir(root, { recursive: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw serviceUnavailable(error);
      }
      for (const name of names) {
        const key = name.split(sep).join('/');
        // Directories and blobs still being written (`.part`) are not blobs.
        if (!KEY.test(key)) continue;
        const stats = await stat(join(root, name)).catch(() => undefined);
        if (stats?.isFile()) yield { key, storedAt: stats.mtime };
      }
    },
    async ping() {
      await mkdir(root, { recursive: true });
      await access(root, constants.W_OK);
    },
  };
}
