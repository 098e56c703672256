// The `tycho` command: parses the command line, loads the configuration, runs the server or a CLI command, and
// owns exit codes and signals. `main` takes the arguments, environment and output streams and returns the exit
// code (bin/tycho.mjs hands it the process's), so tests can run a command without starting a process.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from './app.ts';
import { PROJECT_ROOT } from './project-root.ts';
import { BLOB_ENV, CONFIG_VARIABLES, ConfigError, blobWarning, loadConfig, type Config } from './config.ts';
import { AppError } from './domain/errors.ts';
import { DatabaseOpenError, appOptions, openRuntime } from './runtime.ts';
import { createJwtVerifier, type JwtVerifier } from './domain/jwt.ts';
import { blobsSweep, exportCommand, importCommand, inboxesCreate, keysCreate, keysList, keysRevoke, meetingsImport, orgsList, programsCreate, templatesCreate } from './cli.ts';
import { PROGRAM_STATUSES, PROGRAM_TRIGGERS } from './domain/programs.ts';
import { reset, seedDemoData, sandboxesCreate, sandboxesDelete, sandboxesList, snapshotsDelete, snapshotsList, snapshotsRestore, snapshotsSave } from './cli.ts';
import { sendDue } from './domain/program-messages.ts';
import { realClock, systemClock, timestamp } from './domain/clock.ts';
import type { Writable } from 'node:stream';
import { controlledClocks, sweepDueWork } from './domain/org-clock.ts';
import { SWEPT_WORK } from './domain/due-work.ts';
import { memoryCounter, redisCounter } from './http/rate-counters.ts';
import type { Store } from './domain/ports/store.ts';
import type { BlobStore } from './domain/ports/blob-store.ts';
import { httpWebhookSender } from './webhook-sender.ts';
import { startDeliveryWorker, type DeliveryWorker } from './webhook-worker.ts';
import { startDeliveryThread } from './webhook-thread.ts';

class UsageError extends Error {}

/** Where a command reads its environment and writes its output: the process's own (bin/tycho.mjs), or a test's. */
export interface Io {
  env: Readonly<Record<string, string | undefined>>;
  stdout: Writable;
  stderr: Writable;
}

const println = (stream: Writable, text: string) => void stream.write(`${text}\n`);

/** How often `serve` runs the due work no loop of its own sends (SWEPT_WORK in domain/due-work.ts: `activity/meeting_held`, webhook history past its retention) for every organization. */
const DUE_WORK_SWEEP_MS = 60_000;

/** How often `serve` sends the program messages that are due, and how many at most per round (so a stop waits little). */
const PROGRAM_SEND_INTERVAL_MS = 2_000;
const PROGRAM_SEND_BATCH = 500;

/** The server could not listen where PORT and HOST say; the message says what to change. */
class ListenError extends Error {}

type Command = (config: Config, io: Io) => Promise<number>;
type Values = Record<string, string | boolean | undefined>;

interface CommandSpec {
  /** The arguments after the command's name, as its usage shows them. */
  synopsis: string;
  summary: string;
  /** `choices`: the values a string option takes; another is a usage error (exit 2), like an unknown option. */
  options: Record<string, { type: 'string' | 'boolean'; value?: string; help: string; choices?: readonly string[] }>;
  positionals: { name: string; help: string }[];
  /** The environment variables the command reads; loadConfig sees only these, so the list cannot drift. */
  env: readonly string[];
  build(values: Values, positionals: string[]): Command;
}

/** What every command that opens the database reads. */
const STORE_ENV = ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'TYCHO_API_KEY', 'TYCHO_ADMIN_KEY'] as const;

/** The string options `names`, or a usage error saying the command needs them all. */
function requiredOptions<N extends string>(values: Values, command: string, names: readonly N[]): Record<N, string> {
  if (names.some((n) => typeof values[n] !== 'string')) {
    throw new UsageError(`${command} needs ${names.slice(0, -1).map((n) => `--${n}`).join(', ')} and --${names.at(-1)}`);
  }
  return Object.fromEntries(names.map((n) => [n, values[n] as string])) as Record<N, string>;
}

