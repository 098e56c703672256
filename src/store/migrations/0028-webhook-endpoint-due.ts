// Due work is found endpoint by endpoint: a claim asks, of each endpoint it could lease, whether a delivery of
// it is due (`webhook_deliveries_endpoint_due`). It used to take the endpoints of the 500 earliest due
// deliveries, which a backlog on endpoints that cannot take it (disabled, or failing one attempt a round) could
// fill for good, starving every other endpoint. The two indexes by due time alone served only that.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const pending = sql<boolean>`status = 'pending'`;
  for (const index of ['webhook_deliveries_due', 'webhook_deliveries_org_due']) await db.schema.dropIndex(index).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint_due').on('webhook_deliveries').columns(['endpoint_id', 'next_attempt_at']).where(pending).execute();
}
