// `npm run bench`: builds a dataset through the bulk path, starts Tycho and the bare-Fastify ceiling on
// loopback, drives both with autocannon and prints one row per scenario (req/s, p50, p99, ratio to the
// ceiling, Tycho's peak RSS). `--smoke` runs a tiny version in seconds (part of npm test).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { openSqlite } from '../src/store/sqlite/open.ts';
import { ensureOrganization } from '../src/domain/organizations.ts';
import { ensureApiKey } from '../src/domain/api-keys.ts';
import { buildDataset, personEmail, personName } from './dataset.ts';

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    smoke: { type: 'boolean', default: false },
  },
});
const smoke = args.smoke === true;
const size = smoke ? 300 : Number(args.size);
const duration = smoke ? 1 : Number(args.duration);
const connections = Number(args.connections);
const KEY = 'tycho_bench_key_0123456789';
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
  headers?: Record<string, string>;
}

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  ratio: number;
  rss: number;
}

async function drive(url: string, scenario: Scenario, headers: Record<string, string>): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    duration,
    requests: [
      {
        method: scenario.method,
        setupRequest: (request) => ({
          ...request,
          path: typeof scenario.path === 'function' ? scenario.path() : scenario.path,
          headers: { ...headers, ...scenario.headers },
          ...(scenario.body ? { body: JSON.stringify(scenario.body()) } : {}),
        }),
      },
    ],
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tycho-bench-'));
  const database = join(dir, 'bench.sqlite');
  const store = await openSqlite(database);
  const { organization } = await ensureOrganization(store, 'default');
  await ensureApiKey(store, organization.id, KEY);
  const started = Date.now();
  const dataset = await buildDataset(store, organization.id, size, smoke);
  const buildSeconds = (Date.now() - started) / 1000;
  await store.close();

  const tycho = await start(['bin/tycho.mjs', 'serve'], { DATABASE_URL: database, PORT: '0', LOG_LEVEL: 'warn', TYCHO_API_KEY: KEY, RATE_LIMITS: 'off' }, /listening on (http:\/\/\S+?) /);
  const ceiling = await start(['--import', 'tsx', 'bench/ceiling.ts'], {}, /ceiling listening on (http:\/\/\S+)/);
  const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${tycho.url}${path}`, { ...init, headers: auth });
    return { status: res.status, text: await res.text() };
  };

  try {
    const first = JSON.parse((await api('/v0/collections/people/items?limit=1')).text);
    const itemId = first.data[0].id as string;
    // Walk to a deep page with the largest pages, then ask for 20 there.
    // Page 5,000 of 20 (item 100,000) on the scale run; near the end on smaller datasets.
    const deepTarget = Math.min(Math.floor(size * 0.9), 100_000);
    let cursor = '';
    for (let seen = 0; seen + 100 <= deepTarget; seen += 100) {
      cursor = JSON.parse((await api(`/v0/collections/people/items?limit=100${cursor && `&after=${cursor}`}`)).text).meta.cursors.next;
    }
    let counter = 0;
    const pick = () => Math.floor(Math.random() * size);
    const scenarios: Scenario[] = [
      { name: 'retrieve one item', method: 'GET', path: `/v0/collections/people/items/${itemId}` },
      { name: 'list 20, page 1', method: 'GET', path: '/v0/collections/people/items?limit=20' },
      { name: `list 20, deep page (item ${deepTarget})`, method: 'GET', path: `/v0/collections/people/items?limit=20&after=${cursor}` },
      {
        name: 'search starts_with (name)',
        method: 'POST',
        path: '/v0/collections/people/items/search?limit=20',
        body: () => ({ filter: { op: 'starts_with', field: 'name', value: personName(pick()).slice(0, -1) } }),
      },
      {
        name: 'search eq (email)',
        method: 'POST',
        path: '/v0/collections/people/items/search?limit=20',
        body: () => ({ filter: { op: 'eq', field: 'email', value: personEmail(pick()) } }),
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
        name: 'create item',
        method: 'POST',
        path: '/v0/collections/people/items',
        body: () => ({ values: { name: { type: 'value/text/single_line', data: `Created ${counter++}` } } }),
      },
    ];

    const rows: Row[] = [];
    for (const scenario of scenarios) {
      const sample = await api(typeof scenario.path === 'function' ? scenario.path() : scenario.path, {
        method: scenario.method,
        ...(scenario.body ? { body: JSON.stringify(scenario.body()) } : {}),
      });
      if (sample.status >= 300) throw new Error(`${scenario.name}: ${sample.status} ${sample.text}`);
      const result = await drive(tycho.url, scenario, auth);
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${scenario.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      const ceilingResult = await drive(ceiling.url, { name: 'ceiling', method: 'GET', path: `/bytes/${Buffer.byteLength(sample.text)}` }, {});
      rows.push({
        name: scenario.name,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        ratio: result.requests.average / ceilingResult.requests.average,
        rss: peakRss(tycho.child.pid!),
      });
    }

    const pad = (s: string, n: number) => s.padEnd(n);
    console.log(`\nTycho benchmark — SQLite, one process, ${size.toLocaleString('en')} items (built in ${buildSeconds.toFixed(1)} s), ${connections} connections, ${duration} s per scenario`);
    console.log(`${pad('scenario', 40)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'ceiling'.padStart(8)} ${'RSS MB'.padStart(7)}`);
    for (const r of rows) {
      console.log(
        `${pad(r.name, 40)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} ${(r.ratio * 100).toFixed(0).padStart(7)}% ${r.rss.toFixed(0).padStart(7)}`,
      );
    }
    const page1 = rows.find((r) => r.name.startsWith('list 20, page 1'))!;
    const deep = rows.find((r) => r.name.startsWith('list 20, deep page'))!;
    console.log(`deep page / page 1: ${(deep.p50 / page1.p50).toFixed(2)}× p50, ${(page1.rps / deep.rps).toFixed(2)}× cost in req/s`);
  } finally {
    tycho.child.kill('SIGTERM');
    ceiling.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
