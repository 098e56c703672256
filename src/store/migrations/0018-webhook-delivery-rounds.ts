// What the delivery rounds need beyond 0015. `resends` counts a delivery's re-sends: the worker saves an
// attempt's outcome only while it is what it read, so a re-send made during the attempt is not overwritten.
// The due indexes also hold the endpoint, so finding the endpoints with work due reads no table row.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('resends', t.integer, (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.dropIndex('webhook_deliveries_due').execute();
  await db.schema.dropIndex('webhook_deliveries_org_due').execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at', 'endpoint_id']).execute();
  await db.schema.createIndex('webhook_deliveries_org_due').on('webhook_deliveries').columns(['org_id', 'status', 'next_attempt_at', 'endpoint_id']).execute();
}
