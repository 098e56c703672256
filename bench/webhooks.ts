// `npm run bench:webhooks`: item creates through `tycho serve` with one webhook endpoint subscribed to
// activity/item_created on a loopback receiver, disabled and enabled; prints req/s and latency of both,
// Tycho's CPU time per create (its delivery work included: measured until every event has arrived; and its
// main thread's alone, the API's event loop) and the delivery lag (receipt time minus the event's occurred_at)
// at p50 / p99 / max, saturating, at half the rate reached without webhooks, and at a trickle of 10 creates
// per second. The saturating runs alternate: `--slices` pairs of duration/slices seconds, the endpoint disabled
// then enabled, so that the machine's drift over the minutes (other work on a shared host) and a database
// grown by the earlier runs weigh on both alike. They follow unmeasured creates of `--warmup` seconds (3 by
// default), so that both compare servers whose code is compiled (V8 optimises a function only after many
// calls; the delivery thread starts with none). `--database postgres://…`
// names a PostgreSQL server: the run gets a throw-away database of its own there; `--cpu-prof DIR` profiles the
// server.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { cpuByPid, cpuMs, cpuMsSince, mainThreadCpuMs, postgresDatabase, postgresPids, serveArguments } from './measure.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    slices: { type: 'string', default: '4' },
    connections: { type: 'string', default: '10' },
    database: { type: 'string', default: '' },
    rate: { type: 'string', default: '' },
    'cpu-prof': { type: 'string', default: '' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log('Usage: npm run bench:webhooks -- [--duration SECONDS] [--slices N] [--warmup SECONDS] [--connections N] [--database postgres://…] [--rate CREATES_PER_SECOND] [--cpu-prof DIRECTORY]');
  process.exit(0);
}
const duration = Number(args.duration);
const connections = Number(args.connections);
const KEY = 'tycho_bench_key_0123456789';
const ROOT = new URL('..', import.meta.url).pathname;
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

function start(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    // `--cpu-prof DIR`: the server writes a V8 CPU profile there when it stops (open it in Chrome's DevTools).
    const profile = args['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', args['cpu-prof']] : [];
    const child = spawn(process.execPath, [...profile, ...serveArguments()], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+?) /.exec(output);
      if (match) resolve({ child, url: match[1]! });
    });
    child.once('exit', (code) => reject(new Error(`tycho serve exited with ${code}:\n${output}`)));
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

const TRICKLE_RATE = 10;

const createBody = (label: string, n: number) => JSON.stringify({ values: { name: { type: 'value/text/single_line', data: `${label} ${n}` } } });

/** Item creates for `seconds`, as fast as `connections` allow. */
async function creates(url: string, label: string, seconds = duration) {
  let counter = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [{ method: 'POST', path: '/v0/collections/people/items', headers: auth, setupRequest: (req) => ({ ...req, body: createBody(label, counter++) }) }],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, created: result['2xx'], failed: result.non2xx + result.errors };
}

/**
 * Item creates for `duration` seconds at `rate` per second, evenly spaced (autocannon's `overallRate` sends
 * each second's quota in one burst at its start, which measures draining a burst rather than a steady load).
 * Sent through a pool of kept-alive connections with undici's `request`: `fetch` cost the client so much CPU
 * beside the server on two cores that its own delays reached the latencies it reported (p99 of seconds where
 * the server answered in milliseconds).
 */
