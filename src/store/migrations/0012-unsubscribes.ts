// The unsubscribe list (one normalised address once per organization; the id only names it in activities)
// and the per-organization agent settings singleton.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('unsubscribes')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('email', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('unsubscribes_org_id').on('unsubscribes').columns(['org_id', 'id']).execute();
  await db.schema.createIndex('unsubscribes_email').on('unsubscribes').columns(['org_id', 'email']).unique().execute();

  await db.schema
    .createTable('agent_settings')
    .addColumn('org_id', t.text, (c) => c.primaryKey().references('organizations.id'))
    .addColumn('deal_summary_prompt', t.text)
    .addColumn('meeting_prebrief_prompt', t.text)
    .addColumn('meeting_summary_prompt', t.text)
    .addColumn('meeting_web_search', t.integer)
    .addColumn('organization_info', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
}
