// Relation values between items: targets must exist in the organization and in an allowed collection;
// two-way relations mirror every change on the other item, inside the caller's transaction. Targets are
// locked before they are read (domain/locks.ts): shared while only their existence matters (a delete takes
// them exclusive), exclusive where their mirror values are rewritten; and before the item pointing at them.
import { invalidAt } from './errors.ts';
import { indexEntries, type Item } from './items.ts';
import type { Field } from './fields.ts';
import { valueLabel, type FieldChange } from './item-values.ts';
import type { Store } from './ports/store.ts';
import { storedWireOf } from './item-wire.ts';
import { isPlaceholder } from './field-types/index.ts';
import { relationsLock } from './locks.ts';

interface ItemPointer {
  id: string;
  type: 'item';
  collection?: { id: string; type: 'collection'; ref: string };
}

const idOf = (stored: unknown): string => (stored as ItemPointer).id;

/** Changes whose targets were checked and locked already: a write resolves before it locks its own item. */
const resolved = new WeakSet<FieldChange>();

/** Checks relation targets and completes their pointers with the target's collection. */
export async function resolveRelationTargets(store: Store, orgId: string, changes: FieldChange[]): Promise<void> {
  const relationChanges = changes.filter((c) => c.field.type === 'field/relation' && c.values && !resolved.has(c));
  const ids = [...new Set(relationChanges.flatMap((c) => c.values!.map(idOf)))];
  if (ids.length === 0) return;
  await store.lock([relationsLock(orgId)]);
  // Targets of two-way relations are locked exclusive now, as syncTwoWay will rewrite them: taking them
  // shared first and exclusive later would deadlock two writers pointing at the same target.
  const mirrored = new Set(relationChanges.filter((c) => c.field.config.relationType === 'two_way').flatMap((c) => c.values!.map(idOf)));
  const found = [
    ...(await store.items.findMany(orgId, ids.filter((id) => mirrored.has(id)), 'exclusive')),
    ...(await store.items.findMany(orgId, ids.filter((id) => !mirrored.has(id)), 'shared')),
  ];
  const targets = new Map(found.map((t) => [t.id, t]));
  const collections = new Map(
    (await store.collections.findMany(orgId, [...new Set([...targets.values()].map((t) => t.collectionId))])).map((c) => [c.id, c]),
  );
  for (const change of relationChanges) {
    const allowed = change.field.config.allowedCollectionIds ?? [];
    change.values = change.values!.flatMap((stored, i) => {
      const target = targets.get(idOf(stored));
      if (!target || !allowed.includes(target.collectionId)) {
        if (change.fromDefault) return [];
        if (!target) throw invalidAt(change.pointer, `${valueLabel(change, i)} points at item "${idOf(stored)}", which does not exist`);
        const { ref } = collections.get(target.collectionId)!;
        throw invalidAt(change.pointer, `${valueLabel(change, i)} cannot point at item "${target.id}" of collection ${ref}; the field allows only its allowed_collections`);
      }
      const collection = collections.get(target.collectionId)!;
      return [{ id: target.id, type: 'item', collection: { id: collection.id, type: 'collection', ref: collection.ref } }];
    });
    // The same target twice in one field is one relation.
    change.values = change.values.filter((v, i, all) => all.findIndex((w) => idOf(w) === idOf(v)) === i);
    resolved.add(change);
  }
}

/**
 * A relation field's default values as sent with the field: each target checked like a value (422 at
 * `/default_values/<i>`) and kept as the full pointer, so that the field shows it expanded. Placeholders stay.
 */
export async function resolveRelationDefaults(store: Store, field: Field, defaults: unknown[]): Promise<unknown[]> {
  if (field.type !== 'field/relation') return defaults;
  const changes: FieldChange[] = defaults.map((d, i) => ({ field, values: isPlaceholder(d) ? null : [d], pointer: `/default_values/${i}` }));
  await resolveRelationTargets(store, field.orgId, changes);
  return changes.map((c, i) => c.values?.[0] ?? defaults[i]);
}

/**
 * The relation defaults that still point into the field's allowed collections (a default kept from before
 * defaults were stored as full pointers has no collection, and stays: a create leaves it out if it fails).
 */
export function defaultsAllowed(field: Field, defaults: unknown[]): unknown[] {
  const allowed = field.config.allowedCollectionIds ?? [];
  return defaults.filter((d) => isPlaceholder(d) || (d as ItemPointer).collection === undefined || allowed.includes((d as ItemPointer).collection!.id));
}

/** The field on `target`'s side that mirrors `field`, or undefined when the relation is one-way. */
async function counterpart(store: Store, field: Field, target: Item): Promise<Field | undefined> {
  if (field.config.relationType !== 'two_way') return undefined;
  const ids = field.kind === 'inverse' ? [field.config.sourceFieldId!] : (field.config.reverseFieldIds ?? []);
  return (await store.fields.findMany(field.orgId, ids)).find((f) => f.collectionId === target.collectionId);
}

function pointerTo(item: Item, collectionRef: string): ItemPointer {
  return { id: item.id, type: 'item', collection: { id: item.collectionId, type: 'collection', ref: collectionRef } };
}

