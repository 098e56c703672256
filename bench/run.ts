// `npm run bench`: builds a dataset through the bulk path, starts Tycho and two ceilings on loopback — the
// bare-Fastify static one (ceiling.ts) and, on SQLite, the minimal real server over the same database
// (db-ceiling.ts) — drives them with autocannon and prints one row per scenario (req/s, p50, p99, ratio to
// each ceiling, Tycho's peak RSS and CPU per request). `--smoke` runs a tiny version in seconds (part of npm test).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { openStore } from '../src/store/open-store.ts';
import { parseDatabaseUrl } from '../src/config.ts';
import { cpuByPid, cpuMs, cpuMsSince, postgresDatabase, postgresPids, serveArguments } from './measure.ts';
import { ensureOrganization } from '../src/domain/organizations.ts';
import { ensureApiKey } from '../src/domain/api-keys.ts';
import { buildDataset, personEmail, personName } from './dataset.ts';
import { startS3Server } from '../test/helpers/s3-server.ts';
import { saveSnapshot } from '../src/domain/snapshots.ts';
import { localBlobStore } from '../src/store/blob-store.ts';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    smoke: { type: 'boolean', default: false },
    engine: { type: 'string', default: 'sqlite' },
    processes: { type: 'string', default: '1' },
    only: { type: 'string', default: '' },
    'cpu-prof': { type: 'string' },
    blobs: { type: 'string', default: 'local' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log('Usage: npm run bench -- [--size ITEMS] [--duration SECONDS] [--warmup SECONDS] [--connections N] [--engine sqlite|postgres] [--processes N] [--only WORD,WORD…] [--cpu-prof DIRECTORY] [--blobs local|s3] [--smoke]');
  process.exit(0);
}
/** `--blobs s3`: file contents in a bucket of an s3rver started here instead of on the local disk. */
const blobs = args.blobs === 's3' ? 's3' : 'local';
/** `--only upsert,search`: run the scenarios whose names contain one of these words. */
const only = args.only ? args.only.split(',').map((w) => w.trim()).filter(Boolean) : [];
const wanted = (scenario: string) => only.length === 0 || only.some((w) => scenario.includes(w));
const engine = args.engine === 'postgres' ? 'postgres' : 'sqlite';
const processes = Math.max(1, Number(args.processes));
const smoke = args.smoke === true;
const size = smoke ? 300 : Number(args.size);
const duration = smoke ? 1 : Number(args.duration);
/**
 * `--warmup SECONDS`: unmeasured load before each measured run, on Tycho and on the ceilings alike. A cold run
 * measures V8 compiling the handlers and, on PostgreSQL, each pooled connection preparing its statements.
 */
const warmup = smoke ? 0 : Number(args.warmup);
const connections = Number(args.connections);
const KEY = 'tycho_bench_key_0123456789';
/** Size of the file the upload and download scenarios move. */
const FILE_SIZE = 16 * 1024;
const ADMIN_KEY = 'tycho_bench_admin_key_0123456789';
/** The sandbox scenario clones a snapshot of an organization holding this many items. */
const SNAPSHOT_ITEMS = 1000;
const ROOT = new URL('..', import.meta.url).pathname;

function start(command: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, command, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve({ child, url: match[1]! });
    });
    child.once('exit', (code) => reject(new Error(`${command.join(' ')} exited with ${code}:\n${output}`)));
  });
}

function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string | (() => string);
  body?: () => unknown;
  /** A body sent as is (multipart uploads) instead of `body` as JSON. */
  raw?: { payload: Buffer; contentType: string };
  headers?: Record<string, string>;
  /** What the minimal real server does for this scenario; by default a list page (reads) or a row written (writes). */
  db?: Scenario;
}

/** The request body and content type of a scenario. */
function payloadOf(scenario: Scenario): { body?: string | Buffer; headers: Record<string, string> } {
  if (scenario.raw) return { body: scenario.raw.payload, headers: { 'content-type': scenario.raw.contentType } };
  return { ...(scenario.body ? { body: JSON.stringify(scenario.body()) } : {}), headers: { 'content-type': 'application/json' } };
}

