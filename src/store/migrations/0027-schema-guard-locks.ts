// PostgreSQL: `tycho_schema_held(org, tag)` takes the shared schema lock of the organization, then fails like
// `tycho_schema_is` (0025) unless its schema tag is `tag`: a write that guesses the tag sends one statement
// for both instead of two. Volatile, so the tag is read with a snapshot taken after the lock is held, which
// includes any schema change that held it exclusively.
import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, types: ColumnTypes): Promise<void> {
  if (types.engine !== 'postgres') return;
  await sql`
    create function tycho_schema_held(org text, tag text) returns boolean language plpgsql volatile as $$
    begin
      perform pg_advisory_xact_lock_shared(hashtextextended(org, 0));
      return tycho_schema_is(org, tag);
    end $$`.execute(db);
}
