// Removing values that a schema change made meaningless: all values of deleted fields, values (and defaults)
// naming a removed choice option or funnel step, relations into collections no longer allowed. Items keep their
// updated_at: these are consequences of a field change, not edits of the item.
import { indexEntries } from './items.ts';
import type { Field } from './fields.ts';
import type { Store } from './ports/store.ts';
import { storedWireOf } from './item-wire.ts';

export async function removeFieldValues(store: Store, orgId: string, fieldIds: string[]): Promise<void> {
  const items = await store.items.findMany(orgId, await store.items.idsWithValues(orgId, fieldIds));
  for (const item of items) {
    for (const id of fieldIds) delete item.values[id];
    await store.items.update(item, await storedWireOf(store, item), [], fieldIds);
  }
}

/** Removes the values of `field` whose key (option, step or item id) is in `keys`. */
export async function removeValuesByKey(store: Store, field: Field, keys: string[]): Promise<void> {
  const holders = await store.items.idsByTextKey(field.orgId, field.id, keys);
  await dropValues(store, field, [...new Set([...holders.values()].flat())], (stored) => keys.includes((stored as { id: string }).id));
}

export async function removeRelationsInto(store: Store, field: Field, collectionIds: string[]): Promise<void> {
  const itemIds = await store.items.idsWithRelationsInto(field.orgId, field.id, collectionIds);
  const items = await store.items.findMany(field.orgId, itemIds);
  const targets = new Set(items.flatMap((item) => (item.values[field.id] ?? []).map((v) => (v as { id: string }).id)));
  const outside = new Set(
    (await store.items.findMany(field.orgId, [...targets])).filter((t) => collectionIds.includes(t.collectionId)).map((t) => t.id),
  );
  await dropValues(store, field, itemIds, (stored) => outside.has((stored as { id: string }).id));
}

/** Removes the step values, and step defaults, of every stage field using the funnel that name one of `stepIds`. */
export async function removeFunnelSteps(store: Store, orgId: string, funnelId: string, stepIds: string[]): Promise<void> {
  if (stepIds.length === 0) return;
  for (const field of await store.fields.listByFunnel(orgId, funnelId)) {
    await removeValuesByKey(store, field, stepIds);
    const defaults = field.defaultValues.filter((d) => !stepIds.includes((d as { id: string }).id));
    if (defaults.length < field.defaultValues.length) await store.fields.update({ ...field, defaultValues: defaults });
  }
}

async function dropValues(store: Store, field: Field, itemIds: string[], drop: (stored: unknown) => boolean): Promise<void> {
  for (const item of await store.items.findMany(field.orgId, itemIds)) {
    const kept = (item.values[field.id] ?? []).filter((v) => !drop(v));
    if (kept.length > 0) item.values[field.id] = kept;
    else delete item.values[field.id];
    await store.items.update(item, await storedWireOf(store, item), indexEntries([field], item.values), [field.id]);
  }
}
