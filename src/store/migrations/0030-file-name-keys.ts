// Global search finds files whose name contains the text ignoring case; SQL's lower() folds ASCII letters only
// (PostgreSQL's columns are collate "C"), so "école" missed "École Report.pdf". Each file keeps its name
// lower-cased as JavaScript does it (`fileNameKey`), written with the file; existing files get theirs here.
import { type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';
import { fileNameKey } from '../../domain/files.ts';

export async function up(db: Kysely<any>, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('files').addColumn('name_key', t.text, (c) => c.notNull().defaultTo('')).execute();
  const files = await db.selectFrom('files').select(['id', 'name']).execute();
  for (const { id, name } of files as { id: string; name: string }[]) {
    await db.updateTable('files').set({ name_key: fileNameKey(name) }).where('id', '=', id).execute();
  }
}
