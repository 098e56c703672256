// Two Tycho processes on one PostgreSQL database, raced against each other over real sockets.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, stopServer, type ServerProcess } from '../helpers/tycho-server.ts';
import pg from 'pg';
import { throwawayPostgres } from '../helpers/harness.ts';
import { sharedS3Server } from '../helpers/s3-server.ts';
import { loadConfig, type S3Location } from '../../src/config.ts';
import { s3BlobStore } from '../../src/store/s3-blob-store.ts';
import { valueLock } from '../../src/domain/locks.ts';
import type { Field } from '../../src/domain/fields.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createApiKey, revokeApiKey } from '../../src/domain/api-keys.ts';

const KEY = 'tycho_scale_out_key_0123456789';

/** A `tycho serve` on the database (and `env`); `output()` is what it has printed so far. */
const startServerOn = (databaseUrl: string, env: Record<string, string> = {}) => startServer({ DATABASE_URL: databaseUrl, TYCHO_API_KEY: KEY, ...env });
const stopServers = (servers: ServerProcess[]) => Promise.all(servers.map((s) => stopServer(s)));

describe('scale-out: two processes, one PostgreSQL database', { skip: !process.env.TEST_DATABASE_URL && 'TEST_DATABASE_URL is not set' }, () => {
  let database: Awaited<ReturnType<typeof throwawayPostgres>>;
  let servers: ServerProcess[] = [];
  const call = async (server: number, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${servers[server]!.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as any };
  };
  const email = (data: string) => ({ type: 'value/email', data });

  before(async () => {
    database = await throwawayPostgres();
    // The first start migrates and seeds; the second joins the same database.
    servers = [await startServerOn(database.url)];
    servers.push(await startServerOn(database.url));
  });
  after(async () => {
    await stopServers(servers);
    await database.drop();
  });

  it('without TYCHO_BLOB_URL each process warns that uploaded files stay on its machine', async () => {
    for (const server of servers) {
      await waitFor(() => server.output().includes('TYCHO_BLOB_URL'));
      assert.match(server.output(), /warning: uploaded files are kept on this machine .*other Tycho processes on the same PostgreSQL database cannot serve them/s);
    }
  });

  it('racing upserts of one new identifier through both processes create exactly one item', async () => {
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call(i % 2, 'POST', '/v0/collections/people/items/upsert', {
          identifiers: { email: email('race@example.com') },
          values: { name: { type: 'value/text/single_line', data: `Racer ${i}` } },
        }),
      ),
    );
    assert.deepEqual(responses.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const found = await call(0, 'POST', '/v0/collections/people/items/search', { filter: { op: 'eq', field: 'email', value: 'race@example.com' } });
    assert.equal(found.body.data.length, 1);
  });

  it('a unique field holds across processes', async () => {
    const field = await call(0, 'POST', '/v0/collections/organizations/fields', { type: 'field/identifier', name: 'Registry number', unique: true });
    assert.equal(field.status, 201);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(i % 2, 'POST', '/v0/collections/organizations/items', { values: { registry_number: { type: 'value/identifier', data: 'HRB-1' } } }),
      ),
    );
    assert.deepEqual(responses.map((r) => r.status).sort(), [201, 422, 422, 422, 422, 422, 422, 422, 422, 422]);
  });

  it('eight upserts per process on disjoint identifiers of one organization run side by side', async () => {
    // Deterministic, no timing: this test's own connection holds the identifier locks of one writer per
    // process, so those two stay inside their write transactions; the other fourteen must still commit.
    const field = await call(0, 'GET', '/v0/collections/people/fields/email');
    const emailField = { id: field.body.id, type: 'field/email' } as Field;
    const address = (i: number) => `parallel-${i}@example.com`;
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      for (const i of [0, 1]) await holder.query('select pg_advisory_lock(hashtextextended($1, 0))', [valueLock(emailField, address(i))]);
      const settled = new Set<number>();
      const writes = Array.from({ length: 16 }, (_, i) =>
        call(i % 2, 'POST', '/v0/collections/people/items/upsert', {
          identifiers: { email: email(address(i)) },
          values: { name: { type: 'value/text/single_line', data: `Parallel ${i}` } },
        }).then((r) => (settled.add(i), r)),
      );
      const others = await Promise.all(writes.slice(2));
      assert.deepEqual(others.map((r) => r.status), Array(14).fill(201));
      // The two held writers are inside their transactions, each holding the organization's schema lock
      // (shared) and waiting for its identifier: writes of one organization hold locks at the same time.
      let waiting: { pid: number }[] = [];
      for (let tries = 0; tries < 200 && waiting.length < 2; tries++) {
        waiting = (await holder.query("select pid from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())")).rows;
        if (waiting.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(waiting.length, 2);
      const sharing = await holder.query(
        "select count(distinct pid)::int as n from pg_locks where locktype = 'advisory' and granted and mode = 'ShareLock' and pid = any($1::int[])",
        [waiting.map((w) => w.pid)],
      );
      assert.equal(sharing.rows[0].n, 2);
      assert.equal(settled.has(0) || settled.has(1), false);
      await holder.query('select pg_advisory_unlock_all()');
      const held = await Promise.all(writes.slice(0, 2));
      assert.deepEqual(held.map((r) => r.status), [201, 201]);
    } finally {
      await holder.end();
    }
    for (let i = 0; i < 16; i++) {
      const found = await call(i % 2, 'POST', '/v0/collections/people/items/search', { filter: { op: 'eq', field: 'email', value: address(i) } });
      assert.equal(found.body.data.length, 1, address(i));
    }
  });

  it('concurrent PATCHes of one item through both processes lose no update', async () => {
    const refs: string[] = [];
    for (let i = 0; i < 8; i++) {
      const field = await call(0, 'POST', '/v0/collections/deals/fields', { type: 'field/text/single_line', name: `Patched ${i}` });
      assert.equal(field.status, 201);
      refs.push(field.body.ref);
    }
    const item = await call(0, 'POST', '/v0/collections/deals/items', { values: {} });
    assert.equal(item.status, 201, JSON.stringify(item.body));
    const responses = await Promise.all(
      refs.map((ref, i) => call(i % 2, 'PATCH', `/v0/collections/deals/items/${item.body.id}`, { values: { [ref]: { type: 'value/text/single_line', data: `v${i}` } } })),
    );
    assert.deepEqual(responses.map((r) => r.status), Array(8).fill(200));
    const after = await call(1, 'GET', `/v0/collections/deals/items/${item.body.id}`);
    for (const [i, ref] of refs.entries()) assert.equal(after.body.values[ref]?.data ?? after.body.values[ref]?.[0]?.data, `v${i}`, ref);
  });

  it('racing note updates with one lock_version through both processes: exactly one wins', async () => {
    const note = await call(0, 'POST', '/v0/notes', { body: { markdown: '# Shared' } });
    assert.equal(note.status, 201);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call(i % 2, 'PATCH', `/v0/notes/${note.body.id}`, { body: { markdown: `# Edit ${i}` }, lock_version: 0 })),
    );
    assert.deepEqual(responses.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    assert.equal((await call(1, 'GET', `/v0/notes/${note.body.id}`)).body.lock_version, 1);
  });

  it('a cursor made by one process is valid on the other', async () => {
    for (let i = 0; i < 5; i++) await call(i % 2, 'POST', '/v0/collections', { name: `Shared ${i}` });
    const first = await call(0, 'GET', '/v0/collections?limit=3');
    const next = await call(1, 'GET', `/v0/collections?limit=3&after=${first.body.meta.cursors.next}`);
    assert.equal(next.status, 200);
    const again = await call(0, 'GET', `/v0/collections?limit=3&after=${first.body.meta.cursors.next}`);
    assert.deepEqual(next.body.data.map((c: any) => c.id), again.body.data.map((c: any) => c.id));
  });

  it('a field created through one process is used at once by the other (schema cache)', async () => {
    const created = await call(0, 'POST', '/v0/collections/deals/fields', { type: 'field/text/single_line', name: 'Region' });
    assert.equal(created.status, 201);
    const item = await call(1, 'POST', '/v0/collections/deals/items', { values: { region: { type: 'value/text/single_line', data: 'EMEA' } } });
    assert.equal(item.status, 201, JSON.stringify(item.body));
    const removed = await call(1, 'DELETE', `/v0/collections/deals/fields/${created.body.id}`);
    assert.equal(removed.status, 204);
    const refused = await call(0, 'POST', '/v0/collections/deals/items', { values: { region: { type: 'value/text/single_line', data: 'EMEA' } } });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.errors[0].source.pointer, '/values/region');
    // A field made required through one process: the other's next create without it is refused at its pointer,
    // though that process last wrote under the schema before (its write guards the schema it saw last).
    const required = await call(0, 'POST', '/v0/collections/deals/fields', { type: 'field/text/single_line', name: 'Owner code', required: true });
    assert.equal(required.status, 201);
    const missing = await call(1, 'POST', '/v0/collections/deals/items', { values: {} });
    assert.equal(missing.status, 422, JSON.stringify(missing.body));
    assert.equal(missing.body.errors[0].source.pointer, '/values/owner_code');
    assert.equal((await call(1, 'DELETE', `/v0/collections/deals/fields/${required.body.id}`)).status, 204);
  });

  it('an item read, listed and searched through one process shows at once a field the other added (no waiting for its notice)', async () => {
    const made = await call(0, 'POST', '/v0/collections/deals/items', { values: {} });
    assert.equal(made.status, 201);
    const id = made.body.id;
    const shown = async () => {
      const one = await call(0, 'GET', `/v0/collections/deals/items/${id}`);
      const list = await call(0, 'GET', '/v0/collections/deals/items?limit=100');
      const search = await call(0, 'POST', '/v0/collections/deals/items/search?limit=100', {});
      return [one.body, list.body.data.find((i: any) => i.id === id), search.body.data.find((r: any) => r.data.id === id)?.data].map((item: any) => item?.values?.priority);
    };
    // Process 0 has the schema loaded, and reads under it until the organization's schema tag moves.
    assert.deepEqual(await shown(), [undefined, undefined, undefined]);
    const field = await call(1, 'POST', '/v0/collections/deals/fields', { type: 'field/number/unitless_integer', name: 'Priority' });
    assert.equal(field.status, 201);
    const set = await call(1, 'PATCH', `/v0/collections/deals/items/${id}`, { values: { priority: { type: 'value/number/unitless_integer', data: 3 } } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const priority = { type: 'value/number/unitless_integer', data: 3 };
    assert.deepEqual(await shown(), [priority, priority, priority]);
    // A sort by a field the schema loaded last lacks is judged by the current schema; one no schema has is a 422 naming the parameter.
    const other = await call(1, 'POST', '/v0/collections/deals/fields', { type: 'field/number/unitless_integer', name: 'Rank' });
    assert.equal(other.status, 201);
    const sorted = await call(0, 'GET', '/v0/collections/deals/items?limit=100&sort[]=-rank');
    assert.equal(sorted.status, 200, JSON.stringify(sorted.body));
    assert.ok(sorted.body.data.some((i: any) => i.id === id));
    const refused = await call(0, 'GET', '/v0/collections/deals/items?sort[]=nowhere');
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.errors[0].source.parameter, 'sort[]');
    const refusedSearch = await call(0, 'POST', '/v0/collections/deals/items/search', { sort: ['nowhere'] });
    assert.equal(refusedSearch.status, 422, JSON.stringify(refusedSearch.body));
    assert.equal(refusedSearch.body.errors[0].source.pointer, '/sort/0');
  });

  it('a key revoked by another process is refused by both servers, though each had it cached', async () => {
    const store = await openStore({ engine: 'postgres', url: database.url, poolSize: 2 });
    try {
      const [org] = await store.organizations.list();
      const { key, token } = await createApiKey(store, org!.id, { name: 'revoked elsewhere' });
      const get = (server: number) => fetch(`${servers[server]!.url}/v0/collections`, { headers: { authorization: `Bearer ${token}` } });
      // A new key works at once (unknown keys are never remembered), and now both processes remember it.
      for (const server of [0, 1]) for (let i = 0; i < 3; i++) assert.equal((await get(server)).status, 200);
      await revokeApiKey(store, key.prefix);
      // Each process hears of the revocation as the commit's notice arrives: moments, not a cache lifetime.
      for (const server of [0, 1]) {
        const deadline = Date.now() + 5000;
        let status = (await get(server)).status;
        while (status !== 401 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          status = (await get(server)).status;
        }
        assert.equal(status, 401, `server ${server} still accepts the revoked key`);
      }
    } finally {
      await store.close();
    }
  });
});

