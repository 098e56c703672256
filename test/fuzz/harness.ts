// The fuzzer's application: the same app the HTTP suites get from test/helpers/harness.ts (same config, same
// test key, no rate limits since no budgets are passed), with two additions the fuzzer needs:
// - the server's own error log is captured (by request id), so a 500 can be reported with its cause;
// - a second, read-only connection to the same database takes fingerprints of every table, so a request that
//   failed can be checked for having written nothing (SQLite therefore lives in a temp file, not in memory).
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createApiKey } from '../../src/domain/api-keys.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { appOptions, openRuntime } from '../../src/runtime.ts';
import type { Store } from '../../src/domain/ports/store.ts';
import { TEST_KEY, throwawayPostgres, type EngineName } from '../helpers/harness.ts';

/** What was sent, exactly (the URL already encoded). */
export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload?: string | Buffer;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  body: any;
  ms: number;
  /** The request did not complete within the hang limit. */
  hung: boolean;
  /** Error lines the server logged while handling this request (message and first stack frame). */
  serverErrors: string[];
}

/** Per table: row count and a hash of the rows (and, on SQLite, the rows themselves for a readable diff). */
export interface Snapshot {
  tables: Map<string, { count: number; hash: string; rows?: string[] }>;
  blobs: string[];
}

