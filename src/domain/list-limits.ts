// How long the lists kept inside one record may grow.
import { invalidAt, propertyAt } from './errors.ts';

/**
 * The most entries a list of choice options, tags or funnel steps holds: each is read whole with its owner
 * (a field with its collection, a tagset in every page of tagsets), so an unbounded one (60,000 tags made a
 * page of tagsets 140 MB and held the server for seconds) would make every read of its owner slow.
 */
export const MAX_LIST_ENTRIES = 1000;

/** `entries` is the size the list at `pointer` would have; over the limit is a 422 there. */
export function checkListSize(pointer: string, entries: number): void {
  if (entries > MAX_LIST_ENTRIES) throw invalidAt(pointer, `${propertyAt(pointer)} may hold at most ${MAX_LIST_ENTRIES} entries; this one would hold ${entries}`);
}

