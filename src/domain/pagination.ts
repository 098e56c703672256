// Keyset pagination, independent of storage: a page is asked for relative to a position (the sort key and
// id of a row) and answered with its rows and whether rows exist on either side.

export type SortValue = string | number | null;

/** Where a row sits in a list's order: its sort-key values, then its id as the tiebreaker. */
export interface Position {
  key: SortValue[];
  id: string;
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

export function mapPage<T, U>(page: Page<T>, fn: (row: T) => U): Page<U> {
  return { ...page, rows: page.rows.map(fn) };
}