const ORG_OPTION = { type: 'string', value: 'NAME', help: 'the organization (default: "default"); it must exist' } as const;

const DEFAULT_DEMO_SIZE = 100;
const MAX_DEMO_SIZE = 100_000;

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
    synopsis: '[--org NAME [--create-org]] [--read-only | --admin] [--name LABEL]',
    summary: 'create an API key (printed as the last line)',
    options: {
      org: { ...ORG_OPTION, help: 'the organization of the key (default: "default"); it must exist unless --create-org is given' },
      'create-org': { type: 'boolean', help: 'create the organization --org names, with its system collections, when it does not exist' },
      'read-only': { type: 'boolean', help: 'the key can read but not write' },
      admin: { type: 'boolean', help: 'the key may also make the toolkit admin calls (sandboxes; snapshots, reset and clock of its organization)' },
      name: { type: 'string', value: 'LABEL', help: 'a label for the key, shown by keys list' },
    },
    positionals: [],
    env: STORE_ENV,
    build: (values) => {
      if (values['create-org'] === true && values.org === undefined) throw new UsageError('--create-org needs --org NAME');
      if (values['read-only'] === true && values.admin === true) throw new UsageError('--read-only and --admin exclude each other');
      const options = {
        readOnly: values['read-only'] === true,
        admin: values.admin === true,
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
      const options = { ...requiredOptions(values, 'inboxes create', ['name', 'email']), ...(typeof values.org === 'string' ? { org: values.org } : {}) };
      return withStore((store) => inboxesCreate(store, options));
    },
  },
  'blobs sweep': {
    synopsis: '[--older-than MINUTES]',
    summary: 'remove stored file contents that no file or attachment names (left by a process that died mid-upload)',
    options: {
      'older-than': { type: 'string', value: 'MINUTES', help: 'only contents stored at least this long ago (default: 60), so uploads in flight are spared' },
    },
    positionals: [],
    env: [...STORE_ENV, 'TYCHO_DATA_DIR', ...BLOB_ENV],
    build: (values) => {
      const raw = values['older-than'] ?? '60';
      if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw new UsageError(`--older-than must be a whole number of minutes, got "${String(raw)}"`);
      return withRuntime((store, blobs) => blobsSweep(store, blobs, { minutes: Number(raw), now: systemClock() }));
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
  'programs create': {
    synopsis: '[--name NAME] [--status STATUS] [--trigger TRIGGER] [--track-opens] [--track-clicks] [--org NAME]',
    summary: 'create a marketing program (its id is the last line)',
    options: {
      name: { type: 'string', value: 'NAME', help: 'the display name' },
      status: { type: 'string', value: 'STATUS', help: 'draft (default), published, paused or archived', choices: PROGRAM_STATUSES },
      trigger: { type: 'string', value: 'TRIGGER', help: 'api (default: messages sent with POST /v0/program_messages) or broadcast', choices: PROGRAM_TRIGGERS },
      'track-opens': { type: 'boolean', help: 'track opens' },
      'track-clicks': { type: 'boolean', help: 'track clicks' },
      org: ORG_OPTION,
    },
    positionals: [],
    env: STORE_ENV,
    build: (values) => {
      const text = (name: string) => (typeof values[name] === 'string' ? { [name]: values[name] as string } : {});
      const options = { ...text('org'), ...text('name'), ...text('status'), ...text('trigger'), trackOpens: values['track-opens'] === true, trackClicks: values['track-clicks'] === true };
      return withStore((store) => programsCreate(store, options));
    },
  },
  'templates create': {
    synopsis: '--program ID --subject TEXT --body TEXT [--org NAME]',
    summary: 'create the template of a program: Liquid subject and Markdown body (its id is the last line)',
    options: {
      program: { type: 'string', value: 'ID', help: 'the program (required)' },
      subject: { type: 'string', value: 'TEXT', help: 'the subject, a Liquid template (required)' },
      body: { type: 'string', value: 'TEXT', help: 'the Markdown body, a Liquid template (required)' },
      org: ORG_OPTION,
    },
    positionals: [],
    env: STORE_ENV,
    build: (values) => {
      const options = { ...requiredOptions(values, 'templates create', ['program', 'subject', 'body']), ...(typeof values.org === 'string' ? { org: values.org } : {}) };
      return withStore((store) => templatesCreate(store, options));
    },
  },
  'sandboxes create': {
    synopsis: '[--name NAME] [--snapshot NAME [--from ORG]]',
    summary: 'create a sandbox organization, empty or cloned from a snapshot (its key is the last line)',
    options: {
      name: { type: 'string', value: 'NAME', help: 'the sandbox organization name (default: sandbox-<id>)' },
      snapshot: { type: 'string', value: 'NAME', help: 'a snapshot to clone (see: tycho snapshots list)' },
      from: { type: 'string', value: 'ORG', help: 'the organization of the snapshot (default: "default")' },
    },
    positionals: [],
    env: STORE_ENV,
    build: (values) => {
      if (values.from !== undefined && values.snapshot === undefined) throw new UsageError('--from needs --snapshot NAME');
      return withRuntime((store, blobs) => sandboxesCreate(store, blobs, stringOptions(values, ['name', 'snapshot', 'from'])));
    },
  },
  'sandboxes list': {
    synopsis: '',
    summary: 'list sandbox organizations',
    options: {},
    positionals: [],
    env: STORE_ENV,
    build: () => withStore(sandboxesList),
  },
  'sandboxes delete': {
    synopsis: 'NAME',
    summary: 'delete a sandbox with its data, keys, snapshots and files',
    options: {},
    positionals: [{ name: 'NAME', help: 'the sandbox organization, as sandboxes list shows it' }],
    env: STORE_ENV,
    build: (_values, [name]) => withRuntime((store, blobs) => sandboxesDelete(store, blobs, name!)),
  },
  'snapshots save': namedSnapshotCommand("save an organization's whole state (files included) under a name", 'the snapshot name; an existing snapshot of that name is replaced', snapshotsSave),
  'snapshots list': {
    synopsis: '[--org NAME]',
    summary: "list an organization's snapshots",
    options: { org: ORG_OPTION },
    positionals: [],
    env: STORE_ENV,
    build: (values) => withStore((store) => snapshotsList(store, stringOptions(values, ['org']))),
  },
  'snapshots restore': namedSnapshotCommand("replace an organization's state by a snapshot's (same ids; keys and clock kept)", 'the snapshot to restore', snapshotsRestore),
  'snapshots delete': namedSnapshotCommand('delete a snapshot', 'the snapshot to delete', snapshotsDelete),
  seed: {
    synopsis: '--demo [--org NAME] [--size N] [--seed S]',
    summary: 'fill an organization with realistic demo CRM data (deterministic for a seed)',
    options: {
      demo: { type: 'boolean', help: 'demo data: companies, people, deals in funnel stages, tasks, notes, a tagset, an inbox with conversations' },
      org: ORG_OPTION,
      size: { type: 'string', value: 'N', help: `people to create, 1 to ${MAX_DEMO_SIZE} (default ${DEFAULT_DEMO_SIZE}); the rest scales with it` },
      seed: { type: 'string', value: 'S', help: 'the random seed, an integer (default 1): the same seed makes the same data' },
    },
    positionals: [],
    env: STORE_ENV,
    build: (values) => {
      if (values.demo !== true) throw new UsageError('seed needs --demo (the only kind of data it makes)');
      const size = wholeNumber(values.size, '--size', DEFAULT_DEMO_SIZE, 1, MAX_DEMO_SIZE);
      const seed = wholeNumber(values.seed, '--seed', 1, 0, 2 ** 31 - 1);
      return withStore(async (store, io) => {
        // The bar goes to stderr, so the summary on stdout stays one clean line.
        const { SingleBar, Presets } = await import('cli-progress');
        const bar = new SingleBar({ format: 'seeding [{bar}] {value}/{total} records', stream: io.stderr, noTTYOutput: false, hideCursor: true }, Presets.shades_classic);
        bar.start(1, 0);
        try {
          return await seedDemoData(store, { size, seed, ...stringOptions(values, ['org']), progress: (done, total) => {
              bar.setTotal(total);
              bar.update(done);
            } });
        } finally {
          bar.stop();
        }
      });
    },
  },
  reset: {
    synopsis: '[--org NAME]',
    summary: 'empty an organization back to its initial state (system collections; keys and snapshots kept)',
    options: { org: ORG_OPTION },
    positionals: [],
    env: STORE_ENV,
    build: (values) => withRuntime((store, blobs) => reset(store, blobs, stringOptions(values, ['org']))),
  },
  export: {
    synopsis: '--format ndjson|csv [--org NAME] [--collections REF,…] [--output FILE]',
    summary: 'write items as NDJSON (items as the API renders them) or CSV (one collection)',
    options: {
      format: { type: 'string', value: 'ndjson|csv', help: 'NDJSON: one item per line, any collections; CSV: a header of field refs, one collection (required)' },
      org: ORG_OPTION,
      collections: { type: 'string', value: 'REF,…', help: 'the collections to export, by ref or id (default: all)' },
      output: { type: 'string', value: 'FILE', help: 'where to write (default: standard output); progress and the summary go to standard error' },
    },
    positionals: [],
    env: STORE_ENV,
    build: (values) => {
      const format = bulkFormat(values.format, 'export');
      if (format === undefined) throw new UsageError('export needs --format ndjson or --format csv');
      const options = {
        format,
        collections: typeof values.collections === 'string' ? values.collections.split(',').map((c) => c.trim()).filter(Boolean) : [],
        ...(typeof values.org === 'string' ? { org: values.org } : {}),
        ...(typeof values.output === 'string' ? { output: values.output } : {}),
      };
      return withStore((store, io) => exportCommand(store, options, io), 'stderr');
    },
  },
  import: {
    synopsis: 'FILE [--org NAME] [--collection REF] [--identifier FIELD] [--format csv|ndjson] [--batch N]',
    summary: 'create or upsert items from CSV or NDJSON; refused rows are listed with their line',
    options: {
      org: ORG_OPTION,
      collection: { type: 'string', value: 'REF', help: 'the collection to import into (required for CSV; NDJSON lines may name theirs)' },
      identifier: { type: 'string', value: 'FIELD', help: 'upsert by this field (e.g. email): rows whose value matches an item update it' },
      format: { type: 'string', value: 'csv|ndjson', help: 'the file\'s format (default: by its extension, .csv or else NDJSON)' },
      batch: { type: 'string', value: 'N', help: 'rows per transaction (default 200): each batch is written whole or not at all' },
    },
    positionals: [{ name: 'FILE', help: 'CSV with a header row of field refs, or NDJSON of items ({"values": {…}})' }],
    env: STORE_ENV,
    build: (values, [file]) => {
      const batch = values.batch === undefined ? 200 : Number(values.batch);
      if (!Number.isInteger(batch) || batch < 1 || batch > 10_000) throw new UsageError(`--batch must be an integer from 1 to 10000, got "${values.batch}"`);
      const format = bulkFormat(values.format, 'import');
      const options = {
        file: file!,
        batchSize: batch,
        ...(format ? { format } : {}),
        ...(typeof values.org === 'string' ? { org: values.org } : {}),
        ...(typeof values.collection === 'string' ? { collection: values.collection } : {}),
        ...(typeof values.identifier === 'string' ? { identifier: values.identifier } : {}),
      };
      return withStore((store, io) => importCommand(store, options, io.stderr), 'stderr');
    },
  },
};

function bulkFormat(value: string | boolean | undefined, command: string): 'ndjson' | 'csv' | undefined {
  if (value === undefined) return undefined;
  if (value === 'ndjson' || value === 'csv') return value;
  throw new UsageError(`${command} --format takes ndjson or csv, got "${value}"`);
}

/** A command on one named snapshot of an organization: `NAME [--org NAME]`. */
function namedSnapshotCommand(
  summary: string,
  help: string,
  run: (store: Store, blobs: BlobStore, options: { name: string; org?: string }) => Promise<string[]>,
): CommandSpec {
  return {
    synopsis: 'NAME [--org NAME]',
    summary,
    options: { org: ORG_OPTION },
    positionals: [{ name: 'NAME', help }],
    env: STORE_ENV,
    build: (values, [name]) => withRuntime((store, blobs) => run(store, blobs, { name: name!, ...stringOptions(values, ['org']) })),
  };
}

/** An integer option in [min, max], or `fallback` when absent. */
function wholeNumber(value: string | boolean | undefined, option: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`${option} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** The named options that were given, as strings. */
function stringOptions<K extends string>(values: Values, names: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const name of names) if (typeof values[name] === 'string') out[name] = values[name] as string;
  return out;
}

function version(): string {
  const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
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

type CommandOutput = string[] | { lines: string[]; code: number };

/** Runs a command on the store and prints its lines (on `print`); a command may also choose its exit code. */
function withStore(run: (store: Store, io: Io) => Promise<CommandOutput>, print: 'stdout' | 'stderr' = 'stdout'): Command {
  return withRuntime((store, _blobs, io) => run(store, io), print);
}

/** Commands that also touch file contents get the blob store. */
function withRuntime(run: (store: Store, blobs: BlobStore, io: Io) => Promise<CommandOutput>, print: 'stdout' | 'stderr' = 'stdout'): Command {
  return async (config, io) => {
    // A command may make the database (a key before the first start), but a mistyped DATABASE_URL should not
    // pass unnoticed: the new file is named.
    const { database } = config;
    const fresh = database.engine === 'sqlite' && database.path !== ':memory:' && !existsSync(database.path);
    const runtime = await openRuntime(config);
    if (fresh) println(io.stderr, `tycho: there was no database at ${database.path} (DATABASE_URL); created a new one there`);
    try {
      const result = await run(runtime.store, runtime.blobs, io);
      const { lines, code } = Array.isArray(result) ? { lines: result, code: 0 } : result;
      for (const line of lines) println(io[print], line);
      return code;
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
  for (const [option, { choices }] of Object.entries(spec.options)) {
    const given = parsed.values[option];
    if (choices && typeof given === 'string' && !choices.includes(given)) {
      throw new UsageError(`${name}: --${option} must be one of ${choices.join(', ')}; got "${given}"`, { cause: name });
    }
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

async function serve(config: Config, io: Io): Promise<number> {
  const onCheckpointError = (message: string) => println(io.stderr, `tycho: a background checkpoint of the SQLite file failed (the server checkpoints itself meanwhile): ${message}`);
  const runtime = await openRuntime(config, { firstKey: true, serving: { onCheckpointError } });
  let jwt: JwtVerifier | undefined;
  try {
    jwt = await createJwtVerifier(config.jwt);
  } catch (error) {
    await runtime.close();
    throw new ConfigError(config.jwt.jwksFile ? 'JWT_JWKS_FILE' : 'JWT_PUBLIC_KEY_FILE', `cannot be used: ${(error as Error).message}`);
  }
  const counter = config.redisUrl
    ? await redisCounter(config.redisUrl, (error) => println(io.stderr, `tycho: rate-limit counters in Redis unavailable: ${(error as Error).message}`))
    : memoryCounter();
  // Program messages: sent over SMTP with SMTP_URL, to the local outbox without it (docs/behaviour.md).
  // The mail library loads only when there is a mail server to talk to.
  const mailer = config.smtpUrl ? (await import('./mail.ts')).smtpMailer(config.smtpUrl) : undefined;
  const webhookSender = httpWebhookSender(config.webhookUrls);
  const options = appOptions(runtime, config, { webhookSender, ...(mailer ? { mailer } : {}) });
  const app = await buildApp({
    ...options,
    ...(config.rateLimits ? { rateLimits: { ...config.rateLimits, counter } } : {}),
    ...(jwt ? { jwt } : {}),
  });
  // Due work (activity/meeting_held for meetings whose end has passed…), also when nobody reads (docs/behaviour.md).
  let sweeping: Promise<unknown> | undefined;
  const sweep = setInterval(() => {
    sweeping ??= sweepDueWork(runtime.store, SWEPT_WORK)
      .catch((error: unknown) => app.log.error({ err: error }, 'running due work failed'))
      .finally(() => (sweeping = undefined));
  }, DUE_WORK_SWEEP_MS);
  sweep.unref();
  // Each organization with a controlled clock has its messages fall due on that clock.
  const orgClocks = controlledClocks(runtime.store, realClock);
  let sending: Promise<unknown> | undefined;
  const sender = setInterval(() => {
    sending ??= orgClocks()
      .then((controlled) => sendDue(runtime.store, { now: timestamp(realClock), orgClocks: controlled, limit: PROGRAM_SEND_BATCH, ...(mailer ? { mailer } : {}), ...(config.mailFrom ? { from: config.mailFrom } : {}) }))
      .catch((error: unknown) => app.log.error({ err: error }, 'sending program messages failed'))
      .finally(() => (sending = undefined));
  }, PROGRAM_SEND_INTERVAL_MS);
  sender.unref();
  // Webhook deliveries, unless other processes are left to send them (TYCHO_WEBHOOK_DELIVERY=off): on a thread
  // of their own (webhook-thread.ts), except from a database in memory, which no other connection can open.
  const onDeliveryError = (error: unknown) => app.log.error({ err: error }, 'webhook delivery round failed');
  const inMemory = config.database.engine === 'sqlite' && config.database.path === ':memory:';
  const worker: DeliveryWorker | undefined = !config.webhookDelivery
    ? undefined
    : inMemory
      ? startDeliveryWorker(runtime.store, webhookSender, { observer: app.deliveryObserver, onError: onDeliveryError })
      : startDeliveryThread({
          database: config.database,
          webhookUrls: config.webhookUrls,
          store: runtime.store,
          observer: app.deliveryObserver,
          onError: onDeliveryError,
          onReady: (threadId) => app.log.info({ threadId }, 'webhook delivery runs on a worker thread'),
        });
  const stopSweep = async () => {
    clearInterval(sweep);
    clearInterval(sender);
    await sweeping;
    await sending;
    mailer?.close();
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
  println(io.stdout, `Tycho is listening on http://${host}:${port} (API base http://${host}:${port}/v0, database ${config.databaseUrl})`);
  const blobsWarning = blobWarning(config);
  if (blobsWarning) println(io.stderr, `tycho: ${blobsWarning}`);
  if (runtime.firstKey) {
    println(io.stdout, `New database: created an API key for the default organization. It is shown only once:\n${runtime.firstKey}`);
    println(io.stdout, 'It is empty. For realistic demo data (companies, people, deals, tasks, notes, an inbox), run while it serves: npx tycho seed --demo');
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

/** A file a command was told to read or write that cannot be (`ENOENT: no such file or directory, open '…'`). */
const isFileError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).path === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';

/** Runs `tycho <argv>` and resolves with its exit code; bin/tycho.mjs sets the process's from it. */
export async function main(argv: string[], io: Io): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = commandFor(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const name = typeof error.cause === 'string' ? error.cause : undefined;
    println(io.stderr, `tycho: ${error.message}\n\n${name ? commandUsage(name) : generalUsage()}`);
    return 2;
  }
  if (parsed.kind === 'print') {
    println(io.stdout, parsed.text);
    return 0;
  }
  let config: Config;
  try {
    // A command sees only the variables it reads, so an unrelated bad value (PORT for keys list) is no error.
    const env = Object.fromEntries(COMMANDS[parsed.name]!.env.map((name) => [name, io.env[name]]));
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    println(io.stderr, `tycho: configuration error: ${error.message}`);
    return 1;
  }
  try {
    return await parsed.command(config, io);
  } catch (error) {
    if (error instanceof AppError) println(io.stderr, `tycho: ${error.detail ?? error.code}`);
    else if (error instanceof ConfigError) println(io.stderr, `tycho: configuration error: ${error.message}`);
    else if (error instanceof DatabaseOpenError) println(io.stderr, `tycho: cannot open the database at DATABASE_URL (${config.databaseUrl}): ${error.message}`);
    else if (error instanceof ListenError) println(io.stderr, `tycho: ${error.message}`);
    else if (isFileError(error)) println(io.stderr, `tycho: ${error.message}`);
    else throw error;
    return 1;
  }
}
