// Attachments of draft messages: added from an upload or as a copy of an existing file, removed again; both
// only while the message is a draft.
import { AppError, invalidAt, notFound } from './errors.ts';
import { timestamp, type Clock } from './clock.ts';
import { everyRecord, getMessage, lockedMessage, type Attachment } from './inbox-messages.ts';
import { contentSink, discardContent, type Upload } from './files.ts';
import type { BlobStore } from './ports/blob-store.ts';
import type { Store } from './ports/store.ts';

const DRAFT_ONLY = 'attachments can only be managed on draft messages';

export async function listAttachments(store: Store, orgId: string, messageId: string): Promise<Attachment[]> {
  return everyRecord(store.attachments, orgId, { messageId });
}

/** The attachments of each message, oldest first. */
export async function attachmentsByMessage(store: Store, orgId: string, messageIds: readonly string[]): Promise<Map<string, Attachment[]>> {
  const byMessage = new Map<string, Attachment[]>(messageIds.map((id) => [id, []]));
  if (messageIds.length === 0) return byMessage;
  for (const a of await everyRecord(store.attachments, orgId, { messageId: messageIds })) byMessage.get(a.messageId)?.push(a);
  return byMessage;
}

/**
 * Adds an uploaded file (its contents already received), or a copy of an existing file (`file_id`), to a
 * draft. Received or copied contents are removed again when the attachment is refused.
 */
export async function addAttachment(
  store: Store,
  blobs: BlobStore,
  orgId: string,
  messageId: string,
  source: { upload: Upload } | { fileId: string },
  clock?: Clock,
): Promise<Attachment> {
  let content = 'upload' in source ? source.upload.content : undefined;
  try {
    const message = await getMessage(store, orgId, messageId);
    if (!message.draft) throw new AppError('invalid_state', DRAFT_ONLY);
    let described: { filename: string; contentType: string };
    if ('fileId' in source) {
      const file = await store.files.find(orgId, source.fileId);
      const data = file && (await blobs.get(file.blobKey));
      if (!file || !data) throw invalidAt('/file_id', `no file has id "${source.fileId}"`);
      content = await contentSink(blobs, orgId, 'attachment').receive(data.stream);
      described = file;
    } else {
      described = source.upload;
    }
    const attachment: Attachment = {
      id: content!.id,
      orgId,
      messageId,
      filename: described.filename || 'attachment',
      contentType: described.contentType || 'application/octet-stream',
      size: content!.size,
      blobKey: content!.key,
      createdAt: timestamp(clock),
    };
    await store.transaction(async (tx) => {
      // Checked again inside the transaction: the draft may have been sent meanwhile.
      if (!(await lockedMessage(tx, orgId, messageId)).draft) throw new AppError('invalid_state', DRAFT_ONLY);
      await tx.attachments.insert(attachment);
    });
    return attachment;
  } catch (error) {
    if (content) await discardContent(blobs, content);
    throw error;
  }
}

/** Removes the attachment, its contents last inside the transaction (as `deleteFile`). */
export async function removeAttachment(store: Store, blobs: BlobStore, orgId: string, messageId: string, id: string): Promise<void> {
  await store.transaction(async (tx) => {
    const message = await lockedMessage(tx, orgId, messageId);
    // A sent message's attachments cannot be managed at all, whichever id is asked for (reference A.10).
    if (!message.draft) throw new AppError('invalid_state', DRAFT_ONLY);
    const found = await tx.attachments.find(orgId, id);
    if (!found || found.messageId !== message.id) throw notFound();
    await tx.attachments.delete(orgId, id);
    await blobs.delete(found.blobKey);
  });
}
