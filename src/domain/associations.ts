// Associations of notes and files with items: pointers checked against the organization's items and
// returned with the item's collection.
import { invalidAt } from './errors.ts';
import type { Store } from './ports/store.ts';
import { itemLock } from './locks.ts';

export interface ItemAssociation {
  id: string;
  type: 'item';
  collection: { id: string; type: 'collection'; ref: string };
}

/** Item associations must name items of the organization; calls and meetings are not kept by Tycho. */
export async function checkItemAssociations(
  store: Store,
  orgId: string,
  inputs: { type: string; id: string }[],
  what: string,
): Promise<ItemAssociation[]> {
  const ids = inputs.filter((a) => a.type === 'item').map((a) => a.id);
  // Held shared until the write commits: the items cannot be deleted (dropping their links) in between.
  await store.lock(ids.map(itemLock), 'shared');
  const items = new Map((await store.items.findMany(orgId, ids)).map((i) => [i.id, i]));
  const collections = new Map((await store.collections.findMany(orgId, [...new Set([...items.values()].map((i) => i.collectionId))])).map((c) => [c.id, c]));
  const result: ItemAssociation[] = [];
  for (const [i, input] of inputs.entries()) {
    if (input.type !== 'item') {
      throw invalidAt(`/associations/${i}/type`, `no ${input.type} has id "${input.id}"; ${what} can be associated with items ({"type": "item", "id": …})`);
    }
    const item = items.get(input.id);
    if (!item) throw invalidAt(`/associations/${i}/id`, `no item has id "${input.id}"`);
    const collection = collections.get(item.collectionId)!;
    if (!result.some((r) => r.id === item.id)) result.push({ id: item.id, type: 'item', collection: { id: collection.id, type: 'collection', ref: collection.ref } });
  }
  return result;
}
