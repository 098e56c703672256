// Keyset pagination in SQL: a page is the rows strictly after (or before) a position in a total order made
// of sort keys plus the id (or from it on, for the inclusive position an empty page's cursor back holds). No
// OFFSET: every page is a range scan that starts where the last one ended.
import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { emptyPageEdges, type Page, type PageRequest, type Position, type SortValue } from '../../domain/pagination.ts';

export interface OrderKey {
  /** A column reference such as `c.id`. */
  column: string;
  desc: boolean;
  /** Nullable keys sort their nulls last in both directions. */
  nullable?: boolean;
  /** The same for every row of a segment (the missing value of items without one): neither ordered nor compared. */
  fixed?: boolean;
}

type Direction = 'after' | 'before';
type AnyQuery<O> = SelectQueryBuilder<any, any, O>;
type Eb = ExpressionBuilder<any, any>;

const FALSE = sql<SqlBool>`1 = 0`;

/**
 * A row limit written into the statement rather than bound: SQLite plans a statement with a bound LIMIT for
 * any number of rows, and ran the feed's page in 51 µs instead of 15, a list page in 60 instead of 36, and a
 * global search's capped legs in 237 instead of 24. Statements are kept per limit (shapes.ts keys include it).
 */
export function rowLimit(rows: number): RawBuilder<number> {
  if (!Number.isSafeInteger(rows) || rows < 0) throw new Error(`a row limit is a whole number of rows, not ${rows}`);
  return sql.lit(rows);
}

/**
 * A stretch of a list that one index walks in order. A list may be several stretches one after another
 * (items with a value of the sorted field, then those without), each with its own query.
 */
export interface Segment<O> {
  query: AnyQuery<O>;
  keys: OrderKey[];
  /** Whether a position (from a cursor) lies in this stretch. */
  holds(position: Position): boolean;
}

/**
 * Runs the statement `build` makes; `label` names it among the statements of one page read, so a runner that
 * prepares statements once per shape (item-queries.ts) can tell them apart. By default built and run each time.
 */
export type Runner = <R>(label: string, build: () => AnyQuery<R>) => Promise<R[]>;

const buildEachTime: Runner = (_label, build) => build().execute();

/** A position with its values replaced (by the slots of a statement shape, shapes.ts); whether it is inclusive kept. */
export function mapPosition(position: Position | undefined, put: <T extends string | number>(value: T) => T): Position | undefined {
  if (!position) return undefined;
  return { key: position.key.map((k) => (k === null ? null : put(k))), id: put(position.id), ...(position.inclusive ? { inclusive: true } : {}) };
}

/** The rows of `query` on the page `request` asks for. `keys` must end with a unique key (the id). */
export function fetchPage<O>(query: AnyQuery<O>, keys: OrderKey[], request: PageRequest, positionOf: (row: O) => Position): Promise<Page<O>> {
  return fetchSegments([{ query, keys, holds: () => true }], request, positionOf);
}

