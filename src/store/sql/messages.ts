// Row mappings of inbox conversations, messages and attachments.
import type { Attachment, Conversation, Message } from '../../domain/inbox-messages.ts';
import { columnMapping, type RecordMapping } from './records.ts';

const conversationColumns = columnMapping<Conversation>({ booleans: ['draft'] });

/** Conversations written by earlier versions may lack `last_message_at`; they read as their creation time. */
export const conversationMapping: RecordMapping<Conversation> = {
  toModel(row) {
    const conversation = conversationColumns.toModel(row);
    return { ...conversation, lastMessageAt: conversation.lastMessageAt ?? conversation.createdAt };
  },
  toRow: conversationColumns.toRow,
};
export const messageMapping = columnMapping<Message>({ json: ['addresses'], booleans: ['draft'], renames: { body: 'markdown' } });
export const attachmentMapping = columnMapping<Attachment>();
