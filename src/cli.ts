// The operator commands (`tycho keys …`, `tycho orgs list`): each takes the store and its parsed arguments
// and returns the lines to print. Argument parsing and exit codes stay in main.ts.
import { createApiKey, revokeApiKey } from './domain/api-keys.ts';
import { AppError } from './domain/errors.ts';
import { DEFAULT_ORG_NAME, ensureOrganization, type Organization } from './domain/organizations.ts';
import { createInbox } from './domain/inboxes.ts';
import type { Store } from './store/store.ts';

export async function keysCreate(
  store: Store,
  options: { org?: string; readOnly: boolean; name?: string },
): Promise<string[]> {
  const { organization, created } = await ensureOrganization(store, options.org ?? DEFAULT_ORG_NAME);
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
  const { organization } = await ensureOrganization(store, options.org ?? DEFAULT_ORG_NAME);
  const inbox = await createInbox(store, organization.id, { name: options.name, email: options.email });
  return [`Created inbox "${inbox.name}" <${inbox.email}> in organization "${organization.name}":`, inbox.id];
}

export async function orgsList(store: Store): Promise<string[]> {
  const orgs = await store.organizations.list();
  const keys = await store.apiKeys.list();
  return table(
    ['ID', 'NAME', 'CREATED', 'ACTIVE KEYS'],
    orgs.map((o) => [o.id, o.name, o.createdAt, String(keys.filter((k) => k.orgId === o.id && !k.revokedAt).length)]),
  );
}

function findOrg(orgs: Organization[], name: string): Organization {
  const org = orgs.find((o) => o.name === name);
  if (!org) throw new AppError('not_found', `no organization is named "${name}" (see: tycho orgs list)`);
  return org;
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}
