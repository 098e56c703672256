// Shared bits of the field and funnel tests: response patterns, custom collections, and items written straight
// into the store (with their index entries) so that field changes can be checked against existing values.
import assert from 'node:assert/strict';
import { indexEntries, type Item } from '../../src/domain/items.ts';
import { newId } from '../../src/domain/ids.ts';
import { storedWireOf } from '../../src/domain/item-wire.ts';
import type { Harness } from './harness.ts';

export const ID = /^[1-9A-HJ-NP-Za-km-z]{22}$/;
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The 18 colour names of reference §4.2. */
export const COLOR_NAMES = [
  'amber', 'blue', 'cyan', 'emerald', 'fuchsia', 'green', 'indigo', 'lime', 'lunar',
  'orange', 'pink', 'purple', 'red', 'rose', 'sky', 'teal', 'violet', 'yellow',
];

/** Creates a custom collection and returns its response body. */
export async function createCollection(h: Harness, name: string, key?: string): Promise<any> {
  const res = await h.post('/v0/collections', { name }, key ? { key } : {});
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Creates a field on `collection` (id or ref) and returns its response body. */
export async function createField(h: Harness, collection: string, body: Record<string, unknown>, key?: string): Promise<any> {
  const res = await h.post(`/v0/collections/${collection}/fields`, body, key ? { key } : {});
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Stores an item of `collectionId` holding `values` (field id → stored forms), index included; returns its id. */
export async function insertItem(h: Harness, collectionId: string, values: Record<string, unknown[]>): Promise<string> {
  const fields = await h.store.fields.listByCollection(h.orgId, collectionId);
  const now = new Date().toISOString();
  const item: Item = { id: newId(), orgId: h.orgId, collectionId, values, createdAt: now, updatedAt: now };
  await h.store.items.insert(item, await storedWireOf(h.store, item), indexEntries(fields, item.values));
  return item.id;
}

/** The stored values document of one item. */
export async function itemValues(h: Harness, itemId: string): Promise<Record<string, unknown[]>> {
  const [item] = await h.store.items.findMany(h.orgId, [itemId]);
  assert.ok(item, `item ${itemId} exists`);
  return item.values;
}
