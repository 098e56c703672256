// Every foreign key's column leads an index, so that deleting a parent row finds its children by index. Without
// one, SQLite and PostgreSQL both scan the whole child table for each parent row deleted: deleting a sandbox's
// 1,000 activities scanned every organization's activity entities 1,000 times (6.5 s beside 20,000 items,
// holding the write lock), and deleting a webhook endpoint scanned every attempt ever recorded.
// Where an index led with org_id before the parent's id, it now leads with the parent's id: ids are unique
// across organizations, so the same index still serves the organization's queries.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('activity_entities_activity').on('activity_entities').column('activity_id').execute();
  await db.schema.createIndex('forms_collection').on('forms').columns(['collection_id', 'id']).execute();
  const lead = async (index: string, table: string, columns: string[], unique = false) => {
    await db.schema.dropIndex(index).execute();
    const create = db.schema.createIndex(index).on(table).columns(columns);
    await (unique ? create.unique() : create).execute();
  };
  await lead('webhook_attempts_endpoint', 'webhook_attempts', ['endpoint_id', 'id']);
  await lead('views_collection', 'views', ['collection_id', 'id']);
  // One template per program, as before.
  await lead('program_templates_program', 'program_templates', ['program_id'], true);
}
