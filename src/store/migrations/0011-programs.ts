// Marketing programs, their Liquid templates and the program messages sent from them. A message is a row
// that waits (`status` queued, `due_at`) until a sender claims it (`status` sending, `due_at` moved to the end of its lease), and then
// holds its outcome and the delivery events reported for it, which is what a program's `activity_metrics`
// counts.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('programs')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('display_name', t.text)
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('trigger', t.text, (c) => c.notNull())
    .addColumn('track_opens', t.integer, (c) => c.notNull())
    .addColumn('track_clicks', t.integer, (c) => c.notNull())
    .addColumn('scheduled_at', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('programs_org_id').on('programs').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('program_templates')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', t.text, (c) => c.notNull().references('programs.id'))
    .addColumn('subject', t.text, (c) => c.notNull())
    .addColumn('body', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('program_templates_org_id').on('program_templates').columns(['org_id', 'id']).execute();
  // A program has one template.
  await db.schema.createIndex('program_templates_program').on('program_templates').columns(['org_id', 'program_id']).unique().execute();

  await db.schema
    .createTable('program_messages')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('program_id', t.text, (c) => c.notNull())
    .addColumn('program_template_id', t.text, (c) => c.notNull())
    .addColumn('recipient_id', t.text, (c) => c.notNull())
    .addColumn('email', t.text, (c) => c.notNull())
    /** JSON object: the request's custom_variables. */
    .addColumn('custom_variables', t.text, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('due_at', t.text, (c) => c.notNull())
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .addColumn('reason_code', t.text)
    .addColumn('error', t.text)
    .addColumn('transport', t.text)
    .addColumn('sender', t.text)
    .addColumn('subject', t.text)
    .addColumn('body', t.text)
    .addColumn('sent_at', t.text)
    // When each delivery event was first reported; counted by activity_metrics.
    .addColumn('opened_at', t.text)
    .addColumn('clicked_at', t.text)
    .addColumn('bounced_at', t.text)
    .addColumn('complained_at', t.text)
    .addColumn('unsubscribed_at', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('program_messages_org_id').on('program_messages').columns(['org_id', 'id']).execute();
  // The sender's walk: what is waiting (or whose lease ran out), earliest first, across organizations.
  await db.schema.createIndex('program_messages_due').on('program_messages').columns(['status', 'due_at', 'id']).execute();
  await db.schema.createIndex('program_messages_program').on('program_messages').columns(['org_id', 'program_id', 'status']).execute();
  await db.schema.createIndex('program_messages_outbox').on('program_messages').columns(['org_id', 'transport', 'id']).execute();
}