/** The page `request` asks for of the list the segments make in turn. */
export async function fetchSegments<O>(
  segments: Segment<O>[],
  request: PageRequest,
  positionOf: (row: O) => Position,
  run: Runner = buildEachTime,
): Promise<Page<O>> {
  const backwards = request.before !== undefined;
  const anchor = request.before ?? request.after;
  const direction: Direction = backwards ? 'before' : 'after';
  const opposite: Direction = backwards ? 'after' : 'before';
  // Segments in the order this page walks them, starting with the anchor's.
  const walk = backwards ? [...segments].reverse() : segments;
  const from = anchor ? Math.max(0, walk.findIndex((s) => s.holds(anchor))) : 0;
  const inclusive = anchor?.inclusive === true;
  const fetched: Record<string, unknown>[] = [];
  let behind: boolean | undefined;
  for (let i = from; i < walk.length && fetched.length <= request.limit; i++) {
    const { keys } = walk[i]!;
    const anchored = anchor !== undefined && i === from;
    const limit = request.limit + 1 - fetched.length;
    const build = () => {
      const query: AnyQuery<any> = walk[i]!.query;
      let q = query;
      if (anchored) {
        // Whether rows lie at or behind the anchor (is there a page on the other side?) is asked in the same
        // statement: an uncorrelated EXISTS the database evaluates once.
        q = q.where((eb) => beyond(eb, keys, anchor, direction, inclusive)).select((eb) => eb.exists(probe(behindAnchor(query, keys, anchor, opposite))).as(BEHIND));
      }
      return ordered(q, keys, backwards).limit(rowLimit(limit));
    };
    const rows: Record<string, unknown>[] = await run(`rows ${i} ${anchored} ${anchored && inclusive} ${limit}`, build);
    if (anchor && i === from && rows.length > 0) {
      behind = Number(rows[0]![BEHIND]) === 1;
      // The flag is the last column selected: removing it gives the rows back their plain shape.
      for (const row of rows) delete row[BEHIND];
    }
    fetched.push(...rows);
  }
  const more = fetched.length > request.limit;
  const rows = (more ? fetched.slice(0, request.limit) : fetched) as O[];
  if (backwards) rows.reverse();

  const start = rows.length > 0 ? positionOf(rows[0]!) : undefined;
  const end = rows.length > 0 ? positionOf(rows[rows.length - 1]!) : undefined;
  // Without an anchor the page starts the list.
  let otherSide = false;
  if (anchor) {
    if (rows.length > 0) {
      // The anchor's segment had no rows beyond it: all of its rows, if any, are behind.
      behind ??= await exists(walk, from, run);
    } else {
      // An empty page (its rows deleted since the cursor was made) still leads back to those behind it.
      const probed = () => probe(behindAnchor(walk[from]!.query, walk[from]!.keys, anchor, opposite));
      behind = (await run(`behind ${from} ${inclusive}`, probed)).length > 0;
    }
    otherSide = behind;
    for (let i = 0; i < from && !otherSide; i++) otherSide = await exists(walk, i, run);
  }
  const page = backwards ? { rows, hasPrev: more, hasNext: otherSide } : { rows, hasPrev: otherSide, hasNext: more };
  return emptyPageEdges({ ...page, start, end }, request);
}

/** The rows of `query` on the other side of the page's anchor: the anchor's own row too, unless the page holds it. */
function behindAnchor<O>(query: AnyQuery<O>, keys: OrderKey[], anchor: Position, opposite: Direction): AnyQuery<O> {
  return query.where((eb) => beyond(eb, keys, anchor, opposite, anchor.inclusive !== true));
}

const BEHIND = 'behind_anchor';

function ordered<O>(query: AnyQuery<O>, keys: OrderKey[], reverse: boolean): AnyQuery<O> {
  let q = query;
  for (const key of keys) {
    if (key.fixed) continue;
    const desc = key.desc !== reverse;
    if (key.nullable) q = q.orderBy(sql`(${sql.ref(key.column)} is null)`, reverse ? 'desc' : 'asc');
    q = q.orderBy(sql.ref(key.column), desc ? 'desc' : 'asc');
  }
  return q;
}

/** `query` reduced to whether it has a row. */
function probe<O>(query: AnyQuery<O>) {
  return query.clearSelect().clearOrderBy().select(sql<number>`1`.as('one')).limit(rowLimit(1));
}

/** Whether segment `i` of `walk` has a row at all. */
async function exists<O>(walk: Segment<O>[], i: number, run: Runner): Promise<boolean> {
  return (await run(`exists ${i}`, () => probe(walk[i]!.query))).length > 0;
}

/**
 * Rows strictly after (or before) `position`: (k1 beyond v1) or (k1 = v1 and k2 beyond v2) or …;
 * `inclusive` also takes the row at the position itself.
 */
function beyond(eb: Eb, keys: OrderKey[], position: Position, direction: Direction, inclusive = false): Expression<SqlBool> {
  const values: SortValue[] = [...position.key, position.id];
  const compared = keys.flatMap((key, i) => (key.fixed ? [] : [{ key, value: values[i] ?? null }]));
  const alternatives = compared.map(({ key, value }, i) =>
    eb.and([
      ...compared.slice(0, i).map((c) => equals(eb, c.key, c.value)),
      // The last key is the unique id: taking its equal as well takes exactly the row at the position.
      past(eb, key, value, direction, inclusive && i === compared.length - 1),
    ]),
  );
  const { key: first, value: v0 } = compared[0]!;
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

function past(eb: Eb, key: OrderKey, value: SortValue, direction: Direction, orEqual = false): Expression<SqlBool> {
  const column = sql.ref(key.column);
  if (value === null) return direction === 'after' ? FALSE : eb(column, 'is not', null);
  const op = `${(direction === 'after') !== key.desc ? '>' : '<'}${orEqual ? '=' : ''}` as const;
  const comparison = eb(column, op, value);
  return direction === 'after' && key.nullable ? eb.or([comparison, eb(column, 'is', null)]) : comparison;
}
