// Item lists and searches in SQL: the checked filter becomes IN / NOT IN subqueries on the value index,
// sort keys become joins on it (first value of each field; relation paths through the target item), and
// pages are keyset ranges over (sort keys…, id).
import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SelectExpression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { FilterNode, ItemQuery, SortKey, ValueOp } from '../../domain/filter/ast.ts';
import type { Item } from '../../domain/items.ts';
import type { ServedItem } from '../../domain/item-wire.ts';
import { emptyPageEdges, type Page, type PageRequest, type SortValue } from '../../domain/pagination.ts';
import type { Database } from './schema.ts';
import { fetchSegments, mapPosition, type OrderKey, type Runner, type Segment } from './keyset.ts';
import { slot, type Shapes } from './shapes.ts';
import { plannedPerRequest } from './statement-marks.ts';

type Eb = ExpressionBuilder<any, any>;
type AnyQuery = SelectQueryBuilder<any, any, any>;
/** The engine's SQL dialect, where the two differ. */
type Dialect = Shapes['dialect'];

/** Above every character a key can hold: the end of a prefix range. */
const TOP = '\u{10FFFF}';
const COMPARISONS: Partial<Record<ValueOp, '=' | '>' | '<' | '>=' | '<='>> = { eq: '=', gt: '>', lt: '<', gte: '>=', lte: '<=' };


const KEY_COLUMNS = { text: 'v.key_text', num: 'v.key_num', suffix: 'v.key_rev' } as const;

function keyCondition(eb: Eb, dialect: Dialect, op: ValueOp, column: keyof typeof KEY_COLUMNS, key: string | number): Expression<SqlBool> {
  const ref = sql.ref(KEY_COLUMNS[column]);
  switch (op) {
    case 'starts_with':
      return eb.and([eb(ref, '>=', key), eb(ref, '<', `${key}${TOP}`)]);
    case 'contains':
    case 'not_contains':
      // A plain substring search, not LIKE: a long pattern LIKE tries at every position of every value
      // (63 patterns of 256 characters over 36,000 values held SQLite for 1.5 s; `instr` takes 3 ms each).
      return dialect === 'postgres' ? sql<SqlBool>`strpos(${ref}, ${key}) > 0` : sql<SqlBool>`instr(${ref}, ${key}) > 0`;
    case 'not_eq':
      return eb(ref, '=', key);
    default:
      return eb(ref, COMPARISONS[op]!, key);
  }
}

/**
 * How selective a filter usually is, lower first: inside an `and`, the most selective condition drives the
 * query (an index range turned into a list of items) and the others are probed per candidate, so a broad
 * condition is never materialised in full.
 */
function selectivity(node: FilterNode): number {
  if (node.kind === 'and') return Math.min(...node.filters.map(selectivity));
  if (node.kind === 'or') return 6 + node.filters.length;
  if (node.kind !== 'value') return 20;
  if (node.column === 'created_at' || node.column === 'updated_at') return 9;
  if (node.dense) return DENSE;
  switch (node.op) {
    case 'eq':
      return node.column === 'num' ? 3 : 1;
    case 'starts_with':
      return 2 + (String(node.key).length < 3 ? 3 : 0);
    case 'not_eq':
    case 'not_contains':
      return 20;
    case 'contains':
      return 8;
    default:
      return 4;
  }
}

/** Conditions this broad are cheaper to probe while walking the collection in order than to list. */
const DENSE = 10;

/** `probe`: test each candidate row (correlated EXISTS) rather than list every matching item (IN). */
function compileFilter(eb: Eb, dialect: Dialect, node: FilterNode, probe = selectivity(node) >= DENSE): Expression<SqlBool> {
  switch (node.kind) {
    case 'and': {
      const best = node.filters.reduce((b, f, i, all) => (selectivity(f) < selectivity(all[b]!) ? i : b), 0);
      const driver = probe ? -1 : best;
      return eb.and(node.filters.map((f, i) => compileFilter(eb, dialect, f, i !== driver)));
    }
    case 'or':
      return eb.or(node.filters.map((f) => compileFilter(eb, dialect, f, probe)));
    case 'not':
      return eb.not(compileFilter(eb, dialect, node.filter, true));
    case 'exists':
      if (node.column === 'created_at' || node.column === 'updated_at') return sql<SqlBool>`1 = 1`;
      return matchItems(eb, node.fieldId, probe, () => sql<SqlBool>`1 = 1`, false);
    case 'value': {
      const { op, key, column } = node;
      if (column === 'created_at' || column === 'updated_at') {
        const ref = sql.ref(`i.${column}`);
        if (op === 'starts_with') return eb.and([eb(ref, '>=', key), eb(ref, '<', `${key}${TOP}`)]);
        return op === 'not_eq' ? eb(ref, '<>', key) : eb(ref, COMPARISONS[op]!, key);
      }
      // Negative ops hold for items with no matching value, including items with no value at all.
      const negated = op === 'not_eq' || op === 'not_contains';
      return matchItems(eb, node.fieldId, probe, (inner) => keyCondition(inner, dialect, op, column, key), negated);
    }
  }
}

