// Process entry: parses the command line, loads the configuration, runs the server or a CLI command, and
// owns exit codes and signals.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildApp } from './app.ts';
import { CONFIG_VARIABLES, ConfigError, loadConfig, type Config } from './config.ts';
import { AppError } from './domain/errors.ts';
import { DatabaseOpenError, appOptions, openRuntime } from './runtime.ts';
import { createJwtVerifier, type JwtVerifier } from './domain/jwt.ts';
import { inboxesCreate, keysCreate, keysList, keysRevoke, meetingsImport, orgsList } from './cli.ts';
import { recordMeetingsHeld } from './domain/meetings.ts';
import { memoryCounter, redisCounter } from './http/rate-counters.ts';
import type { Store } from './domain/ports/store.ts';
import { httpWebhookSender } from './webhook-sender.ts';
import { startDeliveryWorker, type DeliveryWorker } from './webhook-worker.ts';

class UsageError extends Error {}

/** How often `serve` records `activity/meeting_held` for meetings that have ended. */
const MEETINGS_HELD_SWEEP_MS = 60_000;

/** The server could not listen where PORT and HOST say; the message says what to change. */
class ListenError extends Error {}

type Command = (config: Config) => Promise<number>;
type Values = Record<string, string | boolean | undefined>;

interface CommandSpec {
  /** The arguments after the command's name, as its usage shows them. */
  synopsis: string;
  summary: string;
  options: Record<string, { type: 'string' | 'boolean'; value?: string; help: string }>;
  positionals: { name: string; help: string }[];
  /** The environment variables the command reads; loadConfig sees only these, so the list cannot drift. */
  env: readonly string[];
  build(values: Values, positionals: string[]): Command;
}

/** What every command that opens the database reads. */
const STORE_ENV = ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'TYCHO_API_KEY'] as const;

const ORG_OPTION = { type: 'string', value: 'NAME', help: 'the organization (default: "default"); it must exist' } as const;

