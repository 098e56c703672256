// The activity feed: one row per activity with its constituents as JSON, and one index row per constituent
// so the feed of a single entity is an index range scan.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('activities')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('type', t.text, (c) => c.notNull())
    .addColumn('occurred_at', t.text, (c) => c.notNull())
    .addColumn('constituents', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('activities_org_time').on('activities').columns(['org_id', 'occurred_at', 'id']).execute();

  await db.schema
    .createTable('activity_entities')
    .addColumn('activity_id', t.text, (c) => c.notNull().references('activities.id').onDelete('cascade'))
    .addColumn('org_id', t.text, (c) => c.notNull())
    .addColumn('entity_type', t.text, (c) => c.notNull())
    .addColumn('entity_id', t.text, (c) => c.notNull())
    .addColumn('relation', t.text, (c) => c.notNull())
    .addColumn('occurred_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('activity_entities_lookup')
    .on('activity_entities')
    .columns(['org_id', 'entity_type', 'entity_id', 'occurred_at', 'activity_id'])
    .execute();
}
