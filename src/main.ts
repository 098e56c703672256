// Process entry: parses the command line, loads the configuration, runs the server or a CLI command, and
// owns exit codes and signals.
import { parseArgs } from 'node:util';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { AppError } from './domain/errors.ts';
import { DatabaseOpenError, appOptions, openRuntime } from './runtime.ts';
import { createJwtVerifier, type JwtVerifier } from './domain/jwt.ts';
import { inboxesCreate, keysCreate, keysList, keysRevoke, orgsList } from './cli.ts';
import { memoryCounter, redisCounter } from './http/rate-counters.ts';

const USAGE = `Usage: tycho <command>

Commands:
  serve                                              start the HTTP server
  keys create [--org NAME] [--read-only] [--name LABEL]
                                                     create an API key (printed as the last line)
  keys list [--org NAME]                             list API keys
  keys revoke PREFIX                                 revoke the active key that starts with PREFIX
  orgs list                                          list organizations
  inboxes create --name NAME --email ADDRESS [--org NAME]
                                                     create a shared inbox (its id is the last line)

Environment: PORT, HOST, DATABASE_URL, TYCHO_API_KEY, LOG_LEVEL, TYCHO_BODY_LIMIT (see README).`;

class UsageError extends Error {}

type Command = (config: Config) => Promise<number>;

function parse(args: string[], options: Record<string, { type: 'string' | 'boolean' }>, positionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length !== positionals) throw new UsageError(`expected ${positionals} argument(s)`);
  return parsed;
}

function cliCommand(run: (store: import('./store/store.ts').Store) => Promise<string[]>): Command {
  return async (config) => {
    const runtime = await openRuntime(config);
    try {
      for (const line of await run(runtime.store)) console.log(line);
      return 0;
    } finally {
      await runtime.store.close();
    }
  };
}

function commandFor(argv: string[]): Command | 'help' {
  const [group, action, ...rest] = argv;
  const key = action === undefined ? group : `${group} ${action}`;
  switch (key) {
    case 'serve':
      return serve;
    case 'keys create': {
      const { values } = parse(rest, { org: { type: 'string' }, 'read-only': { type: 'boolean' }, name: { type: 'string' } }, 0);
      return cliCommand((store) =>
        keysCreate(store, { org: values.org as string | undefined, readOnly: values['read-only'] === true, name: values.name as string | undefined }),
      );
    }
    case 'keys list': {
      const { values } = parse(rest, { org: { type: 'string' } }, 0);
      return cliCommand((store) => keysList(store, { org: values.org as string | undefined }));
    }
    case 'keys revoke': {
      const { positionals } = parse(rest, {}, 1);
      return cliCommand((store) => keysRevoke(store, positionals[0]!));
    }
    case 'inboxes create': {
      const { values } = parse(rest, { name: { type: 'string' }, email: { type: 'string' }, org: { type: 'string' } }, 0);
      if (typeof values.name !== 'string' || typeof values.email !== 'string') throw new UsageError('inboxes create needs --name and --email');
      const options = { name: values.name, email: values.email, ...(typeof values.org === 'string' ? { org: values.org } : {}) };
      return cliCommand((store) => inboxesCreate(store, options));
    }
    case 'orgs list':
      parse(rest, {}, 0);
      return cliCommand(orgsList);
    case 'help':
    case '--help':
    case '-h':
      return 'help';
  }
  throw new UsageError(argv.length === 0 ? 'no command given' : `unknown command "${argv.join(' ')}"`);
}

async function serve(config: Config): Promise<number> {
  const runtime = await openRuntime(config, { firstKey: true });
  let jwt: JwtVerifier | undefined;
  try {
    jwt = await createJwtVerifier(config.jwt);
  } catch (error) {
    await runtime.store.close();
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
  let stopped!: (code: number) => void;
  const done = new Promise<number>((resolve) => (stopped = resolve));
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
    await runtime.store.close();
    await counter.close();
    stopped(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  console.log(`Tycho is listening on http://${host}:${port} (API base http://${host}:${port}/v0, database ${config.databaseUrl})`);
  if (runtime.firstKey) {
    console.log(`New database: created an API key for the default organization. It is shown only once:\n${runtime.firstKey}`);
  }
  return done;
}

async function main(argv: string[]): Promise<number> {
  let command: Command | 'help';
  try {
    command = commandFor(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`tycho: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (command === 'help') {
    console.log(USAGE);
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`tycho: configuration error: ${error.message}`);
    return 1;
  }
  try {
    return await command(config);
  } catch (error) {
    if (error instanceof AppError) console.error(`tycho: ${error.detail ?? error.code}`);
    else if (error instanceof ConfigError) console.error(`tycho: configuration error: ${error.message}`);
    else if (error instanceof DatabaseOpenError) console.error(`tycho: cannot open the database at DATABASE_URL (${config.databaseUrl}): ${error.message}`);
    else throw error;
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
