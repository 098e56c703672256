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
  /** The operator's admin key of the default organization (toolkit admin calls); none when unset. */
  readonly adminKey: string | undefined;
  /** Requests kept in each organization's journal; 0 switches the journal off. */
  readonly journalSize: number;
  readonly logLevel: LogLevel;
  readonly bodyLimit: number;
  /** Milliseconds a request may take to arrive whole (headers and body) before it is answered 408. */
  readonly requestTimeout: number;
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
  /** Where program messages are sent (smtp:// or smtps://); the local outbox without it. */
  readonly smtpUrl: string | undefined;
  /** The From address of program messages. */
  readonly mailFrom: string | undefined;
  /** Where file contents live (TYCHO_BLOB_URL): a local directory, by default `<dataDir>/blobs`, or a bucket. */
  readonly blobs: BlobLocation;
  /** Origins browsers may call the API from (TYCHO_CORS_ORIGINS); empty when CORS is off. `*` allows any. */
  readonly corsOrigins: readonly string[];
  /** Which webhook URLs endpoints may have and the sender may connect to. */
  readonly webhookUrls: WebhookUrlPolicy;
  /** Whether `serve` runs the webhook delivery worker (TYCHO_WEBHOOK_DELIVERY=off leaves it to other processes). */
  readonly webhookDelivery: boolean;
}

/** `dir` undefined: a temporary directory, for a throw-away database without TYCHO_DATA_DIR. */
export type BlobLocation = { kind: 'local'; dir: string | undefined; explicit: boolean } | S3Location;

export interface S3Location {
  kind: 's3';
  bucket: string;
  /** Prepended to every key: empty, or ending in `/`. */
  prefix: string;
  /** For MinIO, R2, Ceph…; AWS S3 itself without it. */
  endpoint: string | undefined;
  region: string;
  /** `bucket` in the path instead of the host name (MinIO, Ceph). */
  forcePathStyle: boolean;
  /** Without them, the AWS SDK's own chain (AWS_ACCESS_KEY_ID…, profiles, instance roles). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** download_url is a pre-signed URL of the bucket instead of a Tycho-signed one. */
  presignedDownloads: boolean;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_DATABASE = './data/tycho.sqlite';

/** Where file contents live (README, "Scale out"). */
export const BLOB_ENV = [
  'TYCHO_BLOB_URL',
  'TYCHO_S3_ENDPOINT',
  'TYCHO_S3_REGION',
  'AWS_REGION',
  'TYCHO_S3_FORCE_PATH_STYLE',
  'TYCHO_S3_ACCESS_KEY_ID',
  'TYCHO_S3_SECRET_ACCESS_KEY',
  'TYCHO_BLOB_PRESIGNED_DOWNLOADS',
] as const;

/** Every variable loadConfig reads (the CLI lists them in its usage and passes each command only its own). */
export const CONFIG_VARIABLES = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'DATABASE_POOL_SIZE',
  'TYCHO_API_KEY',
  'TYCHO_ADMIN_KEY',
  'TYCHO_JOURNAL_SIZE',
  'LOG_LEVEL',
  'TYCHO_BODY_LIMIT',
  'TYCHO_REQUEST_TIMEOUT',
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
  'SMTP_URL',
  'SMTP_FROM',
  ...BLOB_ENV,
  'TYCHO_CORS_ORIGINS',
  'TYCHO_WEBHOOK_ALLOW_HTTP',
  'TYCHO_WEBHOOK_ALLOW_PRIVATE',
  'TYCHO_WEBHOOK_DELIVERY',
] as const;
const DEFAULT_BODY_LIMIT = 1024 * 1024;

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env, cwd: string = process.cwd()): Config {
  const databaseUrl = nonEmpty(env.DATABASE_URL) ?? DEFAULT_DATABASE;
  const dataDir = dataDirOf(nonEmpty(env.TYCHO_DATA_DIR), parseDatabaseUrl(databaseUrl, cwd), cwd);
  return Object.freeze({
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: nonEmpty(env.HOST) ?? '127.0.0.1',
    database: parseDatabaseUrl(databaseUrl, cwd, integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000)),
    databaseUrl,
    apiKey: apiKey(env.TYCHO_API_KEY),
    adminKey: apiKey(env.TYCHO_ADMIN_KEY, 'TYCHO_ADMIN_KEY'),
    journalSize: integer(env, 'TYCHO_JOURNAL_SIZE', 1000, 0, 1_000_000),
    logLevel: logLevel(env.LOG_LEVEL),
    bodyLimit: integer(env, 'TYCHO_BODY_LIMIT', DEFAULT_BODY_LIMIT, 1024, 1024 * 1024 * 1024),
    requestTimeout: integer(env, 'TYCHO_REQUEST_TIMEOUT', 300, 1, 3600) * 1000,
    rateLimits: rateLimits(env),
    redisUrl: redisUrl(env.REDIS_URL),
    jwt: jwtSettings(env),
    dataDir,
    uploadLimit: integer(env, 'TYCHO_UPLOAD_LIMIT', 25 * 1024 * 1024, 1, 10 * 1024 * 1024 * 1024),
    smtpUrl: smtpUrl(env.SMTP_URL),
    mailFrom: nonEmpty(env.SMTP_FROM),
    blobs: blobLocation(env, dataDir, cwd),
    corsOrigins: corsOrigins(env.TYCHO_CORS_ORIGINS),
    webhookUrls: { allowHttp: onOff(env, 'TYCHO_WEBHOOK_ALLOW_HTTP', false), allowPrivate: onOff(env, 'TYCHO_WEBHOOK_ALLOW_PRIVATE', false) },
    webhookDelivery: onOff(env, 'TYCHO_WEBHOOK_DELIVERY', true),
  });
}

