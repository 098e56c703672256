// Items (one row each, values as a JSON document) and the value index every filter, sort and unique check
// runs on.
import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('items')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('collection_id', t.text, (c) => c.notNull().references('collections.id'))
    .addColumn('doc', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('items_collection_id').on('items').columns(['collection_id', 'id']).execute();

  await db.schema
    .createTable('item_values')
    .addColumn('item_id', t.text, (c) => c.notNull().references('items.id').onDelete('cascade'))
    .addColumn('field_id', t.text, (c) => c.notNull())
    .addColumn('position', t.integer, (c) => c.notNull())
    .addColumn('key_text', t.text)
    .addColumn('key_rev', t.text)
    .addColumn('key_num', t.float)
    .addPrimaryKeyConstraint('item_values_pk', ['item_id', 'field_id', 'position'])
    .execute();
  // Partial: each value has either a text or a number key, and only text-like values have a suffix key.
  // Any comparison on a key column implies it is not null, so the planner still picks these.
  const keyIndex = (name: string, column: 'key_text' | 'key_rev' | 'key_num') =>
    db.schema.createIndex(name).on('item_values').columns(['field_id', column, 'item_id']).where(sql.ref(column), 'is not', null).execute();
  await keyIndex('item_values_text', 'key_text');
  await keyIndex('item_values_rev', 'key_rev');
  await keyIndex('item_values_num', 'key_num');
}
