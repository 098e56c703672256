// Keyset pagination, independent of storage: a page is asked for relative to a position (the sort key and
// id of a row) and answered with its rows and whether rows exist on either side.

export type SortValue = string | number | null;

/** Where a row sits in a list's order: its sort-key values, then its id as the tiebreaker. */
export interface Position {
  key: SortValue[];
  id: string;
  /**
   * The page also takes the row at the position itself. Only the cursor back from an empty page is inclusive:
   * reached by `after` a row, the page before it ends with that row.
   */
  inclusive?: boolean;
}

export interface PageRequest {
  limit: number;
  after?: Position;
  before?: Position;
}

export interface Page<T> {
  rows: T[];
  hasPrev: boolean;
  hasNext: boolean;
  /** Positions of the first and last row, from which the neighbouring pages' cursors are made. */
  start?: Position;
  end?: Position;
}

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/**
 * An empty page has no rows to make cursors from: the way back is its anchor, taken the other way round
 * (rows up to and including the row it was asked `after`; from the row it was asked `before` on).
 */
export function emptyPageEdges<T>(page: Page<T>, request: PageRequest): Page<T> {
  const anchor = request.before ?? request.after;
  if (page.rows.length > 0 || !anchor) return page;
  const back: Position = { key: anchor.key, id: anchor.id, ...(anchor.inclusive ? {} : { inclusive: true }) };
  return { ...page, start: back, end: back };
}

export function mapPage<T, U>(page: Page<T>, fn: (row: T) => U): Page<U> {
  return { ...page, rows: page.rows.map(fn) };
}
