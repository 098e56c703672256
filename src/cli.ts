// The operator commands (`tycho keys …`, `tycho orgs list`, `tycho blobs sweep`): each takes the store (and the
// blob store) and its parsed arguments and returns the lines to print. Argument parsing and exit codes stay in main.ts.
// The calendar, CSV/NDJSON and progress-bar code loads with the commands that use it (`await import`): `serve`
// imports this module too, and a server should not hold what only a one-off command needs.
import { createApiKey, revokeApiKey } from './domain/api-keys.ts';
import { AppError } from './domain/errors.ts';
import { DEFAULT_ORG_NAME, ensureOrganization, type Organization } from './domain/organizations.ts';
import { createInbox } from './domain/inboxes.ts';
import { createProgram, createTemplate, PROGRAM_STATUSES, PROGRAM_TRIGGERS, type ProgramInput } from './domain/programs.ts';
import type { Store } from './domain/ports/store.ts';
import type { BlobStore } from './domain/ports/blob-store.ts';
import { sweepBlobs } from './domain/blob-sweep.ts';
import { recordMeetingsHeld, saveMeeting } from './domain/meetings.ts';
import type { Principal } from './domain/api-keys.ts';
import { allSandboxes, createSandbox, removeSandbox } from './domain/sandboxes.ts';
import { deleteSnapshot, listSnapshots, resetOrganization, restoreSnapshot, saveSnapshot } from './domain/snapshots.ts';
import { open, readFile, stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { BulkFormat } from './bulk/export.ts';

/** `createOrg`: an `org` that does not exist is created; without it a mistyped name is refused. */
export async function keysCreate(
  store: Store,
  options: { org?: string; createOrg?: boolean; readOnly: boolean; admin?: boolean; name?: string },
): Promise<string[]> {
  const { organization, created } = options.createOrg
    ? await ensureOrganization(store, options.org ?? DEFAULT_ORG_NAME)
    : { organization: await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, 'or pass --create-org to create it'), created: false };
  const { key, token } = await createApiKey(store, organization.id, { name: options.name ?? null, readOnly: options.readOnly, admin: options.admin === true });
  const lines = created ? [`Created organization "${organization.name}" (${organization.id}) with its system collections.`] : [];
  lines.push(`Created ${key.readOnly ? 'read-only' : key.admin ? 'admin' : 'read-write'} API key ${key.prefix}… for organization "${organization.name}". It is shown only once:`);
  lines.push(token);
  return lines;
}

export async function keysList(store: Store, options: { org?: string }): Promise<string[]> {
  const orgs = await store.organizations.list();
  const byId = new Map(orgs.map((o) => [o.id, o]));
  let orgId: string | undefined;
  if (options.org !== undefined) orgId = findOrg(orgs, options.org).id;
  const keys = await store.apiKeys.list(orgId);
  return table(
    ['PREFIX', 'NAME', 'ORGANIZATION', 'ACCESS', 'CREATED', 'STATUS'],
    keys.map((k) => [
      k.prefix,
      k.name ?? '-',
      byId.get(k.orgId)?.name ?? k.orgId,
      k.readOnly ? 'read' : k.admin ? 'admin' : 'read-write',
      k.createdAt,
      k.revokedAt ? `revoked ${k.revokedAt}` : 'active',
    ]),
  );
}

export async function keysRevoke(store: Store, prefix: string): Promise<string[]> {
  const key = await revokeApiKey(store, prefix);
  return [`Revoked API key ${key.prefix}…${key.name ? ` (${key.name})` : ''}.`];
}

export async function inboxesCreate(store: Store, options: { org?: string; name: string; email: string }): Promise<string[]> {
  const organization = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, 'or create it with: tycho keys create --org NAME --create-org');
  const inbox = await createInbox(store, organization.id, { name: options.name, email: options.email });
  return [`Created inbox "${inbox.name}" <${inbox.email}> in organization "${organization.name}":`, inbox.id];
}

const oneOf = <T extends string>(values: readonly T[], value: string | undefined, option: string): T | undefined => {
  if (value === undefined) return undefined;
  if (!(values as readonly string[]).includes(value)) throw new AppError('validation_failed', `${option} must be one of ${values.join(', ')}, got "${value}"`);
  return value as T;
};