const COMMANDS: Record<string, CommandSpec> = {
  serve: {
    synopsis: '',
    summary: 'start the HTTP server',
    options: {},
    positionals: [],
    env: CONFIG_VARIABLES,
    build: () => serve,
  },
  'keys create': {
    synopsis: '[--org NAME [--create-org]] [--read-only] [--name LABEL]',
    summary: 'create an API key (printed as the last line)',
    options: {
      org: { ...ORG_OPTION, help: 'the organization of the key (default: "default"); it must exist unless --create-org is given' },
      'create-org': { type: 'boolean', help: 'create the organization --org names, with its system collections, when it does not exist' },
      'read-only': { type: 'boolean', help: 'the key can read but not write' },
      name: { type: 'string', value: 'LABEL', help: 'a label for the key, shown by keys list' },
    },
    positionals: [],
    env: STORE_ENV,
    build: (values) => {
      if (values['create-org'] === true && values.org === undefined) throw new UsageError('--create-org needs --org NAME');
      const options = {
        readOnly: values['read-only'] === true,
        createOrg: values['create-org'] === true,
        ...(typeof values.org === 'string' ? { org: values.org } : {}),
        ...(typeof values.name === 'string' ? { name: values.name } : {}),
      };
      return withStore((store) => keysCreate(store, options));
    },
  },
  'keys list': {
    synopsis: '[--org NAME]',
    summary: 'list API keys (prefix, organization, access, status)',
    options: { org: { ...ORG_OPTION, help: 'only the keys of this organization' } },
    positionals: [],
    env: STORE_ENV,
    build: (values) => withStore((store) => keysList(store, typeof values.org === 'string' ? { org: values.org } : {})),
  },
  'keys revoke': {
    synopsis: 'PREFIX',
    summary: 'revoke the active key that starts with PREFIX',
    options: {},
    positionals: [{ name: 'PREFIX', help: 'the start of the key, as keys list shows it' }],
    env: STORE_ENV,
    build: (_values, [prefix]) => withStore((store) => keysRevoke(store, prefix!)),
  },
  'orgs list': {
    synopsis: '',
    summary: 'list organizations',
    options: {},
    positionals: [],
    env: STORE_ENV,
    build: () => withStore(orgsList),
  },
  'inboxes create': {
    synopsis: '--name NAME --email ADDRESS [--org NAME]',
    summary: 'create a shared inbox (its id is the last line)',
    options: {
      name: { type: 'string', value: 'NAME', help: 'the inbox name (required)' },
      email: { type: 'string', value: 'ADDRESS', help: 'the inbox email address (required)' },
      org: ORG_OPTION,
    },
    positionals: [],
    env: STORE_ENV,
    build: (values) => {
      if (typeof values.name !== 'string' || typeof values.email !== 'string') throw new UsageError('inboxes create needs --name and --email');
      const options = { name: values.name, email: values.email, ...(typeof values.org === 'string' ? { org: values.org } : {}) };
      return withStore((store) => inboxesCreate(store, options));
    },
  },
  'meetings import': {
    synopsis: 'FILE.ics [--org NAME]',
    summary: 'create or update meetings (by UID) from an iCalendar file',
    options: { org: ORG_OPTION },
    positionals: [{ name: 'FILE.ics', help: 'the iCalendar file; each event becomes a meeting, matched to an existing one by its UID' }],
    env: STORE_ENV,
    build: (values, [file]) => withStore((store) => meetingsImport(store, { file: file!, ...(typeof values.org === 'string' ? { org: values.org } : {}) })),
  },
};

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/** `words` joined by spaces into lines of at most `width` characters, each after `indent`. */
function wrap(words: string[], indent: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

const list = (names: readonly string[]) => names.map((name, i) => (i < names.length - 1 ? `${name},` : name));

function generalUsage(): string {
  const rows = Object.entries(COMMANDS).map(([name, spec]) => [`${name} ${spec.synopsis}`.trim(), spec.summary] as const);
  const width = 52;
  const commands = rows.map(([left, right]) => (left.length < width ? `  ${left.padEnd(width)} ${right}` : `  ${left}\n  ${''.padEnd(width)} ${right}`));
  return `Usage: tycho <command> [options]
       tycho <command> --help     a command's options and environment
       tycho --version

Commands:
${commands.join('\n')}

Environment (see the README):
  serve reads
${wrap(list(CONFIG_VARIABLES), '    ')}
  the other commands read ${STORE_ENV.join(', ')}`;
}

function commandUsage(name: string): string {
  const spec = COMMANDS[name]!;
  const section = (title: string, rows: [string, string][]) => {
    const width = Math.max(...rows.map(([left]) => left.length));
    return `${title}:\n${rows.map(([left, help]) => `  ${left.padEnd(width)}  ${help}`).join('\n')}\n\n`;
  };
  const options: [string, string][] = [
    ...Object.entries(spec.options).map(([option, o]) => [`--${option}${o.value ? ` ${o.value}` : ''}`, o.help] as [string, string]),
    ['-h, --help', 'show this help'],
  ];
  const positionals = spec.positionals.map((p) => [p.name, p.help] as [string, string]);
  return `Usage: tycho ${`${name} ${spec.synopsis}`.trim()}

${spec.summary[0]!.toUpperCase()}${spec.summary.slice(1)}.

${positionals.length > 0 ? section('Arguments', positionals) : ''}${section('Options', options)}Environment (see the README):
${wrap(list(spec.env), '  ')}`;
}

function withStore(run: (store: Store) => Promise<string[]>): Command {
  return async (config) => {
    const runtime = await openRuntime(config);
    try {
      for (const line of await run(runtime.store)) console.log(line);
      return 0;
    } finally {
      await runtime.close();
    }
  };
}

type Parsed = { kind: 'run'; name: string; command: Command } | { kind: 'print'; text: string };

function commandFor(argv: string[]): Parsed {
  const [group, action, ...rest] = argv;
  if (group === '--version' || group === '-v') return { kind: 'print', text: `tycho ${version()}` };
  if (group === undefined) throw new UsageError('no command given');
  if (group === 'help' || group === '--help' || group === '-h') {
    const topic = argv.slice(1).join(' ');
    return { kind: 'print', text: COMMANDS[topic] ? commandUsage(topic) : generalUsage() };
  }
  const name = COMMANDS[group] ? group : `${group} ${action}`;
  const spec = COMMANDS[name];
  if (!spec) {
    const actions = Object.keys(COMMANDS).filter((n) => n.startsWith(`${group} `));
    if (actions.length > 0 && (action === undefined || action.startsWith('-'))) {
      if (action === '--help' || action === '-h') return { kind: 'print', text: generalUsage() };
      throw new UsageError(`"${group}" needs one of: ${actions.map((a) => `tycho ${a}`).join(', ')}`);
    }
    throw new UsageError(`unknown command "${argv.join(' ')}"`);
  }
  const args = COMMANDS[group] ? argv.slice(1) : rest;
  if (args.includes('--help') || args.includes('-h')) return { kind: 'print', text: commandUsage(name) };
  let parsed;
  try {
    const options = Object.fromEntries(Object.entries(spec.options).map(([option, o]) => [option, { type: o.type }]));
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${name}: ${(error as Error).message}`, { cause: name });
  }
  if (parsed.positionals.length !== spec.positionals.length) {
    const expected = spec.positionals.length === 0 ? 'no arguments' : spec.positionals.map((p) => p.name).join(' ');
    throw new UsageError(`${name} takes ${expected}, got ${parsed.positionals.length === 0 ? 'none' : `"${parsed.positionals.join(' ')}"`}`, { cause: name });
  }
  try {
    return { kind: 'run', name, command: spec.build(parsed.values, parsed.positionals) };
  } catch (error) {
    if (error instanceof UsageError && error.cause === undefined) throw new UsageError(error.message, { cause: name });
    throw error;
  }
}

async function serve(config: Config): Promise<number> {
  const runtime = await openRuntime(config, { firstKey: true });
  let jwt: JwtVerifier | undefined;
  try {
    jwt = await createJwtVerifier(config.jwt);
  } catch (error) {
    await runtime.close();
    throw new ConfigError(config.jwt.jwksFile ? 'JWT_JWKS_FILE' : 'JWT_PUBLIC_KEY_FILE', `cannot be used: ${(error as Error).message}`);
  }
  const counter = config.redisUrl
    ? await redisCounter(config.redisUrl, (error) => console.error(`tycho: rate-limit counters in Redis unavailable: ${(error as Error).message}`))
    : memoryCounter();
  const app = await buildApp({
    ...appOptions(runtime, config),
    ...(config.rateLimits ? { rateLimits: { ...config.rateLimits, counter } } : {}),
    ...(jwt ? { jwt } : {}),
  });
  // activity/meeting_held for meetings whose end has passed, also when nobody reads them (docs/behaviour.md).
  let sweeping: Promise<unknown> | undefined;
  const sweep = setInterval(() => {
    sweeping ??= recordMeetingsHeld(runtime.store)
      .catch((error: unknown) => app.log.error({ err: error }, 'recording activity/meeting_held failed'))
      .finally(() => (sweeping = undefined));
  }, MEETINGS_HELD_SWEEP_MS);
  sweep.unref();
  // Webhook deliveries, unless other processes are left to send them (TYCHO_WEBHOOK_DELIVERY=off).
  const worker: DeliveryWorker | undefined = config.webhookDelivery
    ? startDeliveryWorker(runtime.store, httpWebhookSender(config.webhookUrls), {
        observer: app.deliveryObserver,
        onError: (error) => app.log.error({ err: error }, 'webhook delivery round failed'),
      })
    : undefined;
  const stopSweep = async () => {
    clearInterval(sweep);
    await sweeping;
    await worker?.stop();
  };
  let stopped!: (code: number) => void;
  const done = new Promise<number>((resolve) => (stopped = resolve));
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await stopSweep();
    await app.close();
    await runtime.close();
    await counter.close();
    stopped(0);
  };
  const onTerm = () => void stop('SIGTERM');
  const onInt = () => void stop('SIGINT');
  process.once('SIGTERM', onTerm);
  process.once('SIGINT', onInt);

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
    await stopSweep();
    await app.close();
    await runtime.close();
    await counter.close();
    throw listenError(error as NodeJS.ErrnoException, config) ?? error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  console.log(`Tycho is listening on http://${host}:${port} (API base http://${host}:${port}/v0, database ${config.databaseUrl})`);
  if (runtime.firstKey) {
    console.log(`New database: created an API key for the default organization. It is shown only once:\n${runtime.firstKey}`);
  }
  return done;
}

/** The operator's view of why listening failed, or undefined for anything unexpected. */
function listenError(error: NodeJS.ErrnoException, config: Config): ListenError | undefined {
  const where = `port ${config.port} on ${config.host}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new ListenError(`${where} is already in use; set PORT to another port (0 picks a free one)`);
    case 'EACCES':
      return new ListenError(`not allowed to listen on ${where}; set PORT to a port above 1023`);
    case 'EADDRNOTAVAIL':
      return new ListenError(`cannot listen on HOST ${config.host}: it is not an address of this machine; set HOST to one (127.0.0.1, 0.0.0.0 or ::)`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ListenError(`cannot listen on HOST ${config.host}: the name does not resolve; set HOST to an address of this machine (127.0.0.1, 0.0.0.0 or ::)`);
  }
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = commandFor(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const name = typeof error.cause === 'string' ? error.cause : undefined;
    console.error(`tycho: ${error.message}\n\n${name ? commandUsage(name) : generalUsage()}`);
    return 2;
  }
  if (parsed.kind === 'print') {
    console.log(parsed.text);
    return 0;
  }
  let config: Config;
  try {
    // A command sees only the variables it reads, so an unrelated bad value (PORT for keys list) is no error.
    const env = Object.fromEntries(COMMANDS[parsed.name]!.env.map((name) => [name, process.env[name]]));
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`tycho: configuration error: ${error.message}`);
    return 1;
  }
  try {
    return await parsed.command(config);
  } catch (error) {
    if (error instanceof AppError) console.error(`tycho: ${error.detail ?? error.code}`);
    else if (error instanceof ConfigError) console.error(`tycho: configuration error: ${error.message}`);
    else if (error instanceof DatabaseOpenError) console.error(`tycho: cannot open the database at DATABASE_URL (${config.databaseUrl}): ${error.message}`);
    else if (error instanceof ListenError) console.error(`tycho: ${error.message}`);
    else throw error;
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