export interface FuzzHarness {
  engine: EngineName;
  app: FastifyInstance;
  store: Store;
  key: string;
  orgId: string;
  send(request: WireRequest, hangMs: number): Promise<WireResponse>;
  /** A new organization and a read-write key for it. */
  newOrg(name: string): Promise<{ orgId: string; key: string }>;
  readOnlyKey(): Promise<string>;
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

let requestCounter = 0;

export async function createFuzzHarness(engine: EngineName): Promise<FuzzHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'tycho-fuzz-'));
  const database = engine === 'postgres' ? await throwawayPostgres() : undefined;
  const sqlitePath = join(dir, 'tycho.sqlite');
  const dataDir = join(dir, 'data');
  const config = loadConfig({ DATABASE_URL: database?.url ?? sqlitePath, TYCHO_API_KEY: TEST_KEY, LOG_LEVEL: 'silent', TYCHO_DATA_DIR: dataDir });
  const runtime = await openRuntime(config);

  // Error lines by request id. Fastify's request logger binds `reqId`.
  const errors = new Map<string, string[]>();
  const logStream = {
    write(line: string) {
      let entry: any;
      try {
        entry = JSON.parse(line);
      } catch {
        return;
      }
      if (typeof entry.level !== 'number' || entry.level < 50) return;
      const id = String(entry.reqId ?? '');
      const err = entry.err;
      const frame = typeof err?.stack === 'string' ? (err.stack.split('\n').find((l: string) => l.trim().startsWith('at ')) ?? '').trim() : '';
      const text = err ? `${err.type ?? 'Error'}: ${err.message ?? ''}${frame ? ` (${frame})` : ''}` : String(entry.msg ?? line);
      const list = errors.get(id) ?? [];
      list.push(text);
      errors.set(id, list);
    },
  };
  const app = await buildApp({ ...appOptions(runtime, config), logLevel: 'error', logStream });
  await app.ready();

  const fingerprint = engine === 'postgres' ? await postgresFingerprinter(database!.url) : sqliteFingerprinter(sqlitePath);

  const send = async (request: WireRequest, hangMs: number): Promise<WireResponse> => {
    const headers = { ...request.headers };
    // A request id of our own so that logged errors can be matched, unless the request fuzzes that header.
    const ownId = `fuzz-${process.pid}-${++requestCounter}`;
    if (headers['x-request-id'] === undefined) headers['x-request-id'] = ownId;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), hangMs)));
    const injected = app.inject({
      method: request.method as 'GET',
      url: request.url,
      headers,
      ...(request.payload !== undefined ? { payload: request.payload } : {}),
    });
    const outcome = await Promise.race([injected, hang]);
    clearTimeout(timer);
    const ms = performance.now() - started;
    if (outcome === 'hung') {
      injected.catch(() => undefined);
      return { status: 0, headers: {}, text: '', body: undefined, ms, hung: true, serverErrors: [] };
    }
    const responseId = String(outcome.headers['x-request-id'] ?? ownId);
    const serverErrors = [...(errors.get(responseId) ?? []), ...(responseId !== ownId ? (errors.get(ownId) ?? []) : [])];
    errors.delete(responseId);
    errors.delete(ownId);
    let body: unknown;
    try {
      body = outcome.body === '' ? undefined : JSON.parse(outcome.body);
    } catch {
      body = undefined;
    }
    return { status: outcome.statusCode, headers: outcome.headers, text: outcome.body, body, ms, hung: false, serverErrors };
  };

  return {
    engine,
    app,
    store: runtime.store,
    key: TEST_KEY,
    orgId: runtime.defaultOrg.id,
    send,
    async newOrg(name) {
      const { organization } = await ensureOrganization(runtime.store, name);
      const { token } = await createApiKey(runtime.store, organization.id);
      return { orgId: organization.id, key: token };
    },
    async readOnlyKey() {
      return (await createApiKey(runtime.store, runtime.defaultOrg.id, { readOnly: true })).token;
    },
    async snapshot() {
      return { tables: await fingerprint.tables(), blobs: listFiles(join(dataDir, 'blobs')) };
    },
    async close() {
      await app.close();
      await fingerprint.close();
      await runtime.store.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Fingerprinter {
  tables(): Promise<Snapshot['tables']>;
  close(): Promise<void>;
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/**
 * Tables every answered request may write, failures included, by design: the request journal records each
 * request, and an Idempotency-Key keeps the answer (errors too) for replay. They hold no organization data.
 */
const BOOKKEEPING = ['request_journal', 'idempotency_keys'];
const notBookkeeping = BOOKKEEPING.map((name) => `'${name}'`).join(', ');

/**
 * Every table but the migration bookkeeping, read through a second, read-only connection. Reading them all
 * is most of the fuzzer's time, so a read is reused while `data_version` (which moves when any other
 * connection commits) stands still: then no table can have changed.
 */
function sqliteFingerprinter(path: string): Fingerprinter {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  const names = (db.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' and name not in (${notBookkeeping}) order by name`).all() as { name: string }[]).map((r) => r.name);
  const statements = names.map((name) => [name, db.prepare(`select * from "${name}"`).raw(true)] as const);
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let last: { version: unknown; tables: Snapshot['tables'] } | undefined;
  // One read transaction: the version and the rows are of the same moment.
  const read = db.transaction(() => {
    const version = dataVersion.get();
    if (last !== undefined && last.version === version) return last.tables;
    const result: Snapshot['tables'] = new Map();
    for (const [name, statement] of statements) {
      const rows = (statement.all() as unknown[][]).map((row) => JSON.stringify(row)).sort();
      result.set(name, { count: rows.length, hash: sha1(rows.join('\n')), rows });
    }
    last = { version, tables: result };
    return result;
  });
  return {
    async tables() {
      return read();
    },
    async close() {
      db.close();
    },
  };
}

/**
 * Per table, the count and an md5 over the rows' text in a fixed order. Hashing every table is most of the
 * fuzzer's time, so a table's hash is computed again only when its count or its newest row version (the
 * largest `xmin`: every committed insert or update writes a newer one, a delete lowers the count) moved.
 */
async function postgresFingerprinter(url: string): Promise<Fingerprinter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const names = (
    await client.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'kysely_%' and table_name not in (${notBookkeeping}) order by table_name`,
    )
  ).rows.map((r) => r.table_name);
  const versions = names.map((name) => `select '${name}' as t, count(*)::int as n, coalesce(max(xmin::text::bigint), 0)::text as v from "${name}"`).join(' union all ');
  const hashes = (stale: string[]) =>
    stale.map((name) => `select '${name}' as t, coalesce(md5(string_agg(x::text, E'\\n' order by x::text)), '') as h from "${name}" x`).join(' union all ');
  const known = new Map<string, { count: number; version: string; hash: string }>();
  return {
    async tables() {
      type Version = { t: string; n: number; v: string };
      const isStale = (row: Version) => known.get(row.t)?.count !== row.n || known.get(row.t)?.version !== row.v;
      // Mostly nothing moved: one statement answers that. Otherwise the versions are read again with the hashes,
      // in one snapshot, so both are of the same moment.
      if ((await client.query<Version>(versions)).rows.some(isStale)) {
        await client.query('begin isolation level repeatable read read only');
        try {
          const stale = (await client.query<Version>(versions)).rows.filter(isStale);
          const fresh = stale.length > 0 ? new Map((await client.query<{ t: string; h: string }>(hashes(stale.map((row) => row.t)))).rows.map((row) => [row.t, row.h])) : new Map<string, string>();
          for (const row of stale) known.set(row.t, { count: row.n, version: row.v, hash: fresh.get(row.t)! });
        } finally {
          await client.query('commit');
        }
      }
      return new Map(names.map((name) => [name, { count: known.get(name)!.count, hash: known.get(name)!.hash }]));
    },
    async close() {
      await client.end();
    },
  };
}

function listFiles(root: string): string[] {
  try {
    return readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath ?? (entry as any).path, entry.name).slice(root.length + 1))
      .sort();
  } catch {
    return [];
  }
}

/** What changed between two snapshots, one line per table (with a few of the rows on SQLite); empty when equal. */
export function diffSnapshots(before: Snapshot, after: Snapshot): string[] {
  const lines: string[] = [];
  for (const [name, a] of after.tables) {
    const b = before.tables.get(name);
    if (b && b.hash === a.hash && b.count === a.count) continue;
    let line = `table ${name}: ${b?.count ?? 0} → ${a.count} rows`;
    if (b?.rows && a.rows) {
      const old = new Set(b.rows);
      const now = new Set(a.rows);
      const added = a.rows.filter((r) => !old.has(r));
      const removed = b.rows.filter((r) => !now.has(r));
      const show = (rows: string[]) => rows.slice(0, 3).map((r) => (r.length > 300 ? `${r.slice(0, 300)}…` : r)).join('; ');
      if (added.length) line += `; added/changed ${added.length}: ${show(added)}`;
      if (removed.length) line += `; removed/old ${removed.length}: ${show(removed)}`;
    }
    lines.push(line);
  }
  const oldBlobs = new Set(before.blobs);
  const newBlobs = new Set(after.blobs);
  const addedBlobs = after.blobs.filter((b) => !oldBlobs.has(b));
  const removedBlobs = before.blobs.filter((b) => !newBlobs.has(b));
  if (addedBlobs.length || removedBlobs.length) lines.push(`blobs: +${addedBlobs.length} −${removedBlobs.length} files under TYCHO_DATA_DIR/blobs`);
  return lines;
}
