// A temporary directory for the tests of one `describe`: made before them, removed with its contents after.
import { after, before } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Registers the suite's hooks; call the answer (in a test or a later hook) for the directory's path. */
export function useTempDir(prefix: string): () => string {
  let dir: string | undefined;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!dir) throw new Error('the temporary directory is made in the suite’s before hook');
    return dir;
  };
}
