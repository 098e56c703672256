// The webhook outbox: one delivery per (activity, subscribed endpoint), written in the activity's transaction,
// and one row per attempt to send it. A pending delivery is due when `next_attempt_at` has passed; the
// worker takes an endpoint's due deliveries in id (recording) order. The feed of events reads the activities
// in id order, hence their (org_id, id) index.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull())
    .addColumn('endpoint_id', t.text, (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('activity_id', t.text, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('attempts', t.integer, (c) => c.notNull())
    .addColumn('next_attempt_at', t.text)
    .addColumn('last_attempt_at', t.text)
    .execute();
  // Due work of every organization, or of one (a per-organization clock delivers one at a time).
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_org_due').on('webhook_deliveries').columns(['org_id', 'status', 'next_attempt_at']).execute();
  // One endpoint's pending deliveries in order, and its deliveries by id.
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'status', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_activity').on('webhook_deliveries').columns(['org_id', 'activity_id']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull())
    .addColumn('endpoint_id', t.text, (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('delivery_id', t.text, (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempted_at', t.text, (c) => c.notNull())
    .addColumn('status_code', t.integer)
    .addColumn('latency_ms', t.integer, (c) => c.notNull())
    .addColumn('error', t.text)
    .addColumn('response_excerpt', t.text)
    .execute();
  await db.schema.createIndex('webhook_attempts_endpoint').on('webhook_attempts').columns(['org_id', 'endpoint_id', 'id']).execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id']).execute();

  await db.schema.createIndex('activities_org_id').on('activities').columns(['org_id', 'id']).execute();
}
