// Keyset pagination in SQL: a page is the rows strictly after (or before) a position in a total order made
// of sort keys plus the id. No OFFSET: every page is a range scan that starts where the last one ended.
import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Page, PageRequest, Position, SortValue } from '../../domain/pagination.ts';

export interface OrderKey {
  /** A column reference such as `c.id`. */
  column: string;
  desc: boolean;
  /** Nullable keys sort their nulls last in both directions. */
  nullable?: boolean;
}

type Direction = 'after' | 'before';
type AnyQuery<O> = SelectQueryBuilder<any, any, O>;
type Eb = ExpressionBuilder<any, any>;

const FALSE = sql<SqlBool>`1 = 0`;

/** The rows of `query` on the page `request` asks for. `keys` must end with a unique key (the id). */
export async function fetchPage<O>(
  query: AnyQuery<O>,
  keys: OrderKey[],
  request: PageRequest,
  positionOf: (row: O) => Position,
): Promise<Page<O>> {
  const backwards = request.before !== undefined;
  const anchor = request.before ?? request.after;
  let q = query;
  if (anchor) q = q.where((eb) => beyond(eb, keys, anchor, backwards ? 'before' : 'after'));
  const fetched = await ordered(q, keys, backwards).limit(request.limit + 1).execute();
  const more = fetched.length > request.limit;
  const rows = more ? fetched.slice(0, request.limit) : fetched;
  if (backwards) rows.reverse();

  // The far side of the anchor is probed only when there is an anchor: without one it is the list's start.
  const start = rows.length > 0 ? positionOf(rows[0]!) : undefined;
  const end = rows.length > 0 ? positionOf(rows[rows.length - 1]!) : undefined;
  const edge = backwards ? end : start;
  const otherSide = anchor && edge ? await exists(query, keys, edge, backwards ? 'after' : 'before') : false;
  const page = backwards ? { rows, hasPrev: more, hasNext: otherSide } : { rows, hasPrev: otherSide, hasNext: more };
  return { ...page, start, end };
}

function ordered<O>(query: AnyQuery<O>, keys: OrderKey[], reverse: boolean): AnyQuery<O> {
  let q = query;
  for (const key of keys) {
    const desc = key.desc !== reverse;
    if (key.nullable) q = q.orderBy(sql`(${sql.ref(key.column)} is null)`, reverse ? 'desc' : 'asc');
    q = q.orderBy(sql.ref(key.column), desc ? 'desc' : 'asc');
  }
  return q;
}

async function exists<O>(query: AnyQuery<O>, keys: OrderKey[], from: Position, direction: Direction) {
  const probe = await query
    .clearSelect()
    .clearOrderBy()
    .select(sql<number>`1`.as('one'))
    .where((eb) => beyond(eb, keys, from, direction))
    .limit(1)
    .executeTakeFirst();
  return probe !== undefined;
}

/** Rows strictly after (or before) `position`: (k1 beyond v1) or (k1 = v1 and k2 beyond v2) or … */
function beyond(eb: Eb, keys: OrderKey[], position: Position, direction: Direction): Expression<SqlBool> {
  const values: SortValue[] = [...position.key, position.id];
  const alternatives = keys.map((key, i) =>
    eb.and([...keys.slice(0, i).map((k, j) => equals(eb, k, values[j] ?? null)), strictly(eb, key, values[i] ?? null, direction)]),
  );
  const first = keys[0]!;
  const v0 = values[0] ?? null;
  // A redundant range bound on the leading key lets the planner turn the OR chain into an index range scan.
  if (v0 !== null && !first.nullable) {
    const op = (direction === 'after') !== first.desc ? '>=' : '<=';
    return eb.and([eb(sql.ref(first.column), op, v0), eb.or(alternatives)]);
  }
  return eb.or(alternatives);
}

function equals(eb: Eb, key: OrderKey, value: SortValue): Expression<SqlBool> {
  return value === null ? eb(sql.ref(key.column), 'is', null) : eb(sql.ref(key.column), '=', value);
}

function strictly(eb: Eb, key: OrderKey, value: SortValue, direction: Direction): Expression<SqlBool> {
  const column = sql.ref(key.column);
  if (value === null) return direction === 'after' ? FALSE : eb(column, 'is not', null);
  const op = (direction === 'after') !== key.desc ? '>' : '<';
  const comparison = eb(column, op, value);
  return direction === 'after' && key.nullable ? eb.or([comparison, eb(column, 'is', null)]) : comparison;
}
