// The keys writers lock (store.lock) where a read-check-write cannot be expressed as a constraint. Each key is
// as narrow as its invariant: one unique value or identifier of a field, one record. Items need no key: the
// row is its own lock (`store.items.findMany(…, lock)`); nor does an organization's schema (`store.lockSchema`).
// The keys are opaque to the store; they only have to be equal for writers that must not interleave.
//
// Items are locked in one order so that two writers never wait for each other: the items a write points
// relations at before the item it writes, and a deleted or merged item before the items pointing at it. A
// PATCH re-sending a relation to an item being deleted then waits for the delete instead of holding what the
// delete needs next (PostgreSQL would break the deadlock only after a second). Items locked together are
// locked in id order (`store.items.findMany`).
import type { Field } from './fields.ts';
import { indexKey } from './items.ts';

/** One value of one field, as the index compares it: upserts matching on it, unique checks of it. */
export function valueLock(field: Field, value: unknown): string {
  const key = indexKey(field, value);
  return `value:${field.id}:${key.num ?? ''}:${key.text ?? ''}`;
}

/** One record of a resource whose writes read it first (a note's lock_version, a draft's state). */
export const recordLock = (type: string, id: string): string => `${type}:${id}`;