function matchItems(eb: Eb, fieldId: string, probe: boolean, condition: (eb: Eb) => Expression<SqlBool>, negated: boolean): Expression<SqlBool> {
  const values = eb.selectFrom('item_values as v').select('v.item_id').where('v.field_id', '=', fieldId).where(condition);
  if (probe) {
    const correlated = eb.exists(values.whereRef('v.item_id', '=', 'i.id'));
    return negated ? eb.not(correlated) : correlated;
  }
  return eb('i.id', negated ? 'not in' : 'in', values);
}

/**
 * The columns a page reads: the values document, or — given the current wire tag — `body`: the stored wire
 * form where it carries that tag, and otherwise the times and the document, space-separated (`servedRow`).
 * One column instead of four: SQLite's cost per row grows with every column it hands over (a page of 20 read
 * in two thirds of the time).
 */
export const pageColumns = (wireTag: string | undefined): SelectExpression<any, any>[] =>
  wireTag === undefined ? ['i.id', 'i.doc', 'i.created_at', 'i.updated_at'] : ['i.id', servedBody(sql`= ${wireTag}`)];

/** `body` of `pageColumns`, the stored form where its tag passes `current` (a comparison with the tag's column). */
export const servedBody = (current: RawBuilder<unknown>) =>
  sql<string>`case when i.wire_tag ${current} then i.wire else i.created_at || ' ' || i.updated_at || ' ' || i.doc end`.as('body');

/** What a page read is made of. */
interface PageRead {
  orgId: string;
  query: ItemQuery;
  page: PageRequest;
  wireTag: string | undefined;
  /** Whether each row also carries the organization's schema tag (`TaggedPage`). */
  tagged: boolean;
}

/** A page whose statements also read the organization's schema tag. */
export interface TaggedPage extends Page<ServedItem> {
  /**
   * The tag every row was read under; undefined when there are no rows, or they disagree (a schema changed
   * between two statements of the read).
   */
  schemaTag?: string;
}

/**
 * The shape of a page read: the read with its values — organization, collection, wire tag, filter keys, the
 * cursor's position — replaced by slots, and the values in slot order. Whatever the statements' building
 * decides on stays in the shape: the filter's structure, fields and ops, the sort, the page size and
 * direction, which cursor values are null, and the keys building looks into (a prefix shorter than three
 * characters is judged less selective).
 */
function shapeOf(read: PageRead): { shape: PageRead; values: unknown[] } {
  const values: unknown[] = [];
  const put = <T>(value: T): T => (values.push(value), slot(values.length - 1) as T);
  const filter = (node: FilterNode): FilterNode => {
    switch (node.kind) {
      case 'and':
      case 'or':
        return { ...node, filters: node.filters.map(filter) };
      case 'not':
        return { ...node, filter: filter(node.filter) };
      case 'exists':
        return node;
      case 'value': {
        const seen = node.op === 'starts_with' && String(node.key).length < 3;
        return seen ? node : { ...node, key: put(node.key) };
      }
    }
  };
  const { orgId, query, page, wireTag, tagged } = read;
  const shape: PageRead = {
    tagged,
    orgId: put(orgId),
    query: { ...query, collectionId: put(query.collectionId), ...(query.filter ? { filter: filter(query.filter) } : {}) },
    page: { limit: page.limit, ...(page.after ? { after: mapPosition(page.after, put) } : {}), ...(page.before ? { before: mapPosition(page.before, put) } : {}) },
    wireTag: wireTag === undefined ? undefined : put(wireTag),
  };
  return { shape, values };
}