export async function programsCreate(
  store: Store,
  options: { org?: string; name?: string; status?: string; trigger?: string; trackOpens: boolean; trackClicks: boolean },
): Promise<string[]> {
  const organization = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, 'or create it with: tycho keys create --org NAME --create-org');
  const input: ProgramInput = { track_opens: options.trackOpens, track_clicks: options.trackClicks };
  if (options.name !== undefined) input.display_name = options.name;
  const status = oneOf(PROGRAM_STATUSES, options.status, '--status');
  const trigger = oneOf(PROGRAM_TRIGGERS, options.trigger, '--trigger');
  if (status) input.status = status;
  if (trigger) input.trigger = trigger;
  const program = await createProgram(store, organization.id, input);
  return [`Created ${program.status} program (trigger ${program.trigger}) in organization "${organization.name}":`, program.id];
}

export async function templatesCreate(store: Store, options: { org?: string; program: string; subject: string; body: string }): Promise<string[]> {
  const organization = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, 'or create it with: tycho keys create --org NAME --create-org');
  const template = await createTemplate(store, organization.id, { program_id: options.program, subject: options.subject, body: { markdown: options.body } });
  return [`Created the template of program ${template.programId}:`, template.id];
}

/**
 * Creates or updates (by UID) one meeting per event of the .ics file, then records `meeting_held` for those
 * already over. Events are saved one by one: a refused event stops the import, and running it again is safe.
 */
export async function meetingsImport(store: Store, options: { org?: string; file: string }): Promise<string[]> {
  const organization = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, 'or create it with: tycho keys create --org NAME --create-org');
  let text: string;
  try {
    text = await readFile(options.file, 'utf8');
  } catch (error) {
    throw new AppError('bad_request', `cannot read ${options.file}: ${(error as Error).message}`);
  }
  const { CalendarError, readCalendar } = await import('./ical.ts');
  let calendar;
  try {
    calendar = readCalendar(text);
  } catch (error) {
    if (error instanceof CalendarError) throw new AppError('bad_request', `${options.file}: ${error.message}`);
    throw error;
  }
  const lines = calendar.skipped.map((why) => `Skipped ${why}.`);
  let created = 0;
  for (const event of calendar.events) {
    let saved;
    try {
      saved = await saveMeeting(store, organization.id, event);
    } catch (error) {
      if (error instanceof AppError) {
        const at = error.source?.pointer ? ` (at ${error.source.pointer})` : '';
        throw new AppError(error.code, `event ${event.i_cal_uid}: ${error.detail ?? error.code}${at}; the events before it were imported`);
      }
      throw error;
    }
    if (saved.created) created++;
    lines.push(`${saved.created ? 'Created' : 'Updated'} meeting ${saved.meeting.id} ${JSON.stringify(saved.meeting.title ?? saved.meeting.iCalUid)} (${event.i_cal_uid})`);
  }
  await recordMeetingsHeld(store, undefined, organization.id);
  const updated = calendar.events.length - created;
  lines.push(`Imported ${calendar.events.length} meeting${calendar.events.length === 1 ? '' : 's'} into organization "${organization.name}": ${created} created, ${updated} updated.`);
  return lines;
}

/** Removes blobs no row names that are older than `minutes` (see domain/blob-sweep.ts). */
export async function blobsSweep(store: Store, blobs: BlobStore, options: { minutes: number; now: Date }): Promise<string[]> {
  const cutoff = new Date(options.now.getTime() - options.minutes * 60_000);
  const { removed, kept } = await sweepBlobs(store, blobs, cutoff);
  return [...removed.map((key) => `removed ${key}`), `${removed.length} unreferenced blob(s) removed, ${kept} kept`];
}

export async function orgsList(store: Store): Promise<string[]> {
  const orgs = await store.organizations.list();
  const keys = await store.apiKeys.list();
  return table(
    ['ID', 'NAME', 'CREATED', 'ACTIVE KEYS'],
    orgs.map((o) => [o.id, o.name, o.createdAt, String(keys.filter((k) => k.orgId === o.id && !k.revokedAt).length)]),
  );
}

async function existingOrg(store: Store, name: string, remedy: string): Promise<Organization> {
  return findOrg(await store.organizations.list(), name, remedy);
}

