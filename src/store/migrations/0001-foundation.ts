// Organizations, API keys, collections, funnels, fields and settings.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    // Changes whenever a collection, field or funnel of the organization changes: keys the schema cache.
    .addColumn('schema_tag', 'varchar(32)', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text')
    .addColumn('prefix', 'varchar(64)', (c) => c.notNull())
    .addColumn('hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('read_only', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('revoked_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('api_keys_prefix').on('api_keys').column('prefix').execute();
  await db.schema.createIndex('api_keys_org').on('api_keys').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('collections')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('icon_name', 'text', (c) => c.notNull())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('collections_org_ref', ['org_id', 'ref'])
    .execute();
  await db.schema.createIndex('collections_org_id').on('collections').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('funnels')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('steps', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('funnels_org_id').on('funnels').columns(['org_id', 'id']).execute();

  await db.schema
    .createTable('fields')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id'))
    .addColumn('collection_id', 'varchar(32)', (c) => c.notNull().references('collections.id'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'varchar(64)', (c) => c.notNull())
    .addColumn('cardinality', 'varchar(8)', (c) => c.notNull())
    .addColumn('required', 'integer', (c) => c.notNull())
    .addColumn('is_unique', 'integer', (c) => c.notNull())
    .addColumn('readonly', 'integer', (c) => c.notNull())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('funnel_id', 'varchar(32)', (c) => c.references('funnels.id'))
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('default_values', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('fields_collection_ref', ['collection_id', 'ref'])
    .execute();
  await db.schema.createIndex('fields_collection_id').on('fields').columns(['collection_id', 'id']).execute();
  await db.schema.createIndex('fields_funnel').on('fields').column('funnel_id').execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
