// Row mappings of inbox conversations, messages and attachments.
import type { Attachment, Conversation, Message } from '../../domain/inbox-messages.ts';
import { json, type RecordMapping } from './records.ts';
import type { InboxConversationsTable, InboxMessagesTable, MessageAttachmentsTable } from './schema.ts';

export const conversationMapping: RecordMapping<Conversation, InboxConversationsTable, 'id' | 'inboxId'> = {
  toModel: (r) => ({
    id: r.id,
    orgId: r.org_id,
    inboxId: r.inbox_id,
    subject: r.subject,
    // Written only from Conversation['state'] values.
    state: r.state as Conversation['state'],
    draft: r.draft === 1,
    // Conversations written by earlier versions may lack it; they read as their creation time.
    lastMessageAt: r.last_message_at ?? r.created_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  toRow: (c) => ({
    id: c.id,
    org_id: c.orgId,
    inbox_id: c.inboxId,
    subject: c.subject,
    state: c.state,
    draft: c.draft ? 1 : 0,
    last_message_at: c.lastMessageAt,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  }),
  filters: { id: 'id', inboxId: 'inbox_id' },
};

export const messageMapping: RecordMapping<Message, InboxMessagesTable, 'inboxId' | 'conversationId'> = {
  toModel: (r) => ({
    id: r.id,
    orgId: r.org_id,
    inboxId: r.inbox_id,
    conversationId: r.conversation_id,
    subject: r.subject,
    markdown: r.body,
    draft: r.draft === 1,
    lockVersion: r.lock_version,
    addresses: json.parse(r.addresses),
    createdAt: r.created_at,
    sentAt: r.sent_at,
  }),
  toRow: (m) => ({
    id: m.id,
    org_id: m.orgId,
    inbox_id: m.inboxId,
    conversation_id: m.conversationId,
    subject: m.subject,
    body: m.markdown,
    draft: m.draft ? 1 : 0,
    lock_version: m.lockVersion,
    addresses: json.text(m.addresses),
    created_at: m.createdAt,
    sent_at: m.sentAt,
  }),
  filters: { inboxId: 'inbox_id', conversationId: 'conversation_id' },
};

export const attachmentMapping: RecordMapping<Attachment, MessageAttachmentsTable, 'messageId'> = {
  toModel: (r) => ({
    id: r.id,
    orgId: r.org_id,
    messageId: r.message_id,
    filename: r.filename,
    contentType: r.content_type,
    size: r.size,
    blobKey: r.blob_key,
    createdAt: r.created_at,
  }),
  toRow: (a) => ({
    id: a.id,
    org_id: a.orgId,
    message_id: a.messageId,
    filename: a.filename,
    content_type: a.contentType,
    size: a.size,
    blob_key: a.blobKey,
    created_at: a.createdAt,
  }),
  filters: { messageId: 'message_id' },
};
