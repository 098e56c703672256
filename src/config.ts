// Configuration: read from the environment once, validated, frozen and passed down. A bad value stops the
// process with a message that names the variable.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { checkTokenShape } from './domain/api-keys.ts';
import type { JwtSettings } from './domain/jwt.ts';
import type { DatabaseLocation } from './store/open-store.ts';
import type { WebhookUrlPolicy } from './domain/webhook-urls.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseLocation;
  /** DATABASE_URL as given, or the default, for messages. */
  readonly databaseUrl: string;
  readonly apiKey: string | undefined;
  readonly logLevel: LogLevel;
  readonly bodyLimit: number;
  /** Requests per second per organization; undefined when rate limiting is off. */
  readonly rateLimits: { reads: number; writes: number } | undefined;
  /** Shared rate-limit counters for several processes; in-process counters without it. */
  readonly redisUrl: string | undefined;
  /** Bearer JWTs are accepted when one of secret, public key file or JWKS file is set. */
  readonly jwt: JwtSettings;
  /**
   * Where uploaded files are kept (`blobs/` inside it). Undefined for a throw-away (`:memory:`) database
   * without TYCHO_DATA_DIR: its uploads go to a temporary directory that goes away with the process.
   */
  readonly dataDir: string | undefined;
  readonly uploadLimit: number;
  /** Which webhook URLs endpoints may have and the sender may connect to. */
  readonly webhookUrls: WebhookUrlPolicy;
  /** Whether `serve` runs the webhook delivery worker (TYCHO_WEBHOOK_DELIVERY=off leaves it to other processes). */
  readonly webhookDelivery: boolean;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_DATABASE = './data/tycho.sqlite';

/** Every variable loadConfig reads (the CLI lists them in its usage and passes each command only its own). */
export const CONFIG_VARIABLES = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'DATABASE_POOL_SIZE',
  'TYCHO_API_KEY',
  'LOG_LEVEL',
  'TYCHO_BODY_LIMIT',
  'TYCHO_DATA_DIR',
  'TYCHO_UPLOAD_LIMIT',
  'RATE_LIMITS',
  'RATE_LIMIT_READS',
  'RATE_LIMIT_WRITES',
  'REDIS_URL',
  'JWT_SECRET',
  'JWT_PUBLIC_KEY_FILE',
  'JWT_JWKS_FILE',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'TYCHO_WEBHOOK_ALLOW_HTTP',
  'TYCHO_WEBHOOK_ALLOW_PRIVATE',
  'TYCHO_WEBHOOK_DELIVERY',
] as const;
const DEFAULT_BODY_LIMIT = 1024 * 1024;

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env, cwd: string = process.cwd()): Config {
  const databaseUrl = nonEmpty(env.DATABASE_URL) ?? DEFAULT_DATABASE;
  return Object.freeze({
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: nonEmpty(env.HOST) ?? '127.0.0.1',
    database: parseDatabaseUrl(databaseUrl, cwd, integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000)),
    databaseUrl,
    apiKey: apiKey(env.TYCHO_API_KEY),
    logLevel: logLevel(env.LOG_LEVEL),
    bodyLimit: integer(env, 'TYCHO_BODY_LIMIT', DEFAULT_BODY_LIMIT, 1024, 1024 * 1024 * 1024),
    rateLimits: rateLimits(env),
    redisUrl: redisUrl(env.REDIS_URL),
    jwt: jwtSettings(env),
    dataDir: dataDirOf(nonEmpty(env.TYCHO_DATA_DIR), parseDatabaseUrl(databaseUrl, cwd), cwd),
    uploadLimit: integer(env, 'TYCHO_UPLOAD_LIMIT', 25 * 1024 * 1024, 1, 10 * 1024 * 1024 * 1024),
    webhookUrls: { allowHttp: onOff(env, 'TYCHO_WEBHOOK_ALLOW_HTTP', false), allowPrivate: onOff(env, 'TYCHO_WEBHOOK_ALLOW_PRIVATE', false) },
    webhookDelivery: onOff(env, 'TYCHO_WEBHOOK_DELIVERY', true),
  });
}

