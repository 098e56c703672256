// Two Tycho processes on one PostgreSQL database, raced against each other over real sockets.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { throwawayPostgres } from '../helpers/harness.ts';

const KEY = 'tycho_scale_out_key_0123456789';
const ROOT = new URL('../..', import.meta.url).pathname;

function startServer(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/tycho.mjs', 'serve'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'warn', TYCHO_API_KEY: KEY, RATE_LIMITS: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+?) /.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]! });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  });
}

describe('scale-out: two processes, one PostgreSQL database', { skip: !process.env.TEST_DATABASE_URL && 'TEST_DATABASE_URL is not set' }, () => {
  let database: Awaited<ReturnType<typeof throwawayPostgres>>;
  let servers: { child: ChildProcess; url: string }[] = [];
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
    servers = [await startServer(database.url)];
    servers.push(await startServer(database.url));
  });
  after(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => (s.child.once('exit', resolve), s.child.kill('SIGTERM')))));
    await database.drop();
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
  });
});
