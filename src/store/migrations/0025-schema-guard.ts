// PostgreSQL: `tycho_schema_is(org, tag)` fails the statement — and so the transaction — with SQLSTATE TY001
// when the organization's schema tag is not `tag`. A write under the shared schema lock then need not wait for
// the tag before it uses the schema this process saw last: the guard travels ahead of its statements, and a
// transaction it fails runs again on the current schema (store/sql/sql-store.ts). SQLite reads its tags from
// exact change tokens and has no use for it.
import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, types: ColumnTypes): Promise<void> {
  if (types.engine !== 'postgres') return;
  await sql`
    create function tycho_schema_is(org text, tag text) returns boolean language plpgsql stable as $$
    begin
      if (select schema_tag from organizations where id = org) is distinct from tag then
        raise exception 'the schema of organization % is no longer %', org, tag using errcode = 'TY001';
      end if;
      return true;
    end $$`.execute(db);
}
