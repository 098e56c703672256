// The keys writers lock (store.lock) where a read-check-write cannot be expressed as a constraint. Each key is
// as narrow as its invariant: one unique value or identifier of a field, one record. Items need no key: the
// row is its own lock (`store.items.findMany(…, lock)`); nor does an organization's schema (`store.lockSchema`).
// The keys are opaque to the store; they only have to be equal for writers that must not interleave.
//
// Items locked together are locked in id order (`store.items.findMany`). A write that locks more items along
// relations (targets, mirrors, the referrers of a deleted or merged item) holds `relationsLock` first, so two
// of them never wait for each other whatever order the data gives their items; within one, the items a write
// points relations at are locked before the item it writes, and a deleted or merged item before the items
// pointing at it.
import type { Field } from './fields.ts';
import { indexKey } from './items.ts';

/** One value of one field, as the index compares it: upserts matching on it, unique checks of it. */
export function valueLock(field: Field, value: unknown): string {
  const key = indexKey(field, value);
  return `value:${field.id}:${key.num ?? ''}:${key.text ?? ''}`;
}

/**
 * Taken first (after the schema's) by every write that locks several items along relations: one whose values
 * point at other items (their targets, and on a two-way relation the mirrors it rewrites), and the delete or
 * merge of an item (the items pointing at it). Which of those items such a write locks first follows the data
 * — A points at B while B points at A, a merge reaches the items pointing at its source — so two of them could
 * each hold what the other needs next, and PostgreSQL breaks such a deadlock only after a second, holding both
 * connections meanwhile. They run one at a time per organization instead; writes that lock one item alone (most
 * creates, upserts and PATCHes) never take it.
 */
export const relationsLock = (orgId: string): string => `relations:${orgId}`;

/** One record of a resource whose writes read it first (a note's lock_version, a draft's state). */
export const recordLock = (type: string, id: string): string => `${type}:${id}`;
