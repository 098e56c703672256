// The organization's fields of given types (global search's text fields, the relation fields an item may be
// referenced through) were found by scanning `fields`, every organization's rows: no index led with its
// `org_id`. This one does, then the type, then the id (the order those lists are read in).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('fields_org_type').on('fields').columns(['org_id', 'type', 'id']).execute();
}