export function parseDatabaseUrl(url: string, cwd: string, poolSize = 10): DatabaseLocation {
  if (/^postgres(ql)?:\/\//i.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError('DATABASE_URL', `"${url}" is not a valid postgres:// URL`);
    }
    return { engine: 'postgres', url, poolSize };
  }
  if (url === ':memory:' || url === 'file::memory:') return { engine: 'sqlite', path: ':memory:' };
  if (/^file:/i.test(url)) {
    const path = url.startsWith('file://') ? fileURLToPath(url.split('?')[0]!) : url.slice('file:'.length).split('?')[0]!;
    if (path === '') throw new ConfigError('DATABASE_URL', `"${url}" has no file path`);
    return { engine: 'sqlite', path: resolve(cwd, path) };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new ConfigError('DATABASE_URL', `"${url}" uses an unsupported scheme; use a SQLite file path or a file: URL`);
  }
  return { engine: 'sqlite', path: resolve(cwd, url) };
}

/** TYCHO_DATA_DIR when set; else beside the SQLite file, none for an in-memory one, `./data` for PostgreSQL. */
function dataDirOf(explicit: string | undefined, location: DatabaseLocation, cwd: string): string | undefined {
  if (explicit !== undefined) return resolve(cwd, explicit);
  if (location.engine === 'postgres') return resolve(cwd, './data');
  return location.path === ':memory:' ? undefined : dirname(location.path);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = nonEmpty(env[name])?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw !== 'on' && raw !== 'off') throw new ConfigError(name, `must be "on" or "off", got "${env[name]}"`);
  return raw === 'on';
}

/** RATE_LIMITS=off switches limiting off; RATE_LIMIT_READS / RATE_LIMIT_WRITES set the budgets per second. */
function rateLimits(env: Env): Config['rateLimits'] {
  const mode = nonEmpty(env.RATE_LIMITS)?.toLowerCase() ?? 'on';
  if (mode !== 'on' && mode !== 'off') throw new ConfigError('RATE_LIMITS', `must be "on" or "off", got "${env.RATE_LIMITS}"`);
  if (mode === 'off') return undefined;
  return { reads: integer(env, 'RATE_LIMIT_READS', 100, 1, 1_000_000), writes: integer(env, 'RATE_LIMIT_WRITES', 25, 1, 1_000_000) };
}

function redisUrl(raw: string | undefined): string | undefined {
  const value = nonEmpty(raw);
  if (value === undefined) return undefined;
  if (!/^rediss?:\/\/./i.test(value)) throw new ConfigError('REDIS_URL', `must be a redis:// or rediss:// URL, got "${value}"`);
  return value;
}

function jwtSettings(env: Env): JwtSettings {
  const settings: JwtSettings = {};
  const secret = nonEmpty(env.JWT_SECRET);
  if (secret !== undefined) {
    if (secret.length < 32) throw new ConfigError('JWT_SECRET', 'must be at least 32 characters long (HS256 key)');
    settings.secret = secret;
  }
  for (const [variable, property] of [['JWT_PUBLIC_KEY_FILE', 'publicKeyFile'], ['JWT_JWKS_FILE', 'jwksFile']] as const) {
    const path = nonEmpty(env[variable]);
    if (path === undefined) continue;
    if (!existsSync(path)) throw new ConfigError(variable, `names "${path}", which does not exist`);
    settings[property] = path;
  }
  const given = [settings.secret, settings.publicKeyFile, settings.jwksFile].filter((v) => v !== undefined).length;
  if (given > 1) throw new ConfigError('JWT_SECRET', 'JWT_SECRET, JWT_PUBLIC_KEY_FILE and JWT_JWKS_FILE are alternatives; set one');
  const issuer = nonEmpty(env.JWT_ISSUER);
  const audience = nonEmpty(env.JWT_AUDIENCE);
  if (issuer !== undefined) settings.issuer = issuer;
  if (audience !== undefined) settings.audience = audience;
  return settings;
}

function apiKey(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const problem = checkTokenShape(raw);
  if (problem) throw new ConfigError('TYCHO_API_KEY', problem);
  return raw;
}

function logLevel(raw: string | undefined): LogLevel {
  const value = nonEmpty(raw)?.toLowerCase() ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return value as LogLevel;
}