/** Refuses a collection (id or ref) the organization does not have, naming the refs it has. */
async function checkCollections(store: Store, organization: Organization, keys: string[]): Promise<void> {
  for (const key of keys) {
    if (await store.collections.find(organization.id, key)) continue;
    const refs = await store.collections.refs(organization.id);
    throw new AppError('not_found', `organization ${JSON.stringify(organization.name)} has no collection ${JSON.stringify(key)}; its collections are ${refs.map((r) => JSON.stringify(r)).join(', ')}`);
  }
}

/** The organization named `name`; a name that matches none is refused with the names that exist. */
function findOrg(orgs: Organization[], name: string, remedy?: string): Organization {
  const wanted = name.trim();
  const org = orgs.find((o) => o.name === wanted);
  if (org) return org;
  const shown = orgs.slice(0, 20).map((o) => JSON.stringify(o.name));
  if (orgs.length > shown.length) shown.push(`and ${orgs.length - shown.length} more (see: tycho orgs list)`);
  const names = shown.join(', ');
  throw new AppError('not_found', `no organization is named ${JSON.stringify(name)}; the organizations are ${names}${remedy ? ` (use one of them, ${remedy})` : ''}`);
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

const CREATE_ORG = 'or create it with: tycho keys create --org NAME --create-org';

/** The operator at the command line: acts as an admin key of the organization. */
function operator(orgId: string): Principal {
  return { orgId, scope: 'write', actor: { id: 'cli', type: 'api_key' }, admin: true };
}

export async function sandboxesCreate(store: Store, blobs: BlobStore, options: { name?: string; snapshot?: string; from?: string }): Promise<string[]> {
  const source = await existingOrg(store, options.from ?? DEFAULT_ORG_NAME, CREATE_ORG);
  const input = { ...(options.name !== undefined ? { name: options.name } : {}), ...(options.snapshot !== undefined ? { snapshot: options.snapshot } : {}) };
  const sandbox = await createSandbox(store, blobs, operator(source.id), input);
  const from = sandbox.snapshot ? ` from snapshot "${sandbox.snapshot.name}" of "${source.name}"` : '';
  return [`Created sandbox "${sandbox.organization.name}" (${sandbox.organization.id})${from}. Its API key is shown only once:`, sandbox.apiKey!];
}

export async function sandboxesList(store: Store): Promise<string[]> {
  const sandboxes = await allSandboxes(store);
  return table(['ID', 'NAME', 'CREATED'], sandboxes.map((o) => [o.id, o.name, o.createdAt]));
}

export async function sandboxesDelete(store: Store, blobs: BlobStore, name: string): Promise<string[]> {
  const org = await existingOrg(store, name, 'see: tycho sandboxes list');
  await removeSandbox(store, blobs, org.id);
  return [`Deleted sandbox "${org.name}" (${org.id}) with its data, keys, snapshots and files.`];
}

export async function snapshotsSave(store: Store, blobs: BlobStore, options: { org?: string; name: string }): Promise<string[]> {
  const org = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, CREATE_ORG);
  const snapshot = await saveSnapshot(store, blobs, org.id, options.name);
  return [`Saved snapshot "${snapshot.name}" of organization "${org.name}" (${snapshot.rows} rows).`];
}

export async function snapshotsList(store: Store, options: { org?: string }): Promise<string[]> {
  const org = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, CREATE_ORG);
  return table(['NAME', 'ROWS', 'CREATED'], (await listSnapshots(store, org.id)).map((s) => [s.name, String(s.rows), s.createdAt]));
}

export async function snapshotsRestore(store: Store, blobs: BlobStore, options: { org?: string; name: string }): Promise<string[]> {
  const org = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, CREATE_ORG);
  const snapshot = await restoreSnapshot(store, blobs, org.id, options.name).catch(notFoundAs(`organization "${org.name}" has no snapshot named "${options.name}" (see: tycho snapshots list)`));
  return [`Restored organization "${org.name}" to snapshot "${snapshot.name}" of ${snapshot.createdAt}.`];
}

export async function snapshotsDelete(store: Store, blobs: BlobStore, options: { org?: string; name: string }): Promise<string[]> {
  const org = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, CREATE_ORG);
  await deleteSnapshot(store, blobs, org.id, options.name).catch(notFoundAs(`organization "${org.name}" has no snapshot named "${options.name}" (see: tycho snapshots list)`));
  return [`Deleted snapshot "${options.name}" of organization "${org.name}".`];
}

export async function reset(store: Store, blobs: BlobStore, options: { org?: string }): Promise<string[]> {
  const org = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, CREATE_ORG);
  await resetOrganization(store, blobs, org.id);
  return [`Reset organization "${org.name}": every record and file deleted; its system collections, keys and snapshots remain.`];
}

