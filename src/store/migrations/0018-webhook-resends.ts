// How many times each delivery was re-sent: the worker saves an attempt's outcome only while this is what it
// read, so a re-send made during the attempt is not overwritten by it.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('resends', t.integer, (c) => c.notNull().defaultTo(0)).execute();
}
