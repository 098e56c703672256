// Row mappings of inbox conversations, messages and attachments.
import type { Attachment, Conversation, Message } from '../../domain/inbox-messages.ts';
import { columnMapping } from './records.ts';

export const conversationMapping = columnMapping<Conversation>({ booleans: ['draft'] });
export const messageMapping = columnMapping<Message>({ json: ['addresses'], booleans: ['draft'], renames: { body: 'markdown' } });
export const attachmentMapping = columnMapping<Attachment>();
