// The sweeper of unreferenced blobs (`tycho blobs sweep`). Contents are stored before their row is committed,
// and removed when the row fails; only a process that dies in between (or a store that fails while an
// upload's contents are being taken back) leaves a blob that no row names. Blobs younger than the cut-off are
// left alone, as their row may still be about to commit.
import type { BlobStore } from './ports/blob-store.ts';
import type { Store } from './ports/store.ts';

export interface SweepResult {
  /** Blobs no row names, removed. */
  removed: string[];
  /** Blobs examined and kept: named by their row, younger than the cut-off, or not made by Tycho. */
  kept: number;
}

/** The row a Tycho blob key belongs to: `<org>/<id>` is a file's, `<org>/attachments/<id>` an attachment's. */
function ownerOf(key: string): { table: 'files' | 'attachments'; orgId: string; id: string } | undefined {
  const parts = key.split('/');
  if (parts.length === 2) return { table: 'files', orgId: parts[0]!, id: parts[1]! };
  if (parts.length === 3 && parts[1] === 'attachments') return { table: 'attachments', orgId: parts[0]!, id: parts[2]! };
  return undefined;
}

/** Removes the blobs stored before `cutoff` that no file or attachment row names. */
export async function sweepBlobs(store: Store, blobs: BlobStore, cutoff: Date): Promise<SweepResult> {
  const result: SweepResult = { removed: [], kept: 0 };
  for await (const blob of blobs.list()) {
    const owner = ownerOf(blob.key);
    const row = owner && blob.storedAt < cutoff ? await store[owner.table].find(owner.orgId, owner.id) : undefined;
    if (!owner || blob.storedAt >= cutoff || row?.blobKey === blob.key) {
      result.kept++;
      continue;
    }
    await blobs.delete(blob.key);
    result.removed.push(blob.key);
  }
  return result;
}
