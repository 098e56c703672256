// The request journal: the last requests of each organization, for integration tests to assert on.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('request_journal')
    .addColumn('id', t.text, (c) => c.primaryKey())
    // Cascade: a batch of entries written while a sandbox is being deleted must not stop the deletion.
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('request_id', t.text, (c) => c.notNull())
    .addColumn('method', t.text, (c) => c.notNull())
    .addColumn('path', t.text, (c) => c.notNull())
    .addColumn('query', t.text, (c) => c.notNull())
    .addColumn('status', t.integer, (c) => c.notNull())
    .addColumn('latency_ms', t.float, (c) => c.notNull())
    // JSON object, Authorization and secrets redacted.
    .addColumn('request_headers', t.text, (c) => c.notNull())
    .addColumn('request_body', t.text)
    .addColumn('response_body', t.text)
    .addColumn('occurred_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('request_journal_org').on('request_journal').columns(['org_id', 'id']).execute();
}
