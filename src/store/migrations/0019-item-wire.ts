// Each item keeps its wire form beside its values document (domain/item-wire.ts): `wire` is the JSON an
// answer sends, `wire_tag` the tag of the schema it was rendered under ('' for none: such an item is rendered
// from its document when read). Existing items get theirs here, collection by collection, rendered as the
// running release renders them; should the format change in a later release, the tag no longer matches and
// those forms are simply not used.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';
import type { Database } from '../sql/schema.ts';
import { fromParts } from '../../domain/collection-schema.ts';
import { storedWire } from '../../domain/item-wire.ts';
import { readSchemaParts } from '../sql/schema-cache.ts';
import { collectionRepo } from '../sql/collections.ts';
import { fieldRepo } from '../sql/fields.ts';
import { funnelRepo } from '../sql/funnels.ts';
import { toItem } from '../sql/items.ts';

const BATCH = 500;

export async function up(untyped: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await untyped.schema.alterTable('items').addColumn('wire', t.text).execute();
  await untyped.schema.alterTable('items').addColumn('wire_tag', t.text, (c) => c.notNull().defaultTo('')).execute();
  const db = untyped as Kysely<Database>;
  // The repositories only read here; nothing is announced.
  const quiet = { announce: async () => {} };
  const repos = { collections: collectionRepo(db, quiet), fields: fieldRepo(db, quiet), funnels: funnelRepo(db, quiet) };
  for (const { id, org_id } of await db.selectFrom('collections').select(['id', 'org_id']).orderBy('id').execute()) {
    const parts = await readSchemaParts(repos, org_id, id);
    if (!parts) continue;
    const schema = fromParts(parts);
    for (let after = ''; ; ) {
      const rows = await db
        .selectFrom('items')
        .select(['id', 'org_id', 'collection_id', 'doc', 'created_at', 'updated_at'])
        .where('collection_id', '=', id)
        .where('id', '>', after)
        .orderBy('id')
        .limit(BATCH)
        .execute();
      for (const row of rows) {
        const wire = storedWire(toItem(row), schema);
        await db.updateTable('items').set({ wire: wire.json, wire_tag: wire.tag }).where('id', '=', row.id).execute();
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.id;
    }
  }
}