/**
 * Mirrors the relation changes between `before` and `after` of `item` onto the items on the other side of
 * its two-way relations. A `one` field on the other side that pointed elsewhere is moved, and the item it
 * pointed at loses its mirror value too.
 */
export async function syncTwoWay(
  store: Store,
  item: Item,
  collectionRef: string,
  fields: Field[],
  before: Item['values'],
  after: Item['values'],
  now: string,
): Promise<void> {
  for (const field of fields) {
    if (field.type !== 'field/relation' || field.config.relationType !== 'two_way') continue;
    const old = new Set((before[field.id] ?? []).map(idOf));
    const current = new Set((after[field.id] ?? []).map(idOf));
    const added = [...current].filter((id) => !old.has(id));
    const removed = [...old].filter((id) => !current.has(id));
    if (added.length === 0 && removed.length === 0) continue;
    for (const target of await store.items.findMany(item.orgId, [...added, ...removed], 'exclusive')) {
      if (target.id === item.id) continue;
      const mirror = await counterpart(store, field, target);
      if (!mirror) continue;
      let values = (target.values[mirror.id] ?? []).filter((v) => idOf(v) !== item.id);
      if (current.has(target.id)) {
        if (mirror.cardinality === 'one') {
          for (const displacedId of values.map(idOf)) await unlink(store, displacedId, field, target.id, now);
          values = [];
        }
        values.push(pointerTo(item, collectionRef));
      }
      await saveField(store, target, mirror, values, now);
    }
  }
}

/**
 * The fields of `item` a two-way relation to itself mirrors onto: a relation field whose values gain or lose
 * the item itself changes its counterpart in the same collection on the item too, in `after`, so that the
 * one write carries both sides (`syncTwoWay` mirrors onto other items, and skips the item itself). A `one`
 * counterpart that pointed elsewhere is moved; `syncTwoWay` then unlinks the item it pointed at. Returns the
 * counterpart fields it changed.
 */
export function mirrorOntoItself(fields: Field[], item: Item, collectionRef: string, before: Item['values'], after: Item['values']): Field[] {
  const changed: Field[] = [];
  const holdsItself = (values: Item['values'], field: Field) => (values[field.id] ?? []).some((v) => idOf(v) === item.id);
  for (const field of fields) {
    if (field.type !== 'field/relation' || field.config.relationType !== 'two_way') continue;
    const now = holdsItself(after, field);
    if (now === holdsItself(before, field)) continue;
    const ids = field.kind === 'inverse' ? [field.config.sourceFieldId!] : (field.config.reverseFieldIds ?? []);
    const mirror = fields.find((f) => ids.includes(f.id) && f.collectionId === item.collectionId);
    if (!mirror || holdsItself(after, mirror) === now) continue;
    const others = (after[mirror.id] ?? []).filter((v) => idOf(v) !== item.id);
    const values = now ? [...(mirror.cardinality === 'one' ? [] : others), pointerTo(item, collectionRef)] : others;
    if (values.length > 0) after[mirror.id] = values;
    else delete after[mirror.id];
    changed.push(mirror);
  }
  return changed;
}

/** Removes `targetId` from `field` of the item `itemId` (the far end of a moved one-to-many link). */
async function unlink(store: Store, itemId: string, field: Field, targetId: string, now: string): Promise<void> {
  const [item] = await store.items.findMany(field.orgId, [itemId], 'exclusive');
  if (!item || !item.values[field.id]) return;
  await saveField(store, item, field, item.values[field.id]!.filter((v) => idOf(v) !== targetId), now);
}

async function saveField(store: Store, item: Item, field: Field, values: unknown[], now: string): Promise<void> {
  if (values.length > 0) item.values[field.id] = values;
  else delete item.values[field.id];
  item.updatedAt = now;
  await store.items.update(item, await storedWireOf(store, item), indexEntries([field], item.values), [field.id]);
}

/** After `itemId` is deleted: relation values pointing at it disappear from every other item. */
export async function removeRelationsTo(store: Store, orgId: string, itemId: string): Promise<void> {
  // New referrers cannot appear meanwhile: they would need the deleted item's lock to check it exists.
  const referrerIds = await store.items.idsReferencing(orgId, itemId);
  const referrers = await store.items.findMany(orgId, referrerIds, 'exclusive');
  const fieldIds = [...new Set(referrers.flatMap((r) => Object.keys(r.values)))];
  const relationFields = (await store.fields.findMany(orgId, fieldIds)).filter((f) => f.type === 'field/relation');
  for (const referrer of referrers) {
    const touched = relationFields.filter((f) => referrer.values[f.id]?.some((v) => idOf(v) === itemId));
    for (const field of touched) {
      const kept = referrer.values[field.id]!.filter((v) => idOf(v) !== itemId);
      if (kept.length > 0) referrer.values[field.id] = kept;
      else delete referrer.values[field.id];
    }
    await store.items.update(referrer, await storedWireOf(store, referrer), indexEntries(touched, referrer.values), touched.map((f) => f.id));
  }
}