/** A multipart upload of `size` bytes as the `file` part. */
function multipartUpload(size: number): Scenario['raw'] {
  const boundary = 'TychoBenchBoundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return {
    payload: Buffer.concat([Buffer.from(head), Buffer.alloc(size, 7), Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  ratio: number;
  /** Ratio to the minimal real server (SQLite only). */
  dbRatio: number | undefined;
  rss: number;
  /** Tycho's CPU time per request (all its processes), and the database server's (PostgreSQL only), in µs. */
  cpuUs: number;
  dbUs: number | undefined;
}

/**
 * The minimal real server's counterpart of a scenario: its own when it has one; otherwise a write stores
 * Tycho's answer as a row and sends it back, and a read is a list page of 20.
 */
function dbScenario(scenario: Scenario, answer: string): Scenario {
  if (scenario.db) return scenario.db;
  if (scenario.method === 'POST') return { name: 'db', method: 'POST', path: '/write', raw: { payload: Buffer.from(answer), contentType: 'application/json' } };
  return { name: 'db', method: 'GET', path: '/list?limit=20' };
}

/** Drives every URL at once, the connections split between them; req/s add up, latencies average. */
async function driveAll(urls: string[], scenario: Scenario, headers: Record<string, string>, seconds = duration) {
  const results = await Promise.all(urls.map((url) => drive(url, scenario, headers, Math.max(1, Math.round(connections / urls.length)), seconds)));
  return {
    rps: results.reduce((sum, r) => sum + r.requests.average, 0),
    requests: results.reduce((sum, r) => sum + r.requests.total, 0),
    p50: results.reduce((sum, r) => sum + r.latency.p50, 0) / results.length,
    p99: Math.max(...results.map((r) => r.latency.p99)),
    failures: results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
  };
}


/** A ceiling's run: `--warmup` seconds unmeasured, then `--duration` seconds measured. */
async function driveWarm(url: string, scenario: Scenario, connections: number): Promise<autocannon.Result> {
  if (warmup > 0) await drive(url, scenario, {}, connections, warmup);
  return drive(url, scenario, {}, connections);
}

function drive(url: string, scenario: Scenario, headers: Record<string, string>, connections: number, seconds = duration): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: scenario.method,
        setupRequest: (request) => {
          const { body, headers: typed } = payloadOf(scenario);
          return {
            ...request,
            path: typeof scenario.path === 'function' ? scenario.path() : scenario.path,
            headers: { ...headers, ...typed, ...scenario.headers },
            ...(body !== undefined ? { body } : {}),
          };
        },
      },
    ],
  });
}

/**
 * Sandboxes cloned from the 1,000-item snapshot and deleted again, one at a time through HTTP, beside the
 * dataset's organization: the time a test waits for its sandbox, and how long its deletion holds the database.
 */
