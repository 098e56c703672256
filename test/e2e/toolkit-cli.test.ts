// The toolkit's operator commands as real processes (issue 16): keys create --admin, snapshots save / list /
// restore / delete, sandboxes create (cloned from a snapshot) / list / delete, and reset — each checked
// against the database afterwards.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tycho } from '../helpers/tycho-cli.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/domain/ports/store.ts';

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('tycho toolkit commands (e2e)', { concurrency: false }, () => {
  let dir: string;
  let env: Record<string, string>;
  const run = async (...args: string[]) => {
    const result = await tycho(args, env);
    assert.equal(result.code, 0, `tycho ${args.join(' ')}: ${result.stderr}`);
    return lines(result.stdout);
  };
  const withStore = async <T>(fn: (store: Store) => Promise<T>): Promise<T> => {
    const store = await openStore({ engine: 'sqlite', path: env.DATABASE_URL! });
    try {
      return await fn(store);
    } finally {
      await store.close();
    }
  };
  const inboxNames = (org: string) =>
    withStore(async (store) => {
      const found = await store.organizations.findByName(org);
      return (await store.inboxes.list(found!.id, { limit: 100 })).rows.map((i) => i.name);
    });

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tycho-toolkit-cli-'));
    env = { DATABASE_URL: join(dir, 'toolkit.sqlite'), TYCHO_DATA_DIR: dir };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keys create --admin makes an admin key; keys list shows it', async () => {
    const out = await run('keys', 'create', '--admin', '--name', 'ops');
    assert.match(out.at(-2)!, /Created admin API key/);
    const listed = await run('keys', 'list');
    assert.ok(listed.some((l) => l.includes('ops') && l.includes('admin')), listed.join('\n'));
    const both = await tycho(['keys', 'create', '--admin', '--read-only'], env);
    assert.equal(both.code, 2);
  });

  it('snapshots save, sandboxes create --snapshot, reset and snapshots restore', async () => {
    await run('inboxes', 'create', '--name', 'Support', '--email', 'support@example.com');
    assert.match((await run('snapshots', 'save', 'base')).join('\n'), /Saved snapshot "base"/);
    assert.ok((await run('snapshots', 'list')).some((l) => l.startsWith('base ')));

    const created = await run('sandboxes', 'create', '--snapshot', 'base', '--name', 'sb1');
    assert.match(created.at(-1)!, /^tycho_/);
    assert.deepEqual(await inboxNames('sb1'), ['Support']);
    assert.ok((await run('sandboxes', 'list')).some((l) => l.includes('sb1')));

    await run('inboxes', 'create', '--name', 'Sales', '--email', 'sales@example.com');
    await run('reset');
    assert.deepEqual(await inboxNames('default'), []);
    await run('snapshots', 'restore', 'base');
    assert.deepEqual(await inboxNames('default'), ['Support']);
    // The clone was independent of all this.
    assert.deepEqual(await inboxNames('sb1'), ['Support']);
  });

  it('sandboxes delete removes the sandbox; an unknown snapshot exits 1 with one line', async () => {
    await run('sandboxes', 'delete', 'sb1');
    assert.ok(!(await run('sandboxes', 'list')).some((l) => l.includes('sb1')));
    const missing = await tycho(['snapshots', 'restore', 'nope'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^tycho: organization "default" has no snapshot named "nope"/);
    await run('snapshots', 'delete', 'base');
    assert.deepEqual(await run('snapshots', 'list'), ['NAME  ROWS  CREATED']);
  });
});
