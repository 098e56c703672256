// The outbox's work indexes hold only pending deliveries (partial indexes, `where status = 'pending'`). A delivery is written pending and, once sent,
// leaves the work indexes: before, sending it moved its entry within three indexes that grew with every
// delivery ever made; now it deletes three entries from indexes as small as the queue, whose pages stay hot.
// Queries that want them say `status = 'pending'` literally, which is how SQLite and PostgreSQL know a
// partial index applies. The endpoint's index stays whole (its foreign key), on the endpoint alone, so
// sending a delivery no longer moves its entry there.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const pending = sql<boolean>`status = 'pending'`;
  for (const index of ['webhook_deliveries_due', 'webhook_deliveries_org_due', 'webhook_deliveries_endpoint']) await db.schema.dropIndex(index).execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['next_attempt_at', 'endpoint_id']).where(pending).execute();
  await db.schema.createIndex('webhook_deliveries_org_due').on('webhook_deliveries').columns(['org_id', 'next_attempt_at', 'endpoint_id']).where(pending).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint_pending').on('webhook_deliveries').columns(['endpoint_id', 'id']).where(pending).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').column('endpoint_id').execute();
}
