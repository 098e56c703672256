// Inboxes through HTTP (reference §5.6): the read-only inbox API (list, retrieve, 404s, organization
// isolation), the `tagsets` each inbox offers (exactly the tagsets whose associations name it, kept current as
// tagsets change; whole with include[]=tagsets), and `tycho inboxes create`, the only way to make one, seen
// through the API.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertBareNotFound, ENGINES, TEST_KEY, createHarness, errorOf, throwawayPostgres, type EngineName, type Harness, type Response } from '../helpers/harness.ts';
import { walkForward } from '../helpers/items.ts';
import { tycho } from '../helpers/tycho-cli.ts';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createApiKey } from '../../src/domain/api-keys.ts';
import { createInbox } from '../../src/domain/inboxes.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { openRuntime } from '../../src/runtime.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ID = /^[1-9A-HJ-NP-Za-km-z]{22}$/;


async function makeTagset(h: Harness, body: Record<string, unknown>): Promise<any> {
  const res = await h.post('/v0/tagsets', body);
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const pointers = (ids: string[]) => ids.map((id) => ({ id, type: 'tagset' }));

const lastLine = (text: string) => text.split('\n').filter((l) => l.trim() !== '').at(-1) ?? '';

/** A database the CLI and an in-process app share: a SQLite file in a temp dir, or a throwaway PostgreSQL one. */
async function sharedDatabase(engine: EngineName): Promise<{ url: string; env: Record<string, string>; drop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tycho-inboxes-'));
  const removeDir = async () => rmSync(dir, { recursive: true, force: true });
  // The CLI keeps its data directory (blobs) in the temp dir too, never in the working tree.
  const env = (url: string) => ({ DATABASE_URL: url, TYCHO_DATA_DIR: dir });
  if (engine === 'postgres') {
    const database = await throwawayPostgres();
    return { url: database.url, env: env(database.url), drop: async () => (await database.drop(), await removeDir()) };
  }
  const url = join(dir, 'tycho.db');
  return { url, env: env(url), drop: removeDir };
}

/** Opens the database as the server would, with the test key, and answers requests in-process. */
async function openApp(url: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tycho-inboxes-data-'));
  const runtime = await openRuntime(loadConfig({ DATABASE_URL: url, TYCHO_API_KEY: TEST_KEY, LOG_LEVEL: 'silent', TYCHO_DATA_DIR: dataDir }));
  const app = await buildApp({
    store: runtime.store,
    cursorSecret: runtime.cursorSecret,
    downloadSecret: runtime.downloadSecret,
    blobs: runtime.blobs,
    logLevel: 'silent',
  });
  await app.ready();
  const get = async (path: string, key = TEST_KEY) => {
    const res = await app.inject({ url: path, headers: { authorization: `Bearer ${key}` } });
    return { status: res.statusCode, headers: res.headers, body: res.body === '' ? undefined : JSON.parse(res.body), text: res.body } as Response;
  };
  return {
    runtime,
    get,
    async close() {
      await app.close();
      await runtime.store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

for (const engine of ENGINES) {
  describe(`inboxes: list, retrieve, tagsets, isolation (${engine})`, () => {
    let h: Harness;
    let support: any;
    let sales: any;
    before(async () => {
      h = await createHarness(engine);
      support = await createInbox(h.store, h.orgId, { name: ' Support ', email: 'Support@Example.com' });
      sales = await createInbox(h.store, h.orgId, { name: 'Sales', email: 'sales@example.com' });
    });
    after(() => h.close());

    it('lists inboxes in a list envelope with the inbox shape, in creation order', async () => {
      const res = await h.get('/v0/inboxes');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.type, 'list');
      assert.deepEqual(res.body.meta, { cursors: {} });
      assert.deepEqual(res.body.data.map((i: any) => i.id), [support.id, sales.id]);
      const [first] = res.body.data;
      assert.match(first.id, ID);
      assert.equal(first.type, 'inbox');
      assert.equal(first.name, 'Support');
      assert.equal(first.can_read, true);
      assert.match(first.created_at, ISO_MS);
      assert.match(first.updated_at, ISO_MS);
      assert.ok(Array.isArray(first.tagsets));
      assert.deepEqual(Object.keys(first).sort(), ['can_read', 'created_at', 'id', 'name', 'tagsets', 'type', 'updated_at']);
    });

    it('pages with limit=1 through next', async () => {
      const pages = await walkForward((query) => h.get(`/v0/inboxes?limit=1${query ? `&${query}` : ''}`));
      assert.deepEqual(pages.map((p) => p.data.map((i: any) => i.id)), [[support.id], [sales.id]]);
    });

    it('retrieves one inbox by id, the same object the list shows', async () => {
      const res = await h.get(`/v0/inboxes/${sales.id}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, sales.id);
      assert.equal(res.body.name, 'Sales');
      const listed = (await h.get('/v0/inboxes')).body.data.find((i: any) => i.id === sales.id);
      assert.deepEqual(res.body, listed);
    });

    it('tagsets lists exactly the tagsets whose associations name the inbox, and follows their changes', async () => {
      const tagsetsOf = async (id: string) => {
        const one = await h.get(`/v0/inboxes/${id}`);
        assert.equal(one.status, 200, one.text);
        const listed = (await h.get('/v0/inboxes')).body.data.find((i: any) => i.id === id);
        assert.deepEqual(listed.tagsets, one.body.tagsets, 'list and retrieve agree');
        return one.body.tagsets;
      };
      assert.deepEqual(await tagsetsOf(support.id), []);

      const both = await makeTagset(h, { name: 'Both', associations: [{ type: 'inbox', id: support.id }, { type: 'calls' }, { type: 'inbox', id: sales.id }] });
      await makeTagset(h, { name: 'Calls only', associations: [{ type: 'calls' }, { type: 'meetings' }] });
      await makeTagset(h, { name: 'Unassociated' });
      const supportOnly = await makeTagset(h, { name: 'Support only', associations: [{ type: 'inbox', id: support.id }] });
      assert.deepEqual(await tagsetsOf(support.id), pointers([both.id, supportOnly.id]));
      assert.deepEqual(await tagsetsOf(sales.id), pointers([both.id]));

      // Moving a tagset from one inbox to the other.
      const moved = await h.patch(`/v0/tagsets/${supportOnly.id}`, { associations: [{ type: 'inbox', id: sales.id }] });
      assert.equal(moved.status, 200, moved.text);
      assert.deepEqual(await tagsetsOf(support.id), pointers([both.id]));
      assert.deepEqual(await tagsetsOf(sales.id), pointers([both.id, supportOnly.id]));

      // Dropping the inbox association, and deleting a tagset.
      assert.equal((await h.patch(`/v0/tagsets/${both.id}`, { associations: [{ type: 'calls' }] })).status, 200);
      assert.deepEqual(await tagsetsOf(support.id), []);
      assert.equal((await h.delete(`/v0/tagsets/${supportOnly.id}`)).status, 204);
      assert.deepEqual(await tagsetsOf(sales.id), []);
    });

    it('bug: include[]=tagsets on /inboxes was ignored — it shows the tagsets whole (list and retrieve); the older include[]=tagset too, adding the first as `tagset`', async () => {
      const tagset = await makeTagset(h, { name: 'Triage', tags: [{ name: 'Urgent', color: 'red' }], associations: [{ type: 'inbox', id: sales.id }] });
      try {
        for (const include of ['include[]=tagsets', 'include[]=tagset', 'include=tagset']) {
          const one = await h.get(`/v0/inboxes/${sales.id}?${include}`);
          assert.equal(one.status, 200, one.text);
          assert.deepEqual(one.body.tagsets, [tagset], include);
          const listed = await h.get(`/v0/inboxes?${include}`);
          assert.equal(listed.status, 200, listed.text);
          assert.deepEqual(listed.body.data.find((i: any) => i.id === sales.id).tagsets, [tagset], include);
          assert.deepEqual(listed.body.data.find((i: any) => i.id === support.id).tagsets, [], include);
          // The older SDKs (Python, Go) read the one tagset they ask for from `tagset`; the newer spelling gets none.
          const older = include !== 'include[]=tagsets';
          assert.deepEqual(one.body.tagset, older ? tagset : undefined, include);
          assert.deepEqual(listed.body.data.find((i: any) => i.id === sales.id).tagset, older ? tagset : undefined, include);
          assert.equal(listed.body.data.find((i: any) => i.id === support.id).tagset, older ? null : undefined, include);
        }
        // Without include[], pointers.
        assert.deepEqual((await h.get(`/v0/inboxes/${sales.id}`)).body.tagsets, pointers([tagset.id]));
        for (const url of [`/v0/inboxes/${sales.id}?include[]=tags`, '/v0/inboxes?include[]=tagsets&include[]=members']) {
          const bad = await h.get(url);
          assert.equal(bad.status, 400, bad.text);
          assert.equal(errorOf(bad).source?.parameter, 'include[]');
          assert.match(errorOf(bad).detail!, /tagsets/);
        }
      } finally {
        assert.equal((await h.delete(`/v0/tagsets/${tagset.id}`)).status, 204);
      }
    });

    it('the API has no call that creates, updates or deletes an inbox', async () => {
      for (const [method, url] of [
        ['POST', '/v0/inboxes'],
        ['PATCH', `/v0/inboxes/${support.id}`],
        ['DELETE', `/v0/inboxes/${support.id}`],
      ] as const) {
        const res = await h.request(method, url, { body: { name: 'x', email: 'x@example.com' } });
        assert.ok(res.status === 404 || res.status === 405, `${method} ${url} → ${res.status}`);
      }
      assert.equal((await h.get(`/v0/inboxes/${support.id}`)).body.name, 'Support');
    });
  });

  describe(`tycho inboxes create (${engine})`, () => {
    let db: Awaited<ReturnType<typeof sharedDatabase>>;
    before(async () => {
      db = await sharedDatabase(engine);
    });
    after(() => db.drop());

    it('creates an inbox (its id the last stdout line) that the API then lists and retrieves', async () => {
      const run = await tycho(['inboxes', 'create', '--name', 'Support', '--email', 'support@example.com'], db.env);
      assert.equal(run.code, 0, run.stderr);
      const id = lastLine(run.stdout);
      assert.match(id, ID, run.stdout);

      const app = await openApp(db.url);
      try {
        const one = await app.get(`/v0/inboxes/${id}`);
        assert.equal(one.status, 200, one.text);
        assert.equal(one.body.type, 'inbox');
        assert.equal(one.body.name, 'Support');
        assert.deepEqual(one.body.tagsets, []);
        assert.equal(one.body.can_read, true);
        const list = await app.get('/v0/inboxes');
        assert.deepEqual(list.body.data.map((i: any) => i.id), [id]);
      } finally {
        await app.close();
      }
    });

    it('--org puts the inbox in that organization only', async () => {
      // inboxes create never creates an organization: a mistyped --org must not make one.
      const setup = await openApp(db.url);
      try {
        await ensureOrganization(setup.runtime.store, 'acme');
      } finally {
        await setup.close();
      }
      const run = await tycho(['inboxes', 'create', '--name', 'Acme desk', '--email', 'desk@acme.example', '--org', 'acme'], db.env);
      assert.equal(run.code, 0, run.stderr);
      const id = lastLine(run.stdout);
      assert.match(id, ID, run.stdout);

      const app = await openApp(db.url);
      try {
        const { organization } = await ensureOrganization(app.runtime.store, 'acme');
        const { token } = await createApiKey(app.runtime.store, organization.id);
        const theirs = await app.get(`/v0/inboxes/${id}`, token);
        assert.equal(theirs.status, 200, theirs.text);
        assert.equal(theirs.body.name, 'Acme desk');
        assertBareNotFound(await app.get(`/v0/inboxes/${id}`));
        assert.equal((await app.get('/v0/inboxes')).body.data.some((i: any) => i.id === id), false);
      } finally {
        await app.close();
      }
    });

    it('without --email (or --name) → exit 2 with the usage, and no inbox', async () => {
      for (const args of [['--name', 'Lonely'], ['--email', 'lonely@example.com']]) {
        const run = await tycho(['inboxes', 'create', ...args], db.env);
        assert.equal(run.code, 2, `${args.join(' ')}: ${run.stdout} ${run.stderr}`);
        assert.match(run.stderr, /--name and --email/);
        assert.match(run.stderr, /Usage: tycho/);
        assert.match(run.stderr, /inboxes create --name NAME --email ADDRESS/);
        assert.equal(run.stdout, '');
      }
      const app = await openApp(db.url);
      try {
        assert.equal((await app.get('/v0/inboxes')).body.data.some((i: any) => i.name === 'Lonely'), false);
      } finally {
        await app.close();
      }
    });

    it('an address that is not an email → exit 1 with the reason', async () => {
      const run = await tycho(['inboxes', 'create', '--name', 'Bad', '--email', 'not-an-address'], db.env);
      assert.equal(run.code, 1, run.stdout);
      assert.match(run.stderr, /not an email address/);
    });
  });
}
