// PostgreSQL going away and coming back: requests answer 503 (with the seed's detail) while the database is
// unreachable, /readyz fails, and service resumes on its own when it returns — no restart.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { appOptions, openRuntime } from '../../src/runtime.ts';
import { TEST_KEY, throwawayPostgres } from '../helpers/harness.ts';

/** A TCP proxy in front of PostgreSQL that can be cut (closing every connection) and restored. */
function proxy(target: URL) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const open = () =>
    new Promise<number>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve(port);
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server!.close(() => resolve());
    });
  return { open, cut };
}

/** Tycho on `url` with a pool of `poolSize`, and a GET through the default key. */
async function serveOn(url: string, poolSize: number) {
  const config = loadConfig({ DATABASE_URL: url, TYCHO_API_KEY: TEST_KEY, DATABASE_POOL_SIZE: String(poolSize), LOG_LEVEL: 'silent' });
  const runtime = await openRuntime(config);
  const app = await buildApp(appOptions(runtime, config));
  await app.ready();
  return {
    app,
    get: (path: string) => app.inject({ url: path, headers: { authorization: `Bearer ${TEST_KEY}` } }),
    close: async () => {
      await app.close();
      await runtime.store.close();
    },
  };
}

describe('database outage (postgres)', { skip: !process.env.TEST_DATABASE_URL && 'TEST_DATABASE_URL is not set' }, () => {
  let database: Awaited<ReturnType<typeof throwawayPostgres>>;
  let tycho: Awaited<ReturnType<typeof serveOn>>;
  let link: ReturnType<typeof proxy>;
  const get = (url: string) => tycho.get(url);

  before(async () => {
    database = await throwawayPostgres();
    const target = new URL(database.url);
    link = proxy(target);
    const port = await link.open();
    const viaProxy = new URL(database.url);
    viaProxy.host = `127.0.0.1:${port}`;
    tycho = await serveOn(viaProxy.toString(), 2);
  });
  after(async () => {
    await tycho.close();
    await link.cut();
    await database.drop();
  });

  it('answers 503 with a retry-later detail while the database is unreachable, then recovers by itself', async () => {
    assert.equal((await get('/v0/collections')).statusCode, 200);
    await link.cut();
    const down = await get('/v0/collections');
    assert.equal(down.statusCode, 503);
    const error = JSON.parse(down.body).errors[0];
    assert.equal(error.title, 'Service Unavailable');
    assert.match(error.detail, /temporarily unavailable.*retry later/i);
    assert.equal((await tycho.app.inject({ url: '/readyz' })).statusCode, 503);
    assert.equal((await tycho.app.inject({ url: '/healthz' })).statusCode, 200);

    await link.open();
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      status = (await get('/v0/collections')).statusCode;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 200);
    assert.equal((await tycho.app.inject({ url: '/readyz' })).statusCode, 200);
  });
});

describe('a migration run by another process under running statements (postgres)', { skip: !process.env.TEST_DATABASE_URL && 'TEST_DATABASE_URL is not set' }, () => {
  let database: { url: string; drop(): Promise<void> };
  let tycho: Awaited<ReturnType<typeof serveOn>>;
  const get = (url: string) => tycho.get(url);
  const ddl = async (statement: string) => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(statement).finally(() => client.end());
  };

  before(async () => {
    database = await throwawayPostgres();
    tycho = await serveOn(database.url, 1);
  });
  after(async () => {
    await tycho.close();
    await database.drop();
  });

  it('answers the request that meets a statement the migration made stale with 503, and the next one normally', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await get('/v0/collections')).statusCode, 200);
    // A new column changes what `select *` returns: PostgreSQL refuses the statement prepared before it (the
    // collections list; the key itself is remembered by the process and not read again).
    await ddl('alter table collections add column note text');
    const stale = await get('/v0/collections');
    assert.equal(stale.statusCode, 503, stale.body);
    assert.match(JSON.parse(stale.body).errors[0].detail, /retry later/i);
    for (let i = 0; i < 3; i++) assert.equal((await get('/v0/collections')).statusCode, 200);
  });

  it('answers a request whose statement the operator cancels (pg_cancel_backend, statement_timeout) with 503, not 500', async () => {
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table collections in access exclusive mode');
      const waiting = get('/v0/collections');
      // The request's statement waits for the lock; cancel it as an operator would.
      let cancelled = false;
      for (let attempt = 0; attempt < 100 && !cancelled; attempt++) {
        const { rows } = await locker.query("select pg_cancel_backend(pid) as done from pg_stat_activity where wait_event_type = 'Lock' and pid <> pg_backend_pid() and datname = current_database()");
        cancelled = rows.some((r: { done: boolean }) => r.done);
        if (!cancelled) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(cancelled, 'the request reached the database and waited');
      const answer = await waiting;
      // Regression: "canceling statement due to user request" was an unhandled error (500).
      assert.equal(answer.statusCode, 503, answer.body);
      assert.match(JSON.parse(answer.body).errors[0].detail, /retry later/i);
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    assert.equal((await get('/v0/collections')).statusCode, 200);
  });
});
