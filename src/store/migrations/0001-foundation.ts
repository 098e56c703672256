// Organizations, API keys, collections, funnels, fields and settings.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text, (c) => c.notNull().unique())
    // Changes whenever a collection, field or funnel of the organization changes: keys the schema cache.
    .addColumn('schema_tag', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', t.text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', t.text)
    .addColumn('prefix', t.text, (c) => c.notNull())
    .addColumn('hash', t.text, (c) => c.notNull().unique())
    .addColumn('read_only', t.integer, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('revoked_at', t.text)
    .execute();
  await db.schema.createIndex('api_keys_prefix').on('api_keys').column('prefix').execute();
  await db.schema.createIndex('api_keys_org').on('api_keys').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('collections')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('ref', t.text, (c) => c.notNull())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('description', t.text)
    .addColumn('icon_name', t.text, (c) => c.notNull())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addUniqueConstraint('collections_org_ref', ['org_id', 'ref'])
    .execute();
  await db.schema.createIndex('collections_org_id').on('collections').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('funnels')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('steps', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('funnels_org_id').on('funnels').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('fields')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('collection_id', t.text, (c) => c.notNull().references('collections.id'))
    .addColumn('ref', t.text, (c) => c.notNull())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('description', t.text)
    .addColumn('type', t.text, (c) => c.notNull())
    .addColumn('cardinality', t.text, (c) => c.notNull())
    .addColumn('required', t.integer, (c) => c.notNull())
    .addColumn('is_unique', t.integer, (c) => c.notNull())
    .addColumn('readonly', t.integer, (c) => c.notNull())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('funnel_id', t.text, (c) => c.references('funnels.id'))
    .addColumn('config', t.text, (c) => c.notNull())
    .addColumn('default_values', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addUniqueConstraint('fields_collection_ref', ['collection_id', 'ref'])
    .execute();
  await db.schema.createIndex('fields_collection_id').on('fields').columns(['collection_id', 'id']).execute();
  await db.schema.createIndex('fields_funnel').on('fields').column('funnel_id').execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', t.text, (c) => c.primaryKey())
    .addColumn('value', t.text, (c) => c.notNull())
    .execute();
}
