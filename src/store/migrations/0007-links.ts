// Entity links: one row per association between two entities (a note and an item, a tagset and an inbox…),
// replacing the JSON `associations` columns of notes, files and tagsets. The reverse index makes "what links
// to X" one index range scan, so deleting an item can drop the links to it.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

const BATCH = 500;

export async function up(db: Kysely<any>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('links')
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('from_type', t.text, (c) => c.notNull())
    .addColumn('from_id', t.text, (c) => c.notNull())
    .addColumn('role', t.text, (c) => c.notNull())
    .addColumn('position', t.integer, (c) => c.notNull())
    .addColumn('to_type', t.text, (c) => c.notNull())
    // Null when the target is a whole kind rather than one entity (a tagset available on all calls).
    .addColumn('to_id', t.text)
    .addPrimaryKeyConstraint('links_pkey', ['org_id', 'from_type', 'from_id', 'role', 'position'])
    .execute();
  // Holds every column, so "what links to X" is answered from the index alone (an index-only scan).
  await db.schema.createIndex('links_to').on('links').columns(['org_id', 'to_type', 'to_id', 'from_type', 'from_id', 'role', 'position']).execute();

  await moveAssociations(db, 'notes', 'note');
  await moveAssociations(db, 'files', 'file');
  await moveAssociations(db, 'tagsets', 'tagset');
  for (const table of ['notes', 'files', 'tagsets']) await db.schema.alterTable(table).dropColumn('associations').execute();
}

/** Copies each row's JSON associations into links, in batches keyed by id. */
async function moveAssociations(db: Kysely<any>, table: string, fromType: string): Promise<void> {
  let after = '';
  for (;;) {
    const rows: { id: string; org_id: string; associations: string }[] = await db
      .selectFrom(table)
      .select(['id', 'org_id', 'associations'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.id;
    const parsed = rows.map((r) => ({ row: r, targets: JSON.parse(r.associations) as { type: string; id?: string }[] }));
    // Earlier versions kept pointers to deleted items; links to items exist only while the item does.
    const itemIds = [...new Set(parsed.flatMap((p) => p.targets.filter((a) => a.type === 'item' && a.id).map((a) => a.id!)))];
    const live = new Set<string>();
    for (let i = 0; i < itemIds.length; i += BATCH) {
      const found: { id: string }[] = await db.selectFrom('items').select('id').where('id', 'in', itemIds.slice(i, i + BATCH)).execute();
      for (const f of found) live.add(f.id);
    }
    const links = parsed.flatMap(({ row, targets }) =>
      targets
        .filter((a) => a.type !== 'item' || live.has(a.id!))
        .map((a, position) => ({ org_id: row.org_id, from_type: fromType, from_id: row.id, role: 'association', position, to_type: a.type, to_id: a.id ?? null })),
    );
    for (let i = 0; i < links.length; i += BATCH) await db.insertInto('links').values(links.slice(i, i + BATCH)).execute();
  }
}
