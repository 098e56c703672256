// Files: uploaded contents (kept in a blob store) with a display name and item associations. Creation
// records `activity/file_created`. Downloads go through short-lived signed URLs (see downloads.ts).
import { invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { recordWrite } from './activity.ts';
import { ASSOCIATION, checkItemAssociations, itemLinkTargets, withItemAssociations, type ItemAssociation } from './associations.ts';
import type { Principal } from './api-keys.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { BlobStore } from './ports/blob-store.ts';
import type { Store } from './ports/store.ts';
import type { Readable } from 'node:stream';
import { longerThan } from './characters.ts';

export interface StoredFile {
  id: string;
  orgId: string;
  name: string;
  filename: string;
  contentType: string;
  size: number;
  blobKey: string;
  associations: ItemAssociation[];
  createdAt: string;
  updatedAt: string;
}

/** A file's name as global search compares it: lower-cased by every script's rules (SQL's lower() folds ASCII only). */
export const fileNameKey = (name: string): string => name.toLowerCase();

export interface Upload {
  filename: string;
  contentType: string;
  content: ReceivedContent;
  name?: string;
  associations?: { type: string; id: string }[];
}

/** An upload's contents, already stored under `key`; `id` is the id of the row that will name them. */
export interface ReceivedContent {
  id: string;
  key: string;
  size: number;
}

/**
 * Where an upload's contents go while its request is still being read, and how they are taken back when the
 * request or its row fails. Contents are stored before their row is committed, never after, so a row always
 * has its bytes; a process that dies in between leaves an unreferenced blob (`tycho blobs sweep` removes it).
 */
export interface ContentSink {
  receive(data: Readable): Promise<ReceivedContent>;
  discard(content: ReceivedContent): Promise<void>;
}

/** Contents of new files (`<org>/<id>`) or message attachments (`<org>/attachments/<id>`). */
export function contentSink(blobs: BlobStore, orgId: string, kind: 'file' | 'attachment'): ContentSink {
  return {
    async receive(data) {
      const id = newId();
      const key = kind === 'file' ? `${orgId}/${id}` : `${orgId}/attachments/${id}`;
      return { id, key, size: await blobs.put(key, data) };
    },
    discard: (content) => discardContent(blobs, content),
  };
}

/** Removes received contents; a store failing meanwhile is not the client's error, so nothing is thrown. */
export async function discardContent(blobs: BlobStore, content: { key: string }): Promise<void> {
  await blobs.delete(content.key).catch(() => undefined);
}

export async function createFile(store: Store, blobs: BlobStore, principal: Principal, upload: Upload, clock?: Clock): Promise<StoredFile> {
  const filename = upload.filename.trim() || 'upload';
  const { id, key: blobKey, size } = upload.content;
  // The contents are stored already; if the transaction fails they are removed again, so nothing is left behind.
  try {
    return await store.transaction(async (tx) => {
      const now = timestamp(clock);
      const name = upload.name?.trim() || filename;
      if (longerThan(name, 255)) throw invalidAt('/name', 'name must be at most 255 characters');
      const file: StoredFile = {
        id,
        orgId: principal.orgId,
        name,
        filename,
        contentType: upload.contentType || 'application/octet-stream',
        size,
        blobKey,
        associations: await checkItemAssociations(tx, principal.orgId, upload.associations ?? [], 'files'),
        createdAt: now,
        updatedAt: now,
      };
      await tx.files.insert(file);
      await tx.links.replace(file.orgId, 'file', file.id, ASSOCIATION, itemLinkTargets(file.associations));
      await recordWrite(tx, principal, 'activity/file_created', now, { id: file.id, type: 'file' }, file.associations);
      return file;
    });
  } catch (error) {
    await discardContent(blobs, upload.content);
    throw error;
  }
}

export async function getFile(store: Store, orgId: string, id: string): Promise<StoredFile> {
  const [file] = await withItemAssociations(store, orgId, 'file', [await orNotFound(store.files.find(orgId, id))]);
  return file!;
}

export async function listFiles(store: Store, orgId: string, page: PageRequest): Promise<Page<StoredFile>> {
  const found = await store.files.list(orgId, page);
  return { ...found, rows: await withItemAssociations(store, orgId, 'file', found.rows) };
}

/**
 * Deletes the row and its contents. The contents go last, inside the transaction: a store that fails rolls the
 * row back (503, retry), and a transaction run again deletes them again, which is no error.
 */
export async function deleteFile(store: Store, blobs: BlobStore, orgId: string, id: string): Promise<void> {
  await store.transaction(async (tx) => {
    const found = await getFile(tx, orgId, id);
    await tx.files.delete(orgId, id);
    await tx.links.deleteEntity(orgId, 'file', id);
    await blobs.delete(found.blobKey);
  });
}
