// Calls (reference §5.14). Participants' phones and roles, recordings and the transcript are JSON columns of
// the call; the items participants are matched to and the call's tags are links (migration 0007). One call
// per provider call id: the unique index lets an upsert never create a second one, across processes.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('calls')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('direction', t.text, (c) => c.notNull())
    .addColumn('provider', t.text, (c) => c.notNull())
    .addColumn('provider_id', t.text, (c) => c.notNull())
    .addColumn('provider_status', t.text, (c) => c.notNull())
    .addColumn('provider_metadata', t.text)
    .addColumn('start_at', t.text, (c) => c.notNull())
    .addColumn('answered_at', t.text)
    .addColumn('end_at', t.text)
    .addColumn('participants', t.text, (c) => c.notNull())
    .addColumn('recordings', t.text, (c) => c.notNull())
    .addColumn('transcript', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('calls_org_id').on('calls').columns(['org_id', 'id']).execute();
  await db.schema.createIndex('calls_provider_id').on('calls').columns(['org_id', 'provider', 'provider_id']).unique().execute();
}
