// `npm run bench:webhook-rounds -- --against DIR`: the CPU a webhook delivery round costs per event, for this
// checkout and another (DIR: a checkout of the build to compare, its node_modules in place), measured in one
// process that holds both — each with its own database and loopback receiver — and alternates their rounds, so
// that whatever else runs on the machine falls on both alike (bench:webhooks, one server at a time, cannot see
// a 10 % change on a shared machine). A round: `--per-round` items created (not counted), a pause for the request
// journal's write (not counted either), then `deliverDue` as the worker runs it: again at once when the round
// says work may be left (always, for a build from before `more`). Prints CPU µs per delivered event and the
// part spent in the sender. `--database postgres://…` runs both on throw-away databases of that server.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { postgresDatabase } from './measure.ts';

const { values: args } = parseArgs({
  options: {
    against: { type: 'string', default: '' },
    'per-round': { type: 'string', default: '1' },
    events: { type: 'string', default: '600' },
    database: { type: 'string', default: '' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help || !args.against) {
  console.log('Usage: npm run bench:webhook-rounds -- --against CHECKOUT_DIR [--per-round N] [--events N] [--database postgres://…]');
  process.exit(args.help ? 0 : 2);
}
const perRound = Number(args['per-round']);
const rounds = Math.ceil(Number(args.events) / perRound);
const WARM_UP = 20;
const KEY = 'tycho_bench_key_0123456789';
const createBody = (n: number) => ({ values: { name: { type: 'value/text/single_line', data: `Round ${n}` } } });

interface Side {
  root: string;
  cpuUs: number;
  sendUs: number;
  events: number;
  round(): Promise<void>;
  close(): Promise<void>;
}

/** Both builds' modules are loaded by path, so each side runs its own code against its own database. */
async function side(root: string, label: string): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), 'tycho-bench-rounds-'));
  const postgres = args.database.startsWith('postgres') ? await postgresDatabase(args.database, `rounds_${label}`) : undefined;
  const { loadConfig } = await import(`${root}/src/config.ts`);
  const { openRuntime, appOptions } = await import(`${root}/src/runtime.ts`);
  const { buildApp } = await import(`${root}/src/app.ts`);
  const { deliverDue } = await import(`${root}/src/domain/webhook-delivery.ts`);
  const { httpWebhookSender } = await import(`${root}/src/webhook-sender.ts`);
  const { PUBLIC_ONLY } = await import(`${root}/src/domain/webhook-urls.ts`);
  const config = loadConfig({ DATABASE_URL: postgres?.url ?? join(dir, 'bench.sqlite'), TYCHO_API_KEY: KEY, LOG_LEVEL: 'silent', TYCHO_DATA_DIR: dir, RATE_LIMITS: 'off' });
  const runtime = await openRuntime(config);
  const app = await buildApp({ ...appOptions(runtime, config), logLevel: 'silent' });
  await app.ready();
  const post = async (url: string, body: unknown) => {
    const res = await app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    if (res.statusCode !== 201) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  };
  const receiver: ChildProcess = fork(join(root, 'bench/webhook-receiver.ts'), { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((done) => receiver.on('message', (m: { port?: number }) => m.port !== undefined && done(m.port)));
  await post('/v0/webhook_endpoints', { url: `http://127.0.0.1:${port}/hook`, subscriptions: [{ event_type: 'activity/item_created' }] });
  const http = httpWebhookSender(PUBLIC_ONLY);
  const s: Side = {
    root,
    cpuUs: 0,
    sendUs: 0,
    events: 0,
    async round() {
      for (let i = 0; i < perRound; i++) await post('/v0/collections/people/items', createBody(i));
      await sleep(60);
      let sendUs = 0;
      const sender = {
        async send(request: unknown) {
          const started = process.cpuUsage();
          try {
            return await http.send(request);
          } finally {
            const used = process.cpuUsage(started);
            sendUs += used.user + used.system;
          }
        },
      };
      const started = process.cpuUsage();
      const first = await deliverDue(runtime.store, sender, { clock: () => new Date(), owner: label });
      if (first.more ?? true) await deliverDue(runtime.store, sender, { clock: () => new Date(), owner: label });
      const used = process.cpuUsage(started);
      if (first.succeeded !== perRound) throw new Error(`${root}: ${first.succeeded} of ${perRound} delivered`);
      s.cpuUs += used.user + used.system;
      s.sendUs += sendUs;
      s.events += perRound;
    },
    async close() {
      receiver.kill();
      await app.close();
      await runtime.close();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return s;
}

const sides = [await side(resolve(args.against), 'a'), await side(new URL('..', import.meta.url).pathname.replace(/\/$/, ''), 'b')];
try {
  for (let i = 0; i < WARM_UP + rounds; i++) {
    // Alternated, and each side first every other time.
    for (const s of i % 2 ? sides : [...sides].reverse()) {
      const before = { cpuUs: s.cpuUs, sendUs: s.sendUs, events: s.events };
      await s.round();
      if (i < WARM_UP) Object.assign(s, before);
    }
  }
  const engine = args.database.startsWith('postgres') ? 'PostgreSQL' : 'SQLite';
  console.log(`\nWebhook delivery rounds — ${engine}, ${perRound} event(s) per round, ${rounds} rounds each, alternated`);
  for (const s of sides) console.log(`${s.root}: CPU µs per event ${(s.cpuUs / s.events).toFixed(0)}, of which the sender ${(s.sendUs / s.events).toFixed(0)}`);
} finally {
  for (const s of sides) await s.close();
}
