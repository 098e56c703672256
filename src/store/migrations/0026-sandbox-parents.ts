// A sandbox belongs to the organization whose admin key made it: only that organization's admin keys list
// and delete it (before, any admin key of any organization could). It also remembers the snapshot it was
// cloned from, for the list. Sandboxes made before keep no parent: only the operator (`tycho sandboxes …`)
// manages them.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('parent_id', t.text).execute();
  await db.schema.alterTable('organizations').addColumn('snapshot_name', t.text).execute();
  await db.schema.createIndex('organizations_parent').on('organizations').columns(['parent_id', 'id']).execute();
}
