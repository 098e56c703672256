// The operator commands (`tycho keys …`, `tycho orgs list`): each takes the store and its parsed arguments
// and returns the lines to print. Argument parsing and exit codes stay in main.ts.
import { createApiKey, revokeApiKey } from './domain/api-keys.ts';
import { AppError } from './domain/errors.ts';
import { DEFAULT_ORG_NAME, ensureOrganization, type Organization } from './domain/organizations.ts';
import { createInbox } from './domain/inboxes.ts';
import type { Store } from './domain/ports/store.ts';
import { recordMeetingsHeld, saveMeeting } from './domain/meetings.ts';
import { CalendarError, readCalendar } from './ical.ts';
import { readFile, stat } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import { exportItems, type BulkFormat } from './bulk/export.ts';
import { importItems } from './bulk/import.ts';
import { progressBar } from './bulk/progress.ts';

/** `createOrg`: an `org` that does not exist is created; without it a mistyped name is refused. */
export async function keysCreate(
  store: Store,
  options: { org?: string; createOrg?: boolean; readOnly: boolean; name?: string },
): Promise<string[]> {
  const { organization, created } = options.createOrg
    ? await ensureOrganization(store, options.org ?? DEFAULT_ORG_NAME)
    : { organization: await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, 'or pass --create-org to create it'), created: false };
  const { key, token } = await createApiKey(store, organization.id, { name: options.name ?? null, readOnly: options.readOnly });
  const lines = created ? [`Created organization "${organization.name}" (${organization.id}) with its system collections.`] : [];
  lines.push(`Created ${key.readOnly ? 'read-only' : 'read-write'} API key ${key.prefix}… for organization "${organization.name}". It is shown only once:`);
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
      k.readOnly ? 'read' : 'read-write',
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

/** `tycho export`: items to FILE (or standard output), with a progress counter on standard error. */
export async function exportCommand(store: Store, options: { org?: string; collections: string[]; format: BulkFormat; output?: string }): Promise<string[]> {
  const organization = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, 'see: tycho orgs list');
  const out = options.output ? createWriteStream(options.output) : process.stdout;
  const progress = progressBar('exported', 'items');
  try {
    const count = await exportItems(store, { orgId: organization.id, collections: options.collections, format: options.format, out, progress: progress.update });
    return [`Exported ${count} items of organization "${organization.name}" as ${options.format.toUpperCase()}${options.output ? ` to ${options.output}` : ''}.`];
  } finally {
    progress.stop();
    if (out !== process.stdout) await new Promise<void>((resolve) => out.end(() => resolve()));
  }
}

/**
 * `tycho import`: items from FILE, in batches that are each written whole or not at all. Refused rows are
 * listed as `line N: <status> <code>: <pointer> <message>`; the exit code is 3 when there were any.
 */
export async function importCommand(
  store: Store,
  options: { org?: string; file: string; collection?: string; format?: BulkFormat; identifier?: string; batchSize: number },
): Promise<{ lines: string[]; code: number }> {
  const organization = await existingOrg(store, options.org ?? DEFAULT_ORG_NAME, 'or create it with: tycho keys create --org NAME --create-org');
  const format = options.format ?? (options.file.toLowerCase().endsWith('.csv') ? 'csv' : 'ndjson');
  let size: number;
  try {
    size = (await stat(options.file)).size;
  } catch (error) {
    throw new AppError('bad_request', `cannot read ${options.file}: ${(error as Error).message}`);
  }
  const input = createReadStream(options.file);
  const lines: string[] = [];
  const progress = progressBar('imported', 'bytes', size);
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
