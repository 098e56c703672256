// Whether the request holding an Idempotency-Key claim has committed a write: set inside each of its write
// transactions, so that a claim left unanswered by a process that died is taken over only when nothing of its
// request was committed; otherwise re-running it would write twice.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('wrote', t.integer, (c) => c.notNull().defaultTo(0)).execute();
}