async function pacedCreates(url: string, label: string, rate: number) {
  const pool = new Pool(url, { connections: 64 });
  const latencies: number[] = [];
  let failed = 0;
  const requests: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < rate * duration; i++) {
    const due = started + (i * 1000) / rate;
    if (due > performance.now()) await sleep(due - performance.now());
    const sent = performance.now();
    requests.push(
      pool.request({ path: '/v0/collections/people/items', method: 'POST', headers: auth, body: createBody(label, i) }).then(
        async (res) => {
          await res.body.dump();
          if (res.statusCode === 201) latencies.push(performance.now() - sent);
          else failed++;
        },
        () => void failed++,
      ),
    );
  }
  await Promise.all(requests);
  await pool.close();
  const sorted = latencies.sort((a, b) => a - b);
  return { rps: (sorted.length * 1000) / (performance.now() - started), p50: percentile(sorted, 50), p99: percentile(sorted, 99), created: sorted.length, failed };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'tycho-bench-webhooks-'));
  const postgres = args.database.startsWith('postgres') ? await postgresDatabase(args.database, 'bench_webhooks') : undefined;
  const database = postgres?.url ?? (args.database || join(dir, 'bench.sqlite'));
  const lags: number[] = [];
  const receiver = fork(join(ROOT, 'bench/webhook-receiver.ts'), { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) =>
    receiver.on('message', (message: { port?: number; lags?: number[] }) => {
      if (message.port !== undefined) resolve(message.port);
      if (message.lags !== undefined) lags.push(...message.lags);
    }),
  );
  const server = await start({ DATABASE_URL: database, PORT: '0', LOG_LEVEL: 'warn', TYCHO_API_KEY: KEY, RATE_LIMITS: 'off', TYCHO_DATA_DIR: dir });
  const pid = server.child.pid!;
  type Cpu = { tycho: number; api: number; db: number };
  type CpuNow = Omit<Cpu, 'db'> & { db: Map<number, number> };
  const cpuNow = (): CpuNow => ({ tycho: cpuMs([pid]), api: mainThreadCpuMs(pid), db: cpuByPid(postgres ? postgresPids() : []) });
  /** CPU ms used since `before`: Tycho's, its main thread's alone (the API's event loop; delivery runs on a thread of its own) and (PostgreSQL) the database server's. */
  const cpuUsed = (before: CpuNow): Cpu => {
    const now = cpuNow();
    return { tycho: now.tycho - before.tycho, api: now.api - before.api, db: cpuMsSince(before.db, [...now.db.keys()]) };
  };
  /** CPU time per create in µs. */
  const perCreate = (used: Cpu, run: { created: number }) => ({
    tycho: (used.tycho * 1000) / run.created,
    api: (used.api * 1000) / run.created,
    db: postgres ? (used.db * 1000) / run.created : undefined,
  });
  const cpuSince = (before: CpuNow, run: { created: number }) => perCreate(cpuUsed(before), run);
  try {
    const endpoint = await fetch(`${server.url}/v0/webhook_endpoints`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, subscriptions: [{ event_type: 'activity/item_created' }] }),
    });
    if (endpoint.status !== 201) throw new Error(`creating the endpoint: ${endpoint.status} ${await endpoint.text()}`);
    const endpointId = ((await endpoint.json()) as { id: string }).id;
    const setStatus = async (status: 'enabled' | 'disabled') => {
      const res = await fetch(`${server.url}/v0/webhook_endpoints/${endpointId}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ status }) });
      if (res.status !== 200) throw new Error(`setting the endpoint ${status}: ${res.status} ${await res.text()}`);
    };
    // The delivery thread starts once an endpoint is enabled (found within two seconds) or an event is written:
    // one event delivered first, so the runs measure a server that delivers, not the thread's start.
    await fetch(`${server.url}/v0/collections/people/items`, { method: 'POST', headers: auth, body: createBody('Warm-up', 0) });
    while (lags.length === 0) await sleep(20);
    lags.splice(0);
    /** Every created item is one delivery: waits until all have arrived (the backlog, if any, drains), and those of the requests autocannon cut off at the end (created, not counted) too; returns their lags. */
    const lagsOf = async (run: { created: number }) => {
      const drainStarted = Date.now();
      while (lags.length < run.created && Date.now() - drainStarted < 120_000) await sleep(20);
      for (let seen = -1; seen !== lags.length; ) {
        seen = lags.length;
        await sleep(300);
      }
      return lags.splice(0);
    };
    const lagLine = (got: number[], run: { created: number }) => {
      const sorted = got.sort((a, b) => a - b);
      return `${sorted.length} of ${run.created} delivered; lag (receipt − occurred_at) p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms`;
    };
    const lagOf = async (run: { created: number }) => lagLine(await lagsOf(run), run);
    const warmup = Number(args.warmup);
    if (warmup > 0) {
      await setStatus('disabled');
      await creates(server.url, 'Warm', warmup);
      await setStatus('enabled');
      await lagOf(await creates(server.url, 'Warm hooked', warmup));
    }
    // Saturating, in alternating slices; each enabled slice's CPU is counted until its events have all arrived.
    const slices = Math.max(1, Number(args.slices));
    const sliced = () => ({ created: 0, failed: 0, p50s: [] as number[], p99s: [] as number[], cpu: { tycho: 0, api: 0, db: 0 } as Cpu });
    const plain = sliced();
    const hooked = sliced();
    const hookedLags: number[] = [];
    const add = (into: ReturnType<typeof sliced>, run: Awaited<ReturnType<typeof creates>>, cpu: Cpu) => {
      into.created += run.created;
      into.failed += run.failed;
      into.p50s.push(run.p50);
      into.p99s.push(run.p99);
      for (const k of ['tycho', 'api', 'db'] as const) into.cpu[k] += cpu[k];
    };
    for (let i = 0; i < slices; i++) {
      await setStatus('disabled');
      let cpu = cpuNow();
      const run = await creates(server.url, `Plain ${i}`, duration / slices);
      add(plain, run, cpuUsed(cpu));
      await setStatus('enabled');
      cpu = cpuNow();
      const hookedRun = await creates(server.url, `Hooked ${i}`, duration / slices);
      hookedLags.push(...(await lagsOf(hookedRun)));
      add(hooked, hookedRun, cpuUsed(cpu));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const summary = (r: ReturnType<typeof sliced>) => ({ rps: r.created / duration, p50: mean(r.p50s), p99: mean(r.p99s), created: r.created, failed: r.failed });
    const without = summary(plain);
    const withoutCpu = perCreate(plain.cpu, plain);
    const withHook = summary(hooked);
    const withHookCpu = perCreate(hooked.cpu, hooked);
    const saturatedLag = lagLine(hookedLags, hooked);
    // A sustained load the server can carry, evenly spaced: half the throughput it reached without webhooks,
    // or `--rate` (the same load for runs to compare on a machine whose capacity varies with other work).
    const rate = Number(args.rate) || Math.max(1, Math.round(without.rps / 2));
    let cpu = cpuNow();
    const sustained = await pacedCreates(server.url, 'Sustained', rate);
    const sustainedLag = await lagOf(sustained);
    const sustainedCpu = cpuSince(cpu, sustained);
    // A light load: what an event waits when the worker is idle between events (the wake-up, not a backlog).
    cpu = cpuNow();
    const trickle = await pacedCreates(server.url, 'Trickle', TRICKLE_RATE);
    const trickleLag = await lagOf(trickle);
    const trickleCpu = cpuSince(cpu, trickle);
    const attempts = (await (await fetch(`${server.url}/v0/tycho/webhook_endpoints/${endpointId}/attempts?limit=100`, { headers: auth })).json()) as { data: { latency_ms: number }[] };
    const attemptLatency = attempts.data.map((a) => a.latency_ms).sort((a, b) => a - b);
    const engine = database.startsWith('postgres') ? 'PostgreSQL' : 'SQLite';
    console.log(`\nWebhooks benchmark — ${engine}, one process, ${connections} connections, ${duration} s per run (saturating: ${slices} alternating slices each)`);
    console.log(`${'run'.padEnd(44)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU µs'.padStart(7)} ${'API µs'.padStart(7)}${postgres ? ` ${'DB µs'.padStart(7)}` : ''}`);
    const runs = [
      ['create item, no endpoint (saturating)', without, withoutCpu],
      ['create item, 1 endpoint (saturating)', withHook, withHookCpu],
      [`create item, 1 endpoint (${rate}/s sustained)`, sustained, sustainedCpu],
      [`create item, 1 endpoint (${TRICKLE_RATE}/s trickle)`, trickle, trickleCpu],
    ] as const;
    for (const [name, r, c] of runs) {
      console.log(
        `${name.padEnd(44)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} ${c.tycho.toFixed(0).padStart(7)} ${c.api.toFixed(0).padStart(7)}${c.db !== undefined ? ` ${c.db.toFixed(0).padStart(7)}` : ''}`,
      );
    }
    console.log(
      `throughput with the endpoint: ${((withHook.rps / without.rps) * 100).toFixed(0)} % of the figure without; Tycho CPU per create ${((withHookCpu.tycho / withoutCpu.tycho) * 100).toFixed(0)} % of the figure without (delivery included), its main thread's ${((withHookCpu.api / withoutCpu.api) * 100).toFixed(0)} %`,
    );
    console.log(`saturating: ${saturatedLag}`);
    console.log(`trickle:    ${trickleLag}`);
    console.log(`sustained:  ${sustainedLag}; attempt latency (last 100) p50 ${percentile(attemptLatency, 50)} ms, p99 ${percentile(attemptLatency, 99)} ms`);
  } finally {
    await new Promise((resolve) => (server.child.once('exit', resolve), server.child.kill('SIGTERM')));
    receiver.disconnect();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
