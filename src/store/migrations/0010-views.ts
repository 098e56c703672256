// Saved views of a collection: a name, a layout and the saved filter and sort (JSON text). The default view of
// each collection is made on first use (domain/views.ts), so existing collections need no data step; at most
// one default per collection is kept by the unique index on (collection_id, default_of).
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('views')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('collection_id', t.text, (c) => c.notNull().references('collections.id'))
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('view_type', t.text, (c) => c.notNull())
    .addColumn('filter', t.text)
    .addColumn('sort', t.text, (c) => c.notNull())
    // The collection id on its default view, null on the others (nulls never collide in a unique index).
    .addColumn('default_of', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('views_org_id').on('views').columns(['org_id', 'id']).execute();
  await db.schema.createIndex('views_collection').on('views').columns(['org_id', 'collection_id', 'id']).execute();
  await db.schema.createIndex('views_default').on('views').column('default_of').unique().execute();
}
