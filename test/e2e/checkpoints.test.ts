// `tycho serve` on a SQLite file checkpoints from a thread of its own (store/sqlite/checkpointer.ts): a few
// hundred WAL pages, far below what makes the API's own connection checkpoint, reach the database file while
// the server runs; SIGTERM stops the thread and leaves no WAL behind; the rows are all there after a restart.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, stopServer } from '../helpers/tycho-server.ts';
import { useTempDir } from '../helpers/temp-dir.ts';

const KEY = 'tycho_checkpoints_e2e_key_0123456789';

describe('background checkpoints of serve (SQLite file)', () => {
  const tempDir = useTempDir('tycho-checkpoints-');

  it('copies committed pages into the database file while serving, below the API connection’s own threshold', async () => {
    const dir = tempDir();
    const file = join(dir, 'tycho.sqlite');
    const env = { DATABASE_URL: file, TYCHO_API_KEY: KEY, TYCHO_DATA_DIR: dir };
    const server = await startServer(env);
    const post = (name: string) =>
      fetch(`${server.url}/v0/collections/people/items`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ values: { name: { type: 'value/text/single_line', data: name } } }),
      });
    try {
      // Whatever start-up wrote has been copied before we look.
      await sleep(500);
      const before = statSync(file).size;
      // A few hundred WAL frames (each create commits about ten): SQLite's own checkpoint would wait for 1,000.
      for (let i = 0; i < 30; i++) assert.equal((await post(`Person ${i}`)).status, 201);
      let size = statSync(file).size;
      for (const deadline = Date.now() + 5000; size <= before && Date.now() < deadline; size = statSync(file).size) await sleep(50);
      assert.ok(size > before, `the database file grew from ${before} bytes as the thread copied the WAL's pages (now ${size})`);
    } finally {
      assert.equal(await stopServer(server, 'SIGTERM'), 0);
    }
    assert.equal(existsSync(`${file}-wal`), false, 'a clean stop leaves no WAL');
    const again = await startServer(env);
    try {
      const res = await fetch(`${again.url}/v0/collections/people/items?limit=100`, { headers: { authorization: `Bearer ${KEY}` } });
      assert.equal(((await res.json()) as { data: unknown[] }).data.length, 30);
    } finally {
      assert.equal(await stopServer(again, 'SIGTERM'), 0);
    }
  });
});