/** A bare 404 from the domain, told in words. */
function notFoundAs(detail: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof AppError && error.code === 'not_found') throw new AppError('not_found', detail);
    throw error;
  };
}

/** `tycho seed --demo`: realistic CRM data in an existing organization, with a progress callback. */
export async function seedDemoData(
  store: Store,
  options: { org?: string; size: number; seed: number; progress?: (done: number, total: number) => void },
): Promise<string[]> {
  const org = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, CREATE_ORG);
  // The fake-data library is large: only `tycho seed` loads it, not every command and not the server.
  const { seedDemo } = await import('./demo-seed.ts');
  const made = await seedDemo(store, operator(org.id), { size: options.size, seed: options.seed, ...(options.progress ? { progress: options.progress } : {}) });
  return [
    `Seeded organization "${org.name}" (seed ${options.seed}): ${made.companies} companies, ${made.people} people, ${made.deals} deals, ` +
      `${made.tasks} tasks, ${made.notes} notes, 1 tagset, an inbox with ${made.conversations} conversations, and their activity.`,
  ];
}

/** `tycho export`: items to FILE (or standard output), with a progress counter on standard error. */
export async function exportCommand(
  store: Store,
  options: { org?: string; collections: string[]; format: BulkFormat; output?: string },
  streams: { stdout: Writable; stderr: Writable },
): Promise<string[]> {
  const organization = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, 'see: tycho orgs list');
  await checkCollections(store, organization, options.collections);
  const [{ exportItems }, { progressBar }] = await Promise.all([import('./bulk/export.ts'), import('./bulk/progress.ts')]);
  // Opened before anything is read, so that a path that cannot be written fails as this command's error.
  const file = options.output ? await open(options.output, 'w') : undefined;
  const out = file ? file.createWriteStream() : streams.stdout;
  let failed: Error | undefined;
  out.on('error', (error: Error) => (failed ??= error));
  const progress = progressBar(streams.stderr, 'exported', 'items');
  try {
    const count = await exportItems(store, { orgId: organization.id, collections: options.collections, format: options.format, out, progress: progress.update });
    if (failed) throw failed;
    return [`Exported ${count} items of organization "${organization.name}" as ${options.format.toUpperCase()}${options.output ? ` to ${options.output}` : ''}.`];
  } finally {
    progress.stop();
    if (file) await new Promise<void>((resolve) => out.end(() => resolve()));
  }
}

/**
 * `tycho import`: items from FILE, in batches that are each written whole or not at all. Refused rows are
 * listed as `line N: <status> <code>: <pointer> <message>`; the exit code is 3 when there were any.
 */
export async function importCommand(
  store: Store,
  options: { org?: string; file: string; collection?: string; format?: BulkFormat; identifier?: string; batchSize: number },
  stderr: Writable,
): Promise<{ lines: string[]; code: number }> {
  const organization = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, 'or create it with: tycho keys create --org NAME --create-org');
  if (options.collection !== undefined) await checkCollections(store, organization, [options.collection]);
  const format = options.format ?? (options.file.toLowerCase().endsWith('.csv') ? 'csv' : 'ndjson');
  let size: number;
  try {
    size = (await stat(options.file)).size;
  } catch (error) {
    throw new AppError('bad_request', `cannot read ${options.file}: ${(error as Error).message}`);
  }
  const [{ importItems }, { progressBar }] = await Promise.all([import('./bulk/import.ts'), import('./bulk/progress.ts')]);
  const input = createReadStream(options.file);
  const lines: string[] = [];
  const progress = progressBar(stderr, 'imported', 'bytes', size);
  try {
    const result = await importItems(store, {
      orgId: organization.id,
      format,
      input,
      batchSize: options.batchSize,
      ...(options.collection ? { collection: options.collection } : {}),
      ...(options.identifier ? { identifier: options.identifier } : {}),
      reject: (line, message) => lines.push(`line ${line}: ${message}`),
      progress: () => progress.update(input.bytesRead),
    });
    lines.push(`Imported into organization "${organization.name}": ${result.created} created, ${result.updated} updated, ${result.rejected} rejected.`);
    return { lines, code: result.rejected > 0 ? 3 : 0 };
  } finally {
    progress.stop();
    input.destroy();
  }
}
