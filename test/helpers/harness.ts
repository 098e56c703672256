// Test harness: a fresh app and store per suite (in-memory SQLite; other engines join ENGINES when they
// exist), a known API key, and a request helper that returns status, headers and parsed JSON.
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createApiKey } from '../../src/domain/api-keys.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import type { Clock } from '../../src/domain/clock.ts';
import type { RateLimits } from '../../src/http/plugins/rate-limit.ts';
import type { JwtVerifier } from '../../src/domain/jwt.ts';
import { appOptions, openRuntime } from '../../src/runtime.ts';
import type { Store } from '../../src/domain/ports/store.ts';
import type { BlobStore } from '../../src/domain/ports/blob-store.ts';
import { sharedS3Server, type S3Server } from './s3-server.ts';

export type EngineName = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL names a server (each harness gets its own database). */
export const ENGINES: EngineName[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export type BlobStoreName = 'local' | 's3';

/** Where file contents go: the local disk, and a bucket of an S3-compatible server started inside the test run. */
export const BLOB_STORES: BlobStoreName[] = ['local', 's3'];

/** A new, empty PostgreSQL database on the TEST_DATABASE_URL server, and how to drop it. */
export async function throwawayPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) throw new Error('TEST_DATABASE_URL is not set');
  const name = `tycho_t_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}

export const TEST_KEY = 'tycho_test_key_0123456789abcdef';
/** The harness organization's admin key (TYCHO_ADMIN_KEY): toolkit admin calls. */
export const ADMIN_KEY = 'tycho_admin_key_0123456789abcdef';

export interface Response<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw payload, sent as-is (for malformed JSON and the like). */
  payload?: string | Buffer;
  headers?: Record<string, string>;
  /** Bearer key to send; `null` sends no Authorization header. Defaults to the harness key. */
  key?: string | null;
}

export interface Harness {
  app: FastifyInstance;
  store: Store;
  /** Where the app keeps file contents. */
  blobs: BlobStore;
  /** The harness database's URL (PostgreSQL only: an in-memory SQLite database cannot be shared). */
  databaseUrl: string | undefined;
  key: string;
  orgId: string;
  request<T = any>(method: string, url: string, options?: RequestOptions): Promise<Response<T>>;
  get<T = any>(url: string, options?: RequestOptions): Promise<Response<T>>;
  post<T = any>(url: string, body?: unknown, options?: RequestOptions): Promise<Response<T>>;
  patch<T = any>(url: string, body?: unknown, options?: RequestOptions): Promise<Response<T>>;
  delete<T = any>(url: string, options?: RequestOptions): Promise<Response<T>>;
  /** A new organization (with its system collections) and a read-write key for it. */
  newOrg(name?: string): Promise<{ orgId: string; key: string }>;
  /** A read-only key of the harness organization. */
  readOnlyKey(): Promise<string>;
  close(): Promise<void>;
}

let orgCounter = 0;

export async function createHarness(
  engine: EngineName = 'sqlite',
  options: { clock?: Clock; env?: Record<string, string>; rateLimits?: RateLimits; jwt?: JwtVerifier; blobs?: BlobStoreName; s3?: S3Server } = {},
): Promise<Harness> {
  const database = engine === 'postgres' ? await throwawayPostgres() : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'tycho-test-data-'));
  const bucket = options.blobs === 's3' || options.s3 ? await (options.s3 ?? (await sharedS3Server())).bucketEnv() : {};
  const config = loadConfig({
    DATABASE_URL: database?.url ?? ':memory:',
    TYCHO_API_KEY: TEST_KEY,
    TYCHO_ADMIN_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
    TYCHO_DATA_DIR: dataDir,
    ...bucket,
    ...options.env,
  });
  const runtime = await openRuntime(config);
  const app = await buildApp({
    ...appOptions(runtime, config),
    logLevel: 'silent',
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    ...(options.jwt ? { jwt: options.jwt } : {}),
  });
  await app.ready();

  const request = async (method: string, url: string, opts: RequestOptions = {}): Promise<Response> => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? TEST_KEY : opts.key;
    if (key !== null && headers.authorization === undefined) headers.authorization = `Bearer ${key}`;
    let payload: string | Buffer | undefined = opts.payload;
    if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
    let body: unknown;
    try {
      body = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, headers: res.headers as Response["headers"], body, text: res.body };
  };

  return {
    app,
    store: runtime.store,
    blobs: runtime.blobs,
    databaseUrl: database?.url,
    key: TEST_KEY,
    orgId: runtime.defaultOrg.id,
    request,
    get: (url, opts) => request('GET', url, opts),
    post: (url, body, opts) => request('POST', url, { ...opts, body }),
    patch: (url, body, opts) => request('PATCH', url, { ...opts, body }),
    delete: (url, opts) => request('DELETE', url, opts),
    async newOrg(name = `org-${process.pid}-${++orgCounter}`) {
      const { organization } = await ensureOrganization(runtime.store, name);
      const { token } = await createApiKey(runtime.store, organization.id);
      return { orgId: organization.id, key: token };
    },
    async readOnlyKey() {
      return (await createApiKey(runtime.store, runtime.defaultOrg.id, { readOnly: true })).token;
    },
    async close() {
      await app.close();
      await runtime.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A 404 as the hosted service answers for an absent resource: the envelope, title, and no detail. */
export function assertBareNotFound(res: Response): void {
  assert.equal(res.status, 404, res.text);
  const error = errorOf(res);
  assert.equal(error.title, 'Not Found');
  assert.equal(error.detail, undefined, res.text);
}

/** Asserts the `errors` envelope and returns its single error object. */
export function errorOf(res: Response): { status: string; title: string; detail?: string; code?: string; source?: { pointer?: string; parameter?: string } } {
  const body = res.body;
  if (!body || body.type !== 'errors' || !Array.isArray(body.errors) || body.errors.length !== 1) {
    throw new Error(`expected an errors envelope, got ${res.status} ${res.text}`);
  }
  const error = body.errors[0];
  if (error.type !== 'error' || error.status !== String(res.status)) {
    throw new Error(`malformed error object for status ${res.status}: ${JSON.stringify(error)}`);
  }
  return error;
}
