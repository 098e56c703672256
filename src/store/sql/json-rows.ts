// Any number of rows in one statement: they travel as one JSON array parameter, which the engine turns back
// into rows (SQLite `json_each`, PostgreSQL `json_populate_recordset` over the table's row type). The
// statement's text does not depend on the number of rows, so it is prepared once; a statement per row cost
// the writer (on SQLite, the API thread) a trip through the query executor for every row.
import { sql, type RawBuilder } from 'kysely';
import type { Engine } from './sql-store.ts';

/**
 * `select <columns> from <rows>`: the rows of the JSON array `rows` (objects keyed by column name; a missing
 * key is null), with the types of `table`'s columns.
 */
export function jsonRows(engine: Pick<Engine, 'name'>, table: string, columns: readonly string[], rows: unknown): RawBuilder<unknown> {
  if (engine.name === 'postgres') {
    const list = sql.join(columns.map((c) => sql.ref(c)));
    return sql`select ${list} from json_populate_recordset(null::${sql.table(table)}, ${rows}::json)`;
  }
  // `jsonb_each` hands each row's object over as JSONB: parsed once, not once per column, nor turned back into text.
  const values = columns.map((c) => sql`value ->> ${sql.lit('$.' + c)} as ${sql.ref(c)}`);
  return sql`select ${sql.join(values)} from jsonb_each(${rows})`;
}

/** `insert into <table> (<columns>) select … from <rows>`; `keep`, a condition on the rows as `r`, leaves some out. */
export function insertJsonRows(engine: Pick<Engine, 'name'>, table: string, columns: readonly string[], rows: unknown, keep?: RawBuilder<unknown>): RawBuilder<unknown> {
  const into = sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})`;
  if (!keep) return sql`${into} ${jsonRows(engine, table, columns, rows)}`;
  return sql`${into} select ${sql.join(columns.map((c) => sql.ref(`r.${c}`)))} from (${jsonRows(engine, table, columns, rows)}) as r where ${keep}`;
}
