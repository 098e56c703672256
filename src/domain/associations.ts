// Associations of notes and files with items: pointers checked against the organization's items, kept as
// links (so deleting an item drops them) and returned with the item's collection.
import { invalidAt } from './errors.ts';
import type { LinkTarget, Store } from './ports/store.ts';

export interface ItemAssociation {
  id: string;
  type: 'item';
  collection: { id: string; type: 'collection'; ref: string };
}

/** A note's association with a call. */
export interface CallAssociation {
  id: string;
  type: 'call';
}

/** A note's association with a meeting. */
export interface MeetingAssociation {
  id: string;
  type: 'meeting';
}

export type Association = ItemAssociation | CallAssociation | MeetingAssociation;

/**
 * Item associations must name items of the organization; with `calls`, calls of the organization too
 * (notes), and meetings too.
 */
export async function checkItemAssociations(store: Store, orgId: string, inputs: { type: string; id: string }[], what: string): Promise<ItemAssociation[]>;
export async function checkItemAssociations(store: Store, orgId: string, inputs: { type: string; id: string }[], what: string, calls: true): Promise<Association[]>;
export async function checkItemAssociations(
  store: Store,
  orgId: string,
  inputs: { type: string; id: string }[],
  what: string,
  calls = false,
): Promise<Association[]> {
  // Calls are never deleted, so a call checked here still exists when the write commits.
  const callIds = new Set(calls ? (await store.calls.findMany(orgId, inputs.filter((a) => a.type === 'call').map((a) => a.id))).map((c) => c.id) : []);
  // Meetings are never deleted either.
  const meetingIds = new Set(calls ? (await store.meetings.findMany(orgId, inputs.filter((a) => a.type === 'meeting').map((a) => a.id))).map((m) => m.id) : []);
  const items = await itemPointers(store, orgId, inputs.filter((a) => a.type === 'item').map((a) => a.id));
  const result: Association[] = [];
  for (const [i, input] of inputs.entries()) {
    if (calls && input.type === 'call') {
      if (!callIds.has(input.id)) throw invalidAt(`/associations/${i}/id`, `no call has id "${input.id}"`);
      if (!result.some((r) => r.id === input.id)) result.push({ id: input.id, type: 'call' });
      continue;
    }
    if (calls && input.type === 'meeting') {
      if (!meetingIds.has(input.id)) throw invalidAt(`/associations/${i}/id`, `no meeting has id "${input.id}"`);
      if (!result.some((r) => r.id === input.id)) result.push({ id: input.id, type: 'meeting' });
      continue;
    }
    if (input.type !== 'item') {
      const accepted = calls ? 'items ({"type": "item", "id": …}), calls ({"type": "call", "id": …}) and meetings ({"type": "meeting", "id": …})' : 'items ({"type": "item", "id": …})';
      throw invalidAt(`/associations/${i}/type`, `${what} cannot be associated with a ${JSON.stringify(input.type)}; they can be associated with ${accepted}`);
    }
    const item = items.get(input.id);
    if (!item) throw invalidAt(`/associations/${i}/id`, `no item has id "${input.id}"`);
    if (!result.some((r) => r.id === item.id)) result.push(item);
  }
  return result;
}

/**
 * Pointers (with their collection) to those of `ids` that are items of the organization, held shared until
 * the write commits: the items cannot be deleted (dropping their links) in between.
 */
export async function itemPointers(store: Store, orgId: string, ids: string[]): Promise<Map<string, ItemAssociation>> {
  const items = await store.items.findMany(orgId, ids, 'shared');
  const collections = new Map((await store.collections.findMany(orgId, [...new Set(items.map((i) => i.collectionId))])).map((c) => [c.id, c]));
  return new Map(
    items.map((item) => {
      const collection = collections.get(item.collectionId)!;
      return [item.id, { id: item.id, type: 'item', collection: { id: collection.id, type: 'collection', ref: collection.ref } }];
    }),
  );
}

/** The role of associations among an entity's links. */
export const ASSOCIATION = 'association';

export function itemLinkTargets(associations: Association[]): LinkTarget[] {
  return associations.map((a) => ({ type: a.type, id: a.id }));
}

/**
 * The records with their item associations: one query for the links of all of them, one for the items and one
 * for the collections, however many records there are (a list page renders without a query per row).
 */
export async function withItemAssociations<T extends { id: string }>(store: Store, orgId: string, fromType: 'file', records: T[]): Promise<(T & { associations: ItemAssociation[] })[]>;
export async function withItemAssociations<T extends { id: string }>(store: Store, orgId: string, fromType: 'note', records: T[]): Promise<(T & { associations: Association[] })[]>;
export async function withItemAssociations<T extends { id: string }>(
  store: Store,
  orgId: string,
  fromType: 'note' | 'file',
  records: T[],
): Promise<(T & { associations: Association[] })[]> {
  const links = await store.links.targetsOf(orgId, fromType, records.map((r) => r.id), ASSOCIATION);
  const itemIds = [...new Set([...links.values()].flat().flatMap((t) => (t.type === 'item' && t.id !== null ? [t.id] : [])))];
  const items = new Map((await store.items.findMany(orgId, itemIds)).map((i) => [i.id, i]));
  const collections = new Map((await store.collections.findMany(orgId, [...new Set([...items.values()].map((i) => i.collectionId))])).map((c) => [c.id, c]));
  return records.map((record) => {
    const associations: Association[] = [];
    for (const target of links.get(record.id) ?? []) {
      if (target.type === 'call' && target.id !== null) {
        associations.push({ id: target.id, type: 'call' });
        continue;
      }
      if (target.type === 'meeting' && target.id !== null) {
        associations.push({ id: target.id, type: 'meeting' });
        continue;
      }
      const item = target.id === null ? undefined : items.get(target.id);
      const collection = item && collections.get(item.collectionId);
      if (item && collection) associations.push({ id: item.id, type: 'item', collection: { id: collection.id, type: 'collection', ref: collection.ref } });
    }
    return { ...record, associations };
  });
}