async function timeSandboxes(url: string, rows: number): Promise<string> {
  const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
  const clones: number[] = [];
  const deletes: number[] = [];
  const runs = smoke ? 3 : 40;
  for (let i = 0; i < runs; i++) {
    let started = performance.now();
    const res = await fetch(`${url}/v0/tycho/admin/sandboxes`, { method: 'POST', headers, body: JSON.stringify({ snapshot: 'bench' }) });
    const body = (await res.json()) as { id: string };
    clones.push(performance.now() - started);
    if (res.status !== 201) throw new Error(`sandbox clone: ${res.status} ${JSON.stringify(body)}`);
    started = performance.now();
    const deleted = await fetch(`${url}/v0/tycho/admin/sandboxes/${body.id}`, { method: 'DELETE', headers: { authorization: headers.authorization } });
    await deleted.arrayBuffer();
    deletes.push(performance.now() - started);
    if (deleted.status >= 300) throw new Error(`sandbox delete: ${deleted.status}`);
  }
  const quantiles = (times: number[]) => {
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
    return `p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`;
  };
  return `sandbox of a ${SNAPSHOT_ITEMS.toLocaleString('en')}-item snapshot (${rows.toLocaleString('en')} rows), ${runs} one at a time: clone ${quantiles(clones)}; delete ${quantiles(deletes)}`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tycho-bench-'));
  const postgres = engine === 'postgres' ? await postgresDatabase(process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'bench') : undefined;
  const database = postgres?.url ?? join(dir, 'bench.sqlite');
  const store = await openStore(parseDatabaseUrl(database, process.cwd()));
  const { organization } = await ensureOrganization(store, 'default');
  await ensureApiKey(store, organization.id, KEY);
  const started = Date.now();
  await buildDataset(store, organization.id, size, smoke);
  const buildSeconds = (Date.now() - started) / 1000;
  // The sandbox scenario's source: its own organization, saved as a snapshot through the domain; its admin
  // key makes the sandboxes (an admin key clones only its own organization's snapshots).
  const { organization: source } = await ensureOrganization(store, 'snapshot-source');
  await ensureApiKey(store, source.id, ADMIN_KEY, undefined, true);
  await buildDataset(store, source.id, SNAPSHOT_ITEMS, true);
  const snapshot = await saveSnapshot(store, localBlobStore(join(dir, 'blobs')), source.id, 'bench');
  await store.close();

  const s3 = blobs === 's3' ? await startS3Server() : undefined;
  const bucket = s3 ? await s3.bucketEnv() : {};
  const env = { DATABASE_URL: database, PORT: '0', LOG_LEVEL: 'warn', TYCHO_API_KEY: KEY, RATE_LIMITS: 'off', TYCHO_DATA_DIR: dir, ...bucket };
  const servers = [];
  // `--cpu-prof DIR`: each Tycho process writes a V8 CPU profile there when it stops (open it in Chrome DevTools).
  const profile = args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${args['cpu-prof']}`] : [];
  const serve = serveArguments(smoke);
  for (let i = 0; i < processes; i++) servers.push(await start([...profile, ...serve], env, /listening on (http:\/\/\S+?) /));
  const tycho = servers[0]!;
  const ceiling = await start(['--import', 'tsx', 'bench/ceiling.ts'], {}, /ceiling listening on (http:\/\/\S+)/);
  const ceilings = [ceiling];
  const auth = { authorization: `Bearer ${KEY}` };
  const api = async (path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}) => {
    const body = typeof init.body === 'string' || init.body === undefined ? init.body : new Uint8Array(init.body);
    const res = await fetch(`${tycho.url}${path}`, { ...init, body, headers: { 'content-type': 'application/json', ...init.headers, ...auth } });
    return { status: res.status, text: await res.text() };
  };

  try {
    const first = JSON.parse((await api('/v0/collections/people/items?limit=1')).text);
    const itemId = first.data[0].id as string;
    const dbCeiling =
      engine === 'sqlite'
        ? await start(
            ['--import', 'tsx', 'bench/db-ceiling.ts'],
            {
              CEILING_DATABASE: database,
              CEILING_WRITE_DATABASE: join(dir, 'ceiling-writes.sqlite'),
              CEILING_ORG_ID: organization.id,
              CEILING_COLLECTION_ID: first.data[0].collection.id,
            },
            /db ceiling listening on (http:\/\/\S+)/,
          )
        : undefined;
    if (dbCeiling) ceilings.push(dbCeiling);
    // Items spread over the dataset, for per-item scenarios that should not all hit one row.
    const itemIds: string[] = [itemId];
    // Walk to a deep page with the largest pages, then ask for 20 there.
    // Page 5,000 of 20 (item 100,000) on the scale run; near the end on smaller datasets.
    const deepTarget = Math.min(Math.floor(size * 0.9), 100_000);
    const deepName = `list 20, deep page (item ${deepTarget})`;
    let cursor = '';
    // A thousand requests on the scale run: only when a scenario uses them (they would also fill a profile).
    const walk = wanted(deepName) || wanted('activity feed of one item');
    for (let seen = 0; walk && seen + 100 <= deepTarget; seen += 100) {
      const page = JSON.parse((await api(`/v0/collections/people/items?limit=100${cursor && `&after=${cursor}`}`)).text);
      cursor = page.meta.cursors.next;
      itemIds.push(page.data[0].id);
    }
    let counter = 0;
    const pick = () => Math.floor(Math.random() * size);
    // A published, API-triggered program: the serve loop sends its messages to the outbox while they are accepted.
    const program = JSON.parse((await api('/v0/tycho/programs', { method: 'POST', body: JSON.stringify({ status: 'published' }) })).text);
    const template = JSON.parse(
      (await api('/v0/tycho/program_templates', { method: 'POST', body: JSON.stringify({ program_id: program.id, subject: 'Hi {{ person.name }}', body: { markdown: 'Code {{ code }}' } }) })).text,
    );
    const upload = multipartUpload(FILE_SIZE)!;
    const stored = JSON.parse((await api('/v0/files', { method: 'POST', body: upload.payload, headers: { 'content-type': upload.contentType } })).text);
    const downloadPath = new URL(stored.download_url as string).pathname + new URL(stored.download_url as string).search;
    const allScenarios: Scenario[] = [
      { name: 'retrieve one item', method: 'GET', path: `/v0/collections/people/items/${itemId}`, db: { name: 'db', method: 'GET', path: `/item/${itemId}` } },
      // What an SDK reads to learn a collection's fields.
      { name: 'retrieve a collection with its fields', method: 'GET', path: '/v0/collections/people' },
      { name: 'list 20, page 1', method: 'GET', path: '/v0/collections/people/items?limit=20' },
      {
        name: deepName,
        method: 'GET',
        path: `/v0/collections/people/items?limit=20&after=${cursor}`,
        db: { name: 'db', method: 'GET', path: `/list?limit=20&after=${itemIds[itemIds.length - 1]}` },
      },
      { name: 'list 20 sorted by a field (-score)', method: 'GET', path: '/v0/collections/people/items?limit=20&sort[]=-score' },
      {
        name: 'search starts_with (name)',
        method: 'POST',
        path: '/v0/collections/people/items/search?limit=20',
        body: () => ({ filter: { op: 'starts_with', field: 'name', value: personName(pick()).slice(0, -1) } }),
        db: { name: 'db', method: 'POST', path: '/search', body: () => ({ filter: { op: 'starts_with', field: 'name', value: personName(pick()).slice(0, -1) } }) },
      },
      {
        name: 'search eq (email)',
        method: 'POST',
        path: '/v0/collections/people/items/search?limit=20',
        body: () => ({ filter: { op: 'eq', field: 'email', value: personEmail(pick()) } }),
        db: { name: 'db', method: 'POST', path: '/search', body: () => ({ filter: { op: 'eq', field: 'email', value: personEmail(pick()) } }) },
      },
      {
        name: 'search and(starts_with, eq choice)',
        method: 'POST',
        path: '/v0/collections/people/items/search?limit=20',
        body: () => ({
          filter: { op: 'and', filters: [{ op: 'starts_with', field: 'name', value: personName(pick()).slice(0, -2) }, { op: 'eq', field: 'tier', value: 'Gold' }] },
        }),
      },
      {
        name: 'upsert, update path',
        method: 'POST',
        path: '/v0/collections/people/items/upsert',
        body: () => ({
          identifiers: { email: { type: 'value/email', data: personEmail(pick()) } },
          values: { score: { type: 'value/number/unitless_integer', data: counter++ % 1000 } },
        }),
      },
      {
        name: 'upsert, create path',
        method: 'POST',
        path: '/v0/collections/people/items/upsert',
        body: () => ({
          identifiers: { email: { type: 'value/email', data: `new${counter++}@bench.example` } },
          values: { name: { type: 'value/text/single_line', data: `New ${counter}` } },
        }),
      },
      {
        name: 'activity feed of one item',
        method: 'GET',
        path: () => `/v0/activities?constituent_entity_type[eq]=item&constituent_entity_id[eq]=${itemIds[pick() % itemIds.length]}`,
      },
      {
        name: 'create item',
        method: 'POST',
        path: '/v0/collections/people/items',
        body: () => ({ values: { name: { type: 'value/text/single_line', data: `Created ${counter++}` } } }),
      },
      {
        // Half the upserts hit a call logged before (update path), half log a new one.
        name: 'calls upsert (half new, half existing)',
        method: 'POST',
        path: '/v0/calls/upsert',
        body: () => {
          const n = counter++;
          return {
            direction: 'outgoing',
            participants: [{ phone: `+1415555${String(n % 10_000).padStart(4, '0')}`, role: 'caller' }, { phone: '+14155550100', role: 'callee' }],
            provider: 'openphone',
            provider_id: `bench-call-${n % 2 === 0 ? n : n % 1000}`,
            provider_status: 'completed',
            start_at: '2025-02-17T15:01:00Z',
          };
        },
      },
      { name: 'global search (name prefix)', method: 'POST', path: () => `/v0/search?query=${encodeURIComponent(personName(pick()).slice(0, -1))}` },
      {
        // Recipients matched in People by email (existing people), sent by the serve loop meanwhile.
        name: 'program message (accept; sending runs)',
        method: 'POST',
        path: '/v0/program_messages',
        body: () => ({ person: { email: personEmail(pick()) }, program_template_id: template.id, custom_variables: { code: String(counter++) } }),
      },
      { name: `file upload (${FILE_SIZE / 1024} KiB, ${blobs} store)`, method: 'POST', path: '/v0/files', raw: upload },
      { name: `file download (${FILE_SIZE / 1024} KiB, ${blobs} store)`, method: 'GET', path: downloadPath },
    ];
    const scenarios = allScenarios.filter((s) => wanted(s.name));

    const pad = (s: string, n: number) => s.padEnd(n);
    const setup = `${engine === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${processes === 1 ? 'one process' : `${processes} processes`}`;
    console.log(`\nTycho benchmark — ${setup}, ${size.toLocaleString('en')} items (built in ${buildSeconds.toFixed(1)} s), ${connections} connections, ${duration} s per scenario after ${warmup} s unmeasured`);
    console.log('ceiling: share of the static ceiling (bare Fastify, precomputed body of the same size); real: share of the minimal real server (node:http + better-sqlite3, stored rows as they are)');
    console.log(`${pad('scenario', 40)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'ceiling'.padStart(8)} ${'real'.padStart(6)} ${'RSS MB'.padStart(7)} ${'CPU µs'.padStart(7)}${engine === 'postgres' ? ` ${'DB µs'.padStart(7)}` : ''}`);
    // Each row as its scenario finishes: a long run shows where it is, and a stopped one keeps what it measured.
    const printRow = (r: Row) => {
      const real = r.dbRatio === undefined ? '—' : `${(r.dbRatio * 100).toFixed(0)}%`;
      console.log(
        `${pad(r.name, 40)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} ${(r.ratio * 100).toFixed(0).padStart(7)}% ${real.padStart(6)} ${r.rss.toFixed(0).padStart(7)} ${r.cpuUs.toFixed(0).padStart(7)}${r.dbUs !== undefined ? ` ${r.dbUs.toFixed(0).padStart(7)}` : ''}`,
      );
    };
    const rows: Row[] = [];
    for (const scenario of scenarios) {
      const { body, headers } = payloadOf(scenario);
      const sample = await api(typeof scenario.path === 'function' ? scenario.path() : scenario.path, {
        method: scenario.method,
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      if (sample.status >= 300) throw new Error(`${scenario.name}: ${sample.status} ${sample.text}`);
      const urls = servers.map((s) => s.url);
      if (warmup > 0) await driveAll(urls, scenario, auth, warmup);
      const tychoPids = servers.map((s) => s.child.pid!);
      const dbPids = engine === 'postgres' ? postgresPids() : [];
      const cpuBefore = cpuMs(tychoPids);
      const dbBefore = cpuByPid(dbPids);
      const result = await driveAll(urls, scenario, auth);
      const cpuUs = ((cpuMs(tychoPids) - cpuBefore) * 1000) / result.requests;
      const dbUs = engine === 'postgres' ? (cpuMsSince(dbBefore, postgresPids()) * 1000) / result.requests : undefined;
      if (result.failures > 0) throw new Error(`${scenario.name}: ${result.failures} failed requests`);
      const ceilingResult = await driveWarm(ceiling.url, { name: 'ceiling', method: 'GET', path: `/bytes/${Buffer.byteLength(sample.text)}` }, connections);
      const dbResult = dbCeiling ? await driveWarm(dbCeiling.url, dbScenario(scenario, sample.text), connections) : undefined;
      if (dbResult && dbResult.non2xx + dbResult.errors > 0) throw new Error(`${scenario.name}: the minimal real server failed ${dbResult.non2xx + dbResult.errors} requests`);
      const row: Row = {
        name: scenario.name,
        rps: result.rps,
        p50: result.p50,
        p99: result.p99,
        ratio: result.rps / ceilingResult.requests.average,
        dbRatio: dbResult ? result.rps / dbResult.requests.average : undefined,
        rss: Math.max(...servers.map((s) => peakRss(s.child.pid!))),
        cpuUs,
        dbUs,
      };
      rows.push(row);
      printRow(row);
    }

    if (only.length === 0 || only.some((w) => 'sandbox'.includes(w))) console.log(await timeSandboxes(tycho.url, snapshot.rows));
    const page1 = rows.find((r) => r.name.startsWith('list 20, page 1'));
    const deep = rows.find((r) => r.name.startsWith('list 20, deep page'));
    if (page1 && deep) {
      // autocannon measures latency in whole milliseconds: below 1 ms only the req/s ratio says anything.
      const p50Ratio = page1.p50 > 0 ? `${(deep.p50 / page1.p50).toFixed(2)}× p50, ` : '';
      console.log(`deep page / page 1: ${p50Ratio}${(page1.rps / deep.rps).toFixed(2)}× cost in req/s`);
    }
  } finally {
    await Promise.all([...servers, ...ceilings].map((s) => new Promise((resolve) => (s.child.once('exit', resolve), s.child.kill('SIGTERM')))));
    await postgres?.drop();
    await s3?.stop();
    if (process.env.BENCH_KEEP) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

await main();