export function queryItems(db: Kysely<Database>, shapes: Shapes, orgId: string, query: ItemQuery, page: PageRequest): Promise<Page<Item>>;
export function queryItems(db: Kysely<Database>, shapes: Shapes, orgId: string, query: ItemQuery, page: PageRequest, wireTag: string | undefined, tagged?: boolean): Promise<TaggedPage>;
export async function queryItems(
  db: Kysely<Database>,
  shapes: Shapes,
  orgId: string,
  query: ItemQuery,
  page: PageRequest,
  wireTag?: string,
  tagged = false,
): Promise<TaggedPage> {
  // The statements are built once per shape, over slots, and run with this read's values.
  const { shape, values } = shapeOf({ orgId, query, page, wireTag, tagged });
  const key = `items.page ${JSON.stringify(shape)}`;
  const segments = shapes.memo(key, () => pageSegments(db, shapes.dialect, shape));
  // With several conditions, which should drive the read depends on their values (a name prefix matching one
  // item, a choice matching a third): PostgreSQL plans such a read for its values each time. A plan kept for
  // the statement drove a name prefix and a choice from the choice: 146 ms a search instead of 0.5.
  const mark = conditions(query.filter) > 1 ? plannedPerRequest : asIs;
  const run: Runner = async (label, build) => (await db.executeQuery(mark(shapes.statement(`${key} ${label}`, values, build)))).rows;
  // The position holds every sort key but the last, which is the id.
  const sortValues = query.sort.length + (endsWithId(query) ? 0 : 1) - 1;
  const fetched = await fetchSegments(
    segments,
    shape.page,
    (row) => ({
      key: Array.from({ length: sortValues }, (_, n) => (row[`k${n}`] ?? null) as SortValue),
      id: row.id as string,
    }),
    run,
  );
  // The shape's anchor holds slots: an empty page's way back is made from this read's own.
  const result = emptyPageEdges(fetched, page);
  const served: TaggedPage = { ...result, rows: result.rows.map((r) => servedRow(r, orgId, query.collectionId)) };
  if (tagged) {
    const tags = new Set(result.rows.map((r) => r.schema_tag as string));
    if (tags.size === 1) served.schemaTag = [...tags][0];
  }
  return served;
}

const asIs = <T>(statement: T): T => statement;

/** How many conditions on values the filter combines. */
function conditions(filter: FilterNode | undefined): number {
  if (!filter) return 0;
  if (filter.kind === 'and' || filter.kind === 'or') return filter.filters.reduce((n, f) => n + conditions(f), 0);
  if (filter.kind === 'not') return conditions(filter.filter);
  return 1;
}

/** An item of `pageColumns`: its stored wire form when that was current, otherwise the item. */
export function servedRow(r: Record<string, any>, orgId: string, collectionId: string): ServedItem {
  const body = r.body as string | undefined;
  if (body === undefined) return { id: r.id, orgId, collectionId, values: JSON.parse(r.doc), createdAt: r.created_at, updatedAt: r.updated_at };
  if (body.startsWith('{')) return { id: r.id, wire: body };
  // ISO times hold no space; the document follows the second one.
  const created = body.indexOf(' ');
  const updated = body.indexOf(' ', created + 1);
  return { id: r.id, orgId, collectionId, values: JSON.parse(body.slice(updated + 1)), createdAt: body.slice(0, created), updatedAt: body.slice(created + 1, updated) };
}

const endsWithId = (query: ItemQuery) => query.sort[query.sort.length - 1]?.column === 'id';

/** The stretches of the list a page read walks, as query builders. */
function pageSegments(db: Kysely<Database>, dialect: Dialect, { orgId, query, wireTag, tagged }: PageRead): Segment<any>[] {
  /** The collection's items that pass the filter, from `from` (which names them `i`). */
  const matching = (from: AnyQuery): AnyQuery => {
    let q = from
      .select(pageColumns(wireTag))
      .where('i.org_id', '=', orgId)
      .where('i.collection_id', '=', query.collectionId);
    // Uncorrelated: evaluated once per statement, not per row.
    if (tagged) q = q.select((eb) => eb.selectFrom('organizations').select('schema_tag').where('id', '=', orgId).as('schema_tag'));
    const filter = query.filter;
    return filter ? q.where((eb) => compileFilter(eb, dialect, filter)) : q;
  };
  const [lead, ...rest] = query.sort;
  // Ties go by id in the first key's direction, so a descending list is its ascending one reversed and one
  // index walks both.
  const idKey: OrderKey[] = endsWithId(query) ? [] : [{ column: 'i.id', desc: lead?.desc ?? false }];
  return lead && walksValueIndex(query, lead)
    ? valueSegments(db, matching, lead, rest, idKey)
    : [{ ...sortedBy(matching(db.selectFrom('items as i')), query.sort, 0, idKey), holds: () => true }];
}