/** Resolves once `ready()` holds (output of a child arrives in chunks). */
async function waitFor(ready: () => boolean): Promise<void> {
  for (let tries = 0; tries < 100 && !ready(); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('scale-out: two processes share uploads through an S3-compatible bucket', { skip: !process.env.TEST_DATABASE_URL && 'TEST_DATABASE_URL is not set' }, () => {
  let database: Awaited<ReturnType<typeof throwawayPostgres>>;
  let servers: ServerProcess[] = [];
  let bucket: Record<string, string>;
  const headers = { authorization: `Bearer ${KEY}` };

  before(async () => {
    database = await throwawayPostgres();
    bucket = await (await sharedS3Server()).bucketEnv();
    servers = [await startServerOn(database.url, bucket)];
    servers.push(await startServerOn(database.url, bucket));
  });
  after(async () => {
    await stopServers(servers);
    await database.drop();
  });

  it('a file uploaded through one process is downloaded and deleted through the other, bytes and all', async () => {
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256));
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), 'shared.bin');
    const uploaded = await fetch(`${servers[0]!.url}/v0/files`, { method: 'POST', headers, body: form });
    assert.equal(uploaded.status, 201, await uploaded.clone().text());
    const file = (await uploaded.json()) as { id: string; download_url: string };

    // The other process's view: the row, a fresh download URL, and the bytes.
    const seen = await fetch(`${servers[1]!.url}/v0/files/${file.id}`, { headers });
    const { download_url: url } = (await seen.json()) as { download_url: string };
    assert.ok(url.startsWith(servers[1]!.url), url);
    for (const link of [url, file.download_url]) {
      const got = await fetch(link);
      assert.equal(got.status, 200);
      assert.ok(Buffer.from(await got.arrayBuffer()).equals(bytes));
    }

    const objects = async () => {
      const keys: string[] = [];
      for await (const blob of s3BlobStore(loadConfig(bucket).blobs as S3Location).list()) keys.push(blob.key);
      return keys;
    };
    assert.equal((await objects()).length, 1);
    assert.equal((await fetch(`${servers[1]!.url}/v0/files/${file.id}`, { method: 'DELETE', headers })).status, 204);
    assert.deepEqual(await objects(), []);
    assert.equal((await fetch(file.download_url)).status, 404);
    assert.equal((await fetch(`${servers[0]!.url}/v0/files/${file.id}`, { headers })).status, 404);
    for (const server of servers) assert.doesNotMatch(server.output(), /uploaded files are kept on this machine/);
  });
});
