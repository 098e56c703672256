// What both the server and the CLI need before they act: the store opened and migrated, the default
// organization and the configured API key in place, the shared cursor secret, and where uploads are kept.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createApiKey, ensureApiKey } from './domain/api-keys.ts';
import { DEFAULT_ORG_NAME, ensureOrganization, type Organization } from './domain/organizations.ts';
import { openStore, type ServingOptions } from './store/open-store.ts';
import type { Store } from './domain/ports/store.ts';
import { localBlobStore } from './store/blob-store.ts';
import type { BlobStore } from './domain/ports/blob-store.ts';
import { join } from 'node:path';
import type { Config } from './config.ts';
import type { AppOptions } from './app.ts';
import { dueWork, type DueWorkSenders } from './domain/due-work.ts';
import { httpWebhookSender } from './webhook-sender.ts';

export interface Runtime {
  store: Store;
  cursorSecret: string;
  downloadSecret: string;
  blobs: BlobStore;
  defaultOrg: Organization;
  /** A key made because the database was new and no TYCHO_API_KEY was given; shown once. */
  firstKey: string | undefined;
  /** Closes the store and removes a temporary data directory. */
  close(): Promise<void>;
}

/** The database could not be opened or migrated; the message says why. */
export class DatabaseOpenError extends Error {}

/** Temporary data directories of throw-away databases, removed at exit if nobody closed their runtime. */
const temporaryDirs = new Set<string>();
let exitHookInstalled = false;

function temporaryDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tycho-data-'));
  temporaryDirs.add(dir);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const path of temporaryDirs) rmSync(path, { recursive: true, force: true });
    });
  }
  return dir;
}

function removeTemporaryDir(dir: string): void {
  temporaryDirs.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * `firstKey`: make a key when the database is new (the server does; CLI commands make their own). `serving`:
 * open the database as a long-running server does (store/open-store.ts).
 */
export async function openRuntime(config: Config, options: { firstKey?: boolean; serving?: ServingOptions } = {}): Promise<Runtime> {
  let store: Store;
  try {
    store = await openStore(config.database, options.serving);
  } catch (error) {
    throw new DatabaseOpenError((error as Error).message || String(error));
  }
  try {
    const cursorSecret = await store.settings.getOrInsert('cursor_secret', randomBytes(32).toString('hex'));
    const downloadSecret = await store.settings.getOrInsert('download_secret', randomBytes(32).toString('hex'));
    const { organization, created } = await ensureOrganization(store, DEFAULT_ORG_NAME);
    let firstKey: string | undefined;
    if (config.adminKey !== undefined) await ensureApiKey(store, organization.id, config.adminKey, undefined, true);
    if (config.apiKey !== undefined) {
      await ensureApiKey(store, organization.id, config.apiKey);
    } else if (created && options.firstKey) {
      firstKey = (await createApiKey(store, organization.id, { name: 'first key' })).token;
    }
    // A throw-away database's uploads must not outlive it in ./data.
    const temporary = config.blobs.kind === 'local' && config.blobs.dir === undefined ? temporaryDataDir() : undefined;
    // The AWS SDK loads only when a bucket is configured (it adds most of a second to every start).
    const bucket = config.blobs.kind === 's3' ? (await import('./store/s3-blob-store.ts')).s3BlobStore(config.blobs) : undefined;
    const blobs = bucket ?? localBlobStore(config.blobs.kind === 'local' && config.blobs.dir !== undefined ? config.blobs.dir : join(temporary!, 'blobs'));
    const close = async () => {
      try {
        await store.close();
      } finally {
        bucket?.close();
        if (temporary) removeTemporaryDir(temporary);
      }
    };
    return { store, cursorSecret, downloadSecret, blobs, defaultOrg: organization, firstKey, close };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * The application options that come from the runtime and the configuration. `senders` send what falls due
 * when an organization's clock is advanced; by default webhooks go out over HTTP and program messages to the
 * local outbox (`serve` passes its SMTP mailer).
 */
export function appOptions(runtime: Runtime, config: Config, senders: DueWorkSenders = { webhookSender: httpWebhookSender(config.webhookUrls) }): AppOptions {
  return {
    store: runtime.store,
    cursorSecret: runtime.cursorSecret,
    downloadSecret: runtime.downloadSecret,
    blobs: runtime.blobs,
    uploadLimit: config.uploadLimit,
    bodyLimit: config.bodyLimit,
    requestTimeout: config.requestTimeout,
    logLevel: config.logLevel,
    journalSize: config.journalSize,
    corsOrigins: config.corsOrigins,
    webhookUrls: config.webhookUrls,
    dueWork: dueWork({ ...senders, ...(config.mailFrom ? { mailFrom: config.mailFrom } : {}) }),
  };
}
