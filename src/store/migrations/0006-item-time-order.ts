// Lists sorted by created_at or updated_at walk an index in that order instead of sorting the collection.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['created_at', 'updated_at']) {
    await db.schema.createIndex(`items_collection_${column}`).on('items').columns(['collection_id', column, 'id']).execute();
  }
}