/**
 * A leading sort on one field's values can walk that field's value index in order instead of sorting the
 * collection — unless a selective filter leaves few items, which are cheaper to sort than to find by walking.
 */
function walksValueIndex(query: ItemQuery, lead: SortKey): boolean {
  const plain = !lead.via && (lead.column === 'text' || lead.column === 'num') && lead.fieldIds.length === 1;
  return plain && (!query.filter || selectivity(query.filter) >= DENSE);
}

/**
 * The list as two index walks: items with a (first) value of the sorted field in value order, then — nulls
 * last in both directions — the items without one.
 */
function valueSegments(
  db: Kysely<Database>,
  matching: (from: AnyQuery) => AnyQuery,
  lead: SortKey,
  rest: SortKey[],
  idKey: OrderKey[],
): Segment<any>[] {
  const column = `s0.key_${lead.column}`;
  /** Keeps the index rows `s0` that hold an item's first value of the sorted field. */
  const firstValues = (q: AnyQuery): AnyQuery =>
    q.where('s0.field_id', '=', lead.fieldIds[0]!).where('s0.position', '=', 0).where(sql.ref(column), 'is not', null);
  // CROSS JOIN keeps the value index the outer loop (SQLite never reorders it), so no plan sorts the collection.
  const valued = matching(firstValues(db.selectFrom('item_values as s0').crossJoin('items as i').whereRef('i.id', '=', 's0.item_id'))).select(
    sql.ref(column).as('k0'),
  );
  const withValues = sortedBy(valued, rest, 1, idKey);
  const missing = matching(db.selectFrom('items as i'))
    .where((eb) => eb.not(eb.exists(firstValues(eb.selectFrom('item_values as s0').select('s0.item_id').whereRef('s0.item_id', '=', 'i.id')))))
    .select(sql`null`.as('k0'));
  const withoutValues = sortedBy(missing, rest, 1, idKey);
  return [
    {
      query: withValues.query,
      // The index holds the item id beside the value: ordering ties by it keeps the walk free of a sort.
      keys: [{ column, desc: lead.desc }, ...withValues.keys.map((k) => (k.column === 'i.id' ? { ...k, column: 's0.item_id' } : k))],
      holds: (position) => position.key[0] !== null,
    },
    { query: withoutValues.query, keys: [{ column, desc: lead.desc, fixed: true }, ...withoutValues.keys], holds: (position) => position.key[0] === null },
  ];
}

/** Joins and selects the sort keys `sort` (numbered from `first`), followed by the id tiebreaker. */
function sortedBy(query: AnyQuery, sort: SortKey[], first: number, idKey: OrderKey[]): { query: AnyQuery; keys: OrderKey[] } {
  let q = query;
  const keys = sort.map((s, i): OrderKey => {
    const n = first + i;
    let column: string;
    if (s.column === 'id') column = 'i.id';
    else if (!s.via && (s.column === 'created_at' || s.column === 'updated_at')) column = `i.${s.column}`;
    else {
      let owner = 'i.id';
      if (s.via) {
        q = q.leftJoin(`item_values as r${n}`, (j) =>
          j.onRef(`r${n}.item_id`, '=', 'i.id').on(`r${n}.field_id`, '=', s.via!).on(`r${n}.position`, '=', 0),
        );
        owner = `r${n}.key_text`;
      }
      if (s.column === 'created_at' || s.column === 'updated_at') {
        q = q.leftJoin(`items as t${n}`, (j) => j.onRef(`t${n}.id`, '=', owner));
        column = `t${n}.${s.column}`;
      } else {
        q = q.leftJoin(`item_values as s${n}`, (j) =>
          j.onRef(`s${n}.item_id`, '=', owner).on(`s${n}.field_id`, 'in', s.fieldIds).on(`s${n}.position`, '=', 0),
        );
        column = `s${n}.key_${s.column}`;
      }
    }
    q = q.select(sql.ref(column).as(`k${n}`));
    return { column, desc: s.desc, nullable: !column.startsWith('i.') };
  });
  return { query: q, keys: [...keys, ...idKey] };
}