const BLOB_URL_SHAPE = 'a directory path, a file: URL or s3://<bucket>[/<prefix>]';

function blobLocation(env: Env, dataDir: string | undefined, cwd: string): BlobLocation {
  const url = nonEmpty(env.TYCHO_BLOB_URL);
  const presigned = flag(env, 'TYCHO_BLOB_PRESIGNED_DOWNLOADS');
  if (url === undefined || !/^s3:/i.test(url)) {
    if (presigned) throw new ConfigError('TYCHO_BLOB_PRESIGNED_DOWNLOADS', 'needs TYCHO_BLOB_URL=s3://<bucket>[/<prefix>]: only a bucket can pre-sign URLs');
    if (url === undefined) return { kind: 'local', dir: dataDir === undefined ? undefined : resolve(dataDir, 'blobs'), explicit: false };
    if (/^file:\/\//i.test(url)) return { kind: 'local', dir: fileURLToPath(url), explicit: true };
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) throw new ConfigError('TYCHO_BLOB_URL', `"${url}" uses an unsupported scheme; use ${BLOB_URL_SHAPE}`);
    return { kind: 'local', dir: resolve(cwd, url), explicit: true };
  }
  // Bucket names: 3–63 lower-case letters, digits, dots and hyphens (what S3, R2, MinIO and Ceph all accept).
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/i.exec(url);
  if (!match) throw new ConfigError('TYCHO_BLOB_URL', `"${url}" is not a valid bucket URL; use ${BLOB_URL_SHAPE} (bucket: 3 to 63 lower-case letters, digits, dots and hyphens)`);
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  const endpoint = nonEmpty(env.TYCHO_S3_ENDPOINT);
  if (endpoint !== undefined && !/^https?:\/\/[^/\s]+/i.test(endpoint)) {
    throw new ConfigError('TYCHO_S3_ENDPOINT', `must be an http:// or https:// URL such as https://minio.internal:9000, got "${endpoint}"`);
  }
  const accessKeyId = nonEmpty(env.TYCHO_S3_ACCESS_KEY_ID);
  const secretAccessKey = nonEmpty(env.TYCHO_S3_SECRET_ACCESS_KEY);
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('TYCHO_S3_ACCESS_KEY_ID', 'and TYCHO_S3_SECRET_ACCESS_KEY go together: set both, or neither to use the AWS SDK\'s own credentials');
  }
  return {
    kind: 's3',
    bucket: match[1]!,
    prefix: prefix === '' ? '' : `${prefix}/`,
    endpoint,
    region: nonEmpty(env.TYCHO_S3_REGION) ?? nonEmpty(env.AWS_REGION) ?? 'us-east-1',
    forcePathStyle: flag(env, 'TYCHO_S3_FORCE_PATH_STYLE'),
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    presignedDownloads: presigned,
  };
}

/** The warning `serve` prints when several processes could share the database but not the uploads. */
export function blobWarning(config: Config): string | undefined {
  if (config.database.engine !== 'postgres' || config.blobs.kind !== 'local' || config.blobs.explicit) return undefined;
  return (
    `warning: uploaded files are kept on this machine (${config.blobs.dir}), not in the database: other Tycho processes ` +
    'on the same PostgreSQL database cannot serve them. Set TYCHO_BLOB_URL=s3://<bucket>[/<prefix>] to keep them in an ' +
    'S3-compatible bucket, or to a directory to confirm local files (README, "Scale out").'
  );
}

function flag(env: Env, name: string): boolean {
  const value = nonEmpty(env[name])?.toLowerCase();
  if (value === undefined) return false;
  if (['1', 'true', 'on', 'yes'].includes(value)) return true;
  if (['0', 'false', 'off', 'no'].includes(value)) return false;
  throw new ConfigError(name, `must be true or false, got "${env[name]}"`);
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

function smtpUrl(raw: string | undefined): string | undefined {
  const value = nonEmpty(raw);
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError('SMTP_URL', `must be an smtp:// or smtps:// URL such as smtp://user:pass@mail.example.com:587, got "${value}"`);
  }
  return value;
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

function apiKey(raw: string | undefined, variable = 'TYCHO_API_KEY'): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const problem = checkTokenShape(raw);
  if (problem) throw new ConfigError(variable, problem);
  return raw;
}

function logLevel(raw: string | undefined): LogLevel {
  const value = nonEmpty(raw)?.toLowerCase() ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return value as LogLevel;
}

/** A comma-separated list of origins (`https://app.example.com`), or `*` for any; unset or empty: CORS off. */
function corsOrigins(raw: string | undefined): readonly string[] {
  const origins = (nonEmpty(raw) ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  if (origins.includes('*')) return origins.length === 1 ? ['*'] : fail(`"*" allows every origin and cannot be combined with others, got "${raw}"`);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin.replace(/\/$/, '')) {
      fail(`must list origins such as "https://app.example.com" (scheme, host and port only) or be "*", got "${origin}"`);
    }
  }
  return Object.freeze(origins.map((o) => o.replace(/\/$/, '')));

  function fail(problem: string): never {
    throw new ConfigError('TYCHO_CORS_ORIGINS', problem);
  }
}
