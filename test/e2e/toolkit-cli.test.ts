// The toolkit's operator commands as real processes (issue 16): keys create --admin, snapshots save / list /
// restore / delete, sandboxes create (cloned from a snapshot) / list / delete, and reset — each checked
// against the database afterwards.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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

  it('seed --demo makes consistent CRM data, the same for the same seed', async () => {
    await run('keys', 'create', '--org', 'demo-a', '--create-org');
    await run('keys', 'create', '--org', 'demo-b', '--create-org');
    const summary = await run('seed', '--demo', '--org', 'demo-a', '--size', '20', '--seed', '3');
    assert.match(summary.at(-1)!, /4 companies, 20 people, 7 deals, 7 tasks, 10 notes, 1 tagset, an inbox with 2 conversations/);
    await run('seed', '--demo', '--org', 'demo-b', '--size', '20', '--seed', '3');
    const read = (org: string) =>
      withStore(async (store) => {
        const { id } = (await store.organizations.findByName(org))!;
        const people = await store.loadSchema(id, 'people');
        const companies = await store.loadSchema(id, 'organizations');
        const deals = await store.loadSchema(id, 'deals');
        const field = (parts: typeof people, ref: string) => parts!.fields.find((f) => f.ref === ref)!.id;
        const rows = JSON.parse((await store.orgState.read(id)).tables.items!.json) as { id: string; collection_id: string; doc: string }[];
        const all = async (collection: string) => rows.filter((r) => r.collection_id === collection).map((r) => ({ id: r.id, values: JSON.parse(r.doc) as Record<string, unknown[]> }));
        const companyDomain = new Map((await all(companies!.collection.id)).map((c) => [c.id, c.values[field(companies, 'domain')]![0] as string]));
        const persons = (await all(people!.collection.id)).map((p) => ({
          name: p.values[field(people, 'name')]![0] as string,
          email: p.values[field(people, 'email')]![0] as string,
          company: (p.values[field(people, 'company')]![0] as { id: string }).id,
        }));
        const stages = (await all(deals!.collection.id)).map((d) => (d.values[field(deals, 'stage')]![0] as { id: string }).id);
        return { persons, companyDomain, stages };
      });
    const a = await read('demo-a');
    const b = await read('demo-b');
    assert.equal(a.persons.length, 20);
    assert.deepEqual(a.persons.map((p) => p.name), b.persons.map((p) => p.name), 'same seed, same people');
    for (const person of a.persons) assert.ok(person.email.endsWith(`@${a.companyDomain.get(person.company)}`), `${person.email} works at ${a.companyDomain.get(person.company)}`);
    assert.equal(a.stages.length, 7);
    assert.ok(a.stages.every((s) => typeof s === 'string'));
  });

  it('npm start on a new database offers the demo data in its first output', async () => {
    const child = spawn(process.execPath, ['bin/tycho.mjs', 'serve'], {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      env: { ...process.env, PORT: '0', DATABASE_URL: join(dir, 'fresh.sqlite'), TYCHO_DATA_DIR: dir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (output.includes('seed --demo')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
    });
    child.kill('SIGTERM');
    assert.match(output, /run while it serves: npx tycho seed --demo/);
  });
});
