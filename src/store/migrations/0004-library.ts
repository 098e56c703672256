// Tagsets, notes, inboxes, conversations, messages, files and attachments.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  const owned = (name: string) =>
    db.schema
      .createTable(name)
      .addColumn('id', t.text, (c) => c.primaryKey())
      .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'));
  const byOrg = (name: string) => db.schema.createIndex(`${name}_org_id`).on(name).columns(['org_id', 'id']).execute();

  await owned('tagsets')
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('description', t.text)
    .addColumn('tags', t.text, (c) => c.notNull())
    .addColumn('associations', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await byOrg('tagsets');

  await owned('notes')
    .addColumn('title', t.text)
    .addColumn('body', t.text, (c) => c.notNull())
    .addColumn('lock_version', t.integer, (c) => c.notNull())
    .addColumn('associations', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await byOrg('notes');

  await owned('inboxes')
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('email', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await byOrg('inboxes');

  await owned('files')
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('filename', t.text, (c) => c.notNull())
    .addColumn('content_type', t.text, (c) => c.notNull())
    .addColumn('size', t.integer, (c) => c.notNull())
    .addColumn('blob_key', t.text, (c) => c.notNull())
    .addColumn('associations', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await byOrg('files');
}
