// bin/tycho.mjs runs the build in dist/ only while it is newer than every source file: an edited, added or
// removed source makes it run the TypeScript sources until the next build.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
// @ts-expect-error: a plain JavaScript module of the command, without types
import { serverEntry } from '../../bin/server-entry.mjs';

const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);

describe('which server the tycho command runs', () => {
  it('the build while it is newer than every source, the sources otherwise', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tycho-entry-'));
    try {
      const root = pathToFileURL(`${dir}/`);
      const source = join(dir, 'src', 'domain', 'a.ts');
      mkdirSync(join(dir, 'src', 'domain'), { recursive: true });
      writeFileSync(join(dir, 'src', 'main.ts'), '');
      writeFileSync(source, '');
      for (const path of [join(dir, 'src'), join(dir, 'src', 'domain'), join(dir, 'src', 'main.ts'), source]) at(path, 1000);
      assert.deepEqual(serverEntry(root), { module: pathToFileURL(join(dir, 'src', 'main.ts')).href, typescript: true }, 'no build');

      mkdirSync(join(dir, 'dist'));
      writeFileSync(join(dir, 'dist', 'main.js'), '');
      at(join(dir, 'dist', 'main.js'), 2000);
      assert.deepEqual(serverEntry(root), { module: pathToFileURL(join(dir, 'dist', 'main.js')).href, typescript: false });

      at(source, 3000);
      assert.equal(serverEntry(root).typescript, true, 'a source edited after the build');
      at(source, 1000);
      writeFileSync(join(dir, 'src', 'domain', 'b.ts'), '');
      assert.equal(serverEntry(root).typescript, true, 'a source added after the build');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
