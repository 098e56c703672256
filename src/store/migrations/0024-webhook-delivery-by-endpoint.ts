// A delivery is found by its endpoint and event: one index `(endpoint_id, activity_id)` replaces two, the
// endpoint's foreign-key index `(endpoint_id)` and `(org_id, activity_id)`. It serves the re-send's lookup
// (endpoint and event), the cascade when an endpoint is deleted, the history's pruning (each endpoint's old
// events) and an organization's snapshot or deletion (through its endpoints, as for attempts). Every delivery
// written, and every one sent (an update that moves it out of the partial work indexes, so not a HOT update),
// then writes one index entry fewer.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_endpoint_activity').on('webhook_deliveries').columns(['endpoint_id', 'activity_id']).execute();
  for (const index of ['webhook_deliveries_endpoint', 'webhook_deliveries_activity']) await db.schema.dropIndex(index).execute();
}
