// Sandboxes: throw-away organizations for tests, made by an admin key, empty or cloned from a snapshot of
// the key's organization or of one of its sandboxes, each with its own API key. A sandbox belongs to the
// organization whose admin key made it: only that organization's admin keys see and delete it; to any other
// key it does not exist. Deleting one removes everything it owns, files' bytes included. A clone's webhook
// endpoints come disabled, so that a test's events do not reach the receivers of the organization cloned.
import { AppError, invalidAt } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { createApiKey, type Principal } from './api-keys.ts';
import { checkOrganizationName, type Organization } from './organizations.ts';
import { createCollectionWithFields } from './collections.ts';
import { SYSTEM_COLLECTIONS } from './system-collections.ts';
import { renameIds } from './id-remap.ts';
import { checkSnapshotName, requireAdmin, snapshotBlob, type Snapshot } from './snapshots.ts';
import type { BlobStore } from './ports/blob-store.ts';
import type { Store } from './ports/store.ts';
import { disableAllEndpoints } from './webhook-endpoints.ts';

export interface SandboxInput {
  name?: string;
  /** A snapshot of `organization_id` to clone. */
  snapshot?: string;
  /** The snapshot's organization: the admin key's own (the default) or one of its sandboxes. */
  organization_id?: string;
}

export interface Sandbox {
  organization: Organization;
  snapshot: Snapshot | null;
  /** The sandbox's read-write API key; shown once. */
  apiKey?: string;
}

export async function createSandbox(store: Store, blobs: BlobStore, principal: Principal, input: SandboxInput, clock?: Clock): Promise<Sandbox> {
  requireAdmin(principal);
  const id = newId();
  const name = input.name === undefined ? `sandbox-${id}` : checkOrganizationName(input.name, '/name');
  if (await store.organizations.findByName(name)) {
    throw new AppError('conflict', `an organization named ${JSON.stringify(name)} already exists; choose another name or leave name out`);
  }
  const organization: Organization = { id, name, createdAt: timestamp(clock), sandbox: true, parentId: principal.orgId };
  let snapshot: Snapshot | null = null;
  let copied: string[] = [];
  let fill = async (tx: Store) => {
    for (const spec of SYSTEM_COLLECTIONS) await createCollectionWithFields(tx, id, spec, clock);
  };
  // Checked with or without a snapshot: an organization_id that names no organization of the key is no error to ignore.
  const sourceId = await snapshotSource(store, principal, input.organization_id);
  if (input.snapshot !== undefined) {
    snapshot = (await store.snapshots.find(sourceId, checkSnapshotName(input.snapshot, '/snapshot'))) ?? null;
    if (!snapshot) {
      throw invalidAt('/snapshot', `organization ${sourceId} has no snapshot named ${JSON.stringify(input.snapshot)}; list them with GET /v0/tycho/snapshots`);
    }
    organization.snapshotName = snapshot.name;
    const from = snapshot;
    const data = await store.snapshots.data(from.id);
    const copy = renameIds(data.tables, sourceId, id);
    // The bytes first, under the copy's new keys; removed again if the rows cannot be written.
    copied = data.blobs.map((key) => copy.rename(key));
    for (const [i, key] of data.blobs.entries()) {
      const bytes = await blobs.get(snapshotBlob(from.id, key));
      if (bytes) await blobs.put(copied[i]!, bytes.stream);
    }
    fill = async (tx) => {
      await tx.orgState.write(copy.tables);
      await disableAllEndpoints(tx, id);
    };
  }
  try {
    const token = await store.transaction(async (tx) => {
      // One organization per name, however many processes create it at once.
      await tx.lock([`organization-name:${name}`]);
      await tx.organizations.insert(organization);
      await fill(tx);
      return (await createApiKey(tx, id, { name: 'sandbox', ...(clock ? { clock } : {}) })).token;
    });
    return { organization, snapshot, apiKey: token };
  } catch (error) {
    for (const key of copied) await blobs.delete(key);
    throw error;
  }
}

/**
 * Whose snapshot a sandbox clones: the admin key's organization, or one of its sandboxes. Any other
 * organization is not the key's to read, and is answered as one that does not exist.
 */
async function snapshotSource(store: Store, principal: Principal, organizationId: string | undefined): Promise<string> {
  if (organizationId === undefined || organizationId === principal.orgId) return principal.orgId;
  const org = await store.organizations.findById(organizationId);
  if (org?.parentId !== principal.orgId) {
    throw invalidAt('/organization_id', `organization_id must be this organization (${principal.orgId}) or one of its sandboxes; no such organization ${JSON.stringify(organizationId)}`);
  }
  return org.id;
}

/** The sandboxes of the admin key's organization, oldest first. */
export async function listSandboxes(store: Store, principal: Principal): Promise<Organization[]> {
  requireAdmin(principal);
  return store.organizations.sandboxesOf(principal.orgId);
}

/** Every sandbox of every organization, for the operator (`tycho sandboxes list`). */
export async function allSandboxes(store: Store): Promise<Organization[]> {
  return (await store.organizations.list()).filter((o) => o.sandbox);
}

/** Deletes a sandbox of the admin key's organization (404 for any other organization). */
export async function deleteSandbox(store: Store, blobs: BlobStore, principal: Principal, id: string): Promise<void> {
  requireAdmin(principal);
  await removeSandbox(store, blobs, id, principal.orgId);
}

/**
 * Deletes the sandbox, its keys, snapshots, journal and clock, and the bytes of its files and snapshots;
 * `parentId` (when given) must be the organization that made it. The operator removes any sandbox.
 */
export async function removeSandbox(store: Store, blobs: BlobStore, id: string, parentId?: string): Promise<void> {
  const keys = await store.transaction(async (tx) => {
    const org = await tx.organizations.findById(id);
    if (!org || (parentId !== undefined && org.parentId !== parentId)) throw new AppError('not_found');
    if (!org.sandbox) throw new AppError('invalid_state', `organization ${id} is not a sandbox; only sandboxes can be deleted`);
    const keys = await tx.orgState.blobKeys(id);
    for (const snapshot of await tx.snapshots.list(id)) {
      for (const key of (await tx.snapshots.data(snapshot.id)).blobs) keys.push(snapshotBlob(snapshot.id, key));
    }
    await tx.orgState.removeOrganization(id);
    return keys;
  }, id);
  for (const key of keys) await blobs.delete(key);
}
