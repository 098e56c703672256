// Webhook endpoints (reference §5.18) and their subscriptions. Subscriptions are kept twice on purpose: in
// order with their ids on the endpoint row (what the API shows), and one row per event type in
// `webhook_subscriptions`, so recording an activity finds the endpoints to notify with one index range scan.
// `lease_owner`/`lease_until` say which process delivers to the endpoint right now (webhook-delivery.ts).
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('url', t.text, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('secret', t.text, (c) => c.notNull())
    .addColumn('subscriptions', t.text, (c) => c.notNull())
    .addColumn('failing_since', t.text)
    .addColumn('lease_owner', t.text)
    .addColumn('lease_until', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_org_id').on('webhook_endpoints').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('org_id', t.text, (c) => c.notNull())
    .addColumn('event_type', t.text, (c) => c.notNull())
    .addColumn('endpoint_id', t.text, (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('webhook_subscriptions_pk', ['org_id', 'event_type', 'endpoint_id'])
    .execute();
  await db.schema.createIndex('webhook_subscriptions_endpoint').on('webhook_subscriptions').columns(['endpoint_id']).execute();
}
