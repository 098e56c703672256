// Items (one row each, values as a JSON document) and the value index every filter, sort and unique check
// runs on.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('items')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id'))
    .addColumn('collection_id', 'varchar(32)', (c) => c.notNull().references('collections.id'))
    .addColumn('doc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('items_collection_id').on('items').columns(['collection_id', 'id']).execute();

  await db.schema
    .createTable('item_values')
    .addColumn('item_id', 'varchar(32)', (c) => c.notNull().references('items.id').onDelete('cascade'))
    .addColumn('field_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('key_text', 'text')
    .addColumn('key_rev', 'text')
    .addColumn('key_num', 'double precision')
    .addPrimaryKeyConstraint('item_values_pk', ['item_id', 'field_id', 'position'])
    .execute();
  await db.schema.createIndex('item_values_text').on('item_values').columns(['field_id', 'key_text', 'item_id']).execute();
  await db.schema.createIndex('item_values_rev').on('item_values').columns(['field_id', 'key_rev', 'item_id']).execute();
  await db.schema.createIndex('item_values_num').on('item_values').columns(['field_id', 'key_num', 'item_id']).execute();
}
