// Column types as each engine spells them. Text compares byte-wise everywhere (PostgreSQL columns get the "C"
// collation): ids, ISO timestamps and index keys sort the same on every engine and in JavaScript.
import { sql, type ColumnDataType, type Expression } from 'kysely';

type DataType = ColumnDataType | Expression<unknown>;

export interface ColumnTypes {
  /** The engine they are for: the rare migration that must work differently per engine asks. */
  engine: 'sqlite' | 'postgres';
  text: DataType;
  integer: DataType;
  float: DataType;
}

export const SQLITE_TYPES: ColumnTypes = { engine: 'sqlite', text: 'text', integer: 'integer', float: 'double precision' };

export const POSTGRES_TYPES: ColumnTypes = { engine: 'postgres', text: sql`text collate "C"`, integer: 'integer', float: 'double precision' };
