// Forms: each is backed by a collection of kind `form` that outlives it.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('forms')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('collection_id', t.text, (c) => c.notNull().references('collections.id'))
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('pages_enabled', t.integer, (c) => c.notNull())
    .addColumn('business_email_required', t.integer, (c) => c.notNull())
    .addColumn('redirect_url', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('forms_org_id').on('forms').columns(['org_id', 'id']).execute();
}
