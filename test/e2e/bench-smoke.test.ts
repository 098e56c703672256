// The benchmark in smoke mode (tiny dataset, a second per scenario), so the bench code cannot rot.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

describe('bench smoke', () => {
  it('builds a dataset, drives every scenario against Tycho and both ceilings, and prints the table', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke', '--connections', '2'], {
      cwd: new URL('../..', import.meta.url).pathname,
      timeout: 180_000,
    });
    assert.match(stdout, /Tycho benchmark — SQLite/);
    for (const scenario of ['retrieve one item', 'list 20, page 1', 'deep page', 'search starts_with', 'search eq', 'upsert, update path', 'upsert, create path', 'activity feed of one item', 'create item', 'calls upsert', 'global search']) {
      // Ratios to the static ceiling and to the minimal real server.
      assert.match(stdout, new RegExp(`${scenario}.*\\d+%\\s+\\d+%`), scenario);
    }
  });
});
