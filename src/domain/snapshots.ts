// Snapshots of an organization's whole state (every row of every table it owns, files' bytes included), saved
// under a name and restored in place: after a restore every id and cursor behaves as it did when the snapshot
// was taken. Reset empties the organization back to its initial state (system collections only). Its API
// keys, clock, snapshots, request journal and Idempotency-Key answers are not state: they survive both.
import { AppError, invalidAt } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { createCollectionWithFields } from './collections.ts';
import { SYSTEM_COLLECTIONS } from './system-collections.ts';
import type { BlobStore } from './ports/blob-store.ts';
import type { Store } from './ports/store.ts';
import type { SnapshotData, SnapshotInfo } from './ports/toolkit-store.ts';
import type { Principal } from './api-keys.ts';

export type Snapshot = SnapshotInfo;

/** Where a snapshot keeps its copy of a file's bytes. */
export const snapshotBlob = (snapshotId: string, key: string) => `snapshots/${snapshotId}/${key}`;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function checkSnapshotName(name: string, pointer = '/name'): string {
  if (!NAME.test(name)) {
    throw invalidAt(pointer, `the snapshot name must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit (such as "baseline"); got ${JSON.stringify(name)}`);
  }
  return name;
}

/**
 * Who may snapshot, restore, reset and set the clock of an organization: an admin key, or any write key of a
 * sandbox. An ordinary key of an ordinary organization cannot wipe it.
 */
export async function requireToolkitAccess(store: Store, principal: Principal): Promise<void> {
  if (principal.admin) return;
  const org = await store.organizations.findById(principal.orgId);
  if (!org?.sandbox) throw new AppError('forbidden');
}

export function requireAdmin(principal: Principal): void {
  if (!principal.admin) throw new AppError('forbidden');
}

export async function findSnapshot(store: Store, orgId: string, name: string): Promise<Snapshot> {
  const snapshot = await store.snapshots.find(orgId, name);
  if (!snapshot) throw new AppError('not_found');
  return snapshot;
}

export const listSnapshots = (store: Store, orgId: string): Promise<Snapshot[]> => store.snapshots.list(orgId);

/** Deletes blobs, ignoring the ones already gone. */
async function deleteBlobs(blobs: BlobStore, keys: Iterable<string>): Promise<void> {
  for (const key of keys) await blobs.delete(key);
}

/** Saves the organization's state under `name`, replacing a snapshot of that name. */
export async function saveSnapshot(store: Store, blobs: BlobStore, orgId: string, name: string, clock?: Clock): Promise<Snapshot> {
  checkSnapshotName(name);
  const id = newId();
  const saved = await store.transaction(async (tx) => {
    const { tables, rows } = await tx.orgState.read(orgId);
    const keys = await tx.orgState.blobKeys(orgId);
    for (const key of keys) {
      const data = await blobs.get(key);
      if (data) await blobs.put(snapshotBlob(id, key), data.stream);
    }
    const previous = await tx.snapshots.find(orgId, name);
    const replaced = previous ? (await tx.snapshots.data(previous.id)).blobs.map((key) => snapshotBlob(previous.id, key)) : [];
    if (previous) await tx.snapshots.delete(previous.id);
    const snapshot: Snapshot = { id, orgId, name, rows, createdAt: timestamp(clock) };
    await tx.snapshots.insert(snapshot, { tables, blobs: keys });
    return { snapshot, replaced };
  }, orgId);
  await deleteBlobs(blobs, saved.replaced);
  return saved.snapshot;
}

export async function deleteSnapshot(store: Store, blobs: BlobStore, orgId: string, name: string): Promise<void> {
  const keys = await store.transaction(async (tx) => {
    const snapshot = await findSnapshot(tx, orgId, name);
    const data = await tx.snapshots.data(snapshot.id);
    await tx.snapshots.delete(snapshot.id);
    return data.blobs.map((key) => snapshotBlob(snapshot.id, key));
  }, orgId);
  await deleteBlobs(blobs, keys);
}

/**
 * Replaces the organization's state by `fill`'s, in one transaction under the organization's exclusive schema
 * lock, then deletes the bytes of the files that are gone.
 */
async function replaceState(store: Store, blobs: BlobStore, orgId: string, fill: (tx: Store) => Promise<Set<string>>): Promise<void> {
  const gone = await store.transaction(async (tx) => {
    const before = await tx.orgState.blobKeys(orgId);
    await tx.orgState.clear(orgId);
    const kept = await fill(tx);
    await tx.orgState.touchSchema(orgId);
    return before.filter((key) => !kept.has(key));
  }, orgId);
  await deleteBlobs(blobs, gone);
}

export async function restoreSnapshot(store: Store, blobs: BlobStore, orgId: string, name: string): Promise<Snapshot> {
  const snapshot = await findSnapshot(store, orgId, name);
  const data: SnapshotData = await store.snapshots.data(snapshot.id);
  // The bytes first: under their own (unique) keys, rewriting them is harmless if the transaction fails.
  for (const key of data.blobs) {
    const bytes = await blobs.get(snapshotBlob(snapshot.id, key));
    if (bytes) await blobs.put(key, bytes.stream);
  }
  await replaceState(store, blobs, orgId, async (tx) => {
    await tx.orgState.write(data.tables);
    return new Set(data.blobs);
  });
  return snapshot;
}

/** Empties the organization: only its system collections remain, as in a new organization. */
export async function resetOrganization(store: Store, blobs: BlobStore, orgId: string, clock?: Clock): Promise<void> {
  await replaceState(store, blobs, orgId, async (tx) => {
    for (const spec of SYSTEM_COLLECTIONS) await createCollectionWithFields(tx, orgId, spec, clock);
    return new Set();
  });
}
