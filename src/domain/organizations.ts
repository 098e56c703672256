// Organizations (tenants): every API key, collection and item belongs to exactly one. A new organization is
// born with the system collections.
import { AppError, invalidAt } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { createCollectionWithFields } from './collections.ts';
import { SYSTEM_COLLECTIONS } from './system-collections.ts';
import type { Store } from './ports/store.ts';

export interface Organization {
  id: string;
  name: string;
  createdAt: string;
  /** Made by the toolkit as a sandbox: its own keys may reset it, snapshot it and set its clock. */
  sandbox?: boolean;
  /** A sandbox's: the organization whose admin key made it (the only one whose admin keys manage it). */
  parentId?: string;
  /** A sandbox's: the name of the snapshot it was cloned from. */
  snapshotName?: string;
}

export const DEFAULT_ORG_NAME = 'default';

/** An organization name, trimmed; `pointer` names it in a request body (a sandbox's `/name`). */
export function checkOrganizationName(name: string, pointer?: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 100) {
    const detail = `organization name must be 1 to 100 characters, not blank; got ${trimmed.length} after trimming spaces`;
    throw pointer === undefined ? new AppError('validation_failed', detail) : invalidAt(pointer, detail);
  }
  return trimmed;
}

/** The organization of that name, created (with its system collections) when it does not exist yet. */
export async function ensureOrganization(
  store: Store,
  name: string,
  clock?: Clock,
): Promise<{ organization: Organization; created: boolean }> {
  const orgName = checkOrganizationName(name);
  return store.transaction(async (tx) => {
    // Two processes starting on one new database: one creates the organization, the other finds it.
    await tx.lock([`organization-name:${orgName}`]);
    const existing = await tx.organizations.findByName(orgName);
    if (existing) return { organization: existing, created: false };
    const organization: Organization = { id: newId(), name: orgName, createdAt: timestamp(clock) };
    await tx.organizations.insert(organization);
    for (const spec of SYSTEM_COLLECTIONS) {
      await createCollectionWithFields(tx, organization.id, spec, clock);
    }
    return { organization, created: true };
  });
}
