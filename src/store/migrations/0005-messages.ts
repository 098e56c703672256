// Inbox conversations, email messages (drafts and sent) and message attachments.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('inbox_conversations')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('inbox_id', t.text, (c) => c.notNull().references('inboxes.id'))
    .addColumn('subject', t.text, (c) => c.notNull())
    .addColumn('state', t.text, (c) => c.notNull())
    .addColumn('draft', t.integer, (c) => c.notNull())
    .addColumn('last_message_at', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('inbox_conversations_org_id').on('inbox_conversations').columns(['org_id', 'id']).execute();
  await db.schema.createIndex('inbox_conversations_inbox').on('inbox_conversations').columns(['inbox_id', 'id']).execute();

  await db.schema
    .createTable('inbox_messages')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('inbox_id', t.text, (c) => c.notNull().references('inboxes.id'))
    .addColumn('conversation_id', t.text, (c) => c.notNull().references('inbox_conversations.id'))
    .addColumn('subject', t.text, (c) => c.notNull())
    .addColumn('body', t.text, (c) => c.notNull())
    .addColumn('draft', t.integer, (c) => c.notNull())
    .addColumn('lock_version', t.integer, (c) => c.notNull())
    .addColumn('addresses', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('sent_at', t.text)
    .execute();
  await db.schema.createIndex('inbox_messages_org_id').on('inbox_messages').columns(['org_id', 'id']).execute();
  await db.schema.createIndex('inbox_messages_conversation').on('inbox_messages').columns(['conversation_id', 'id']).execute();
  await db.schema.createIndex('inbox_messages_inbox').on('inbox_messages').columns(['inbox_id', 'id']).execute();

  await db.schema
    .createTable('message_attachments')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('message_id', t.text, (c) => c.notNull().references('inbox_messages.id'))
    .addColumn('filename', t.text, (c) => c.notNull())
    .addColumn('content_type', t.text, (c) => c.notNull())
    .addColumn('size', t.integer, (c) => c.notNull())
    .addColumn('blob_key', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('message_attachments_message').on('message_attachments').columns(['message_id', 'id']).execute();
}
