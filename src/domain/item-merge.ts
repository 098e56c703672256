// Item merge (reference §5.3 "merge"): the source item is folded into the destination and deleted, in one
// transaction holding the schema lock shared and both items' locks. Values combine field by field: the
// destination's values win; a field the destination leaves empty takes the source's values; a `many`
// field keeps the destination's values and adds the source's ones it lacks. Relation values anywhere that
// pointed at the source (one-way and the mirrors of two-way relations) point at the destination instead,
// notes, files and every other entity linked to the source are linked to the destination, and activities
// that name the source stay as they are (history). Relations between the two items themselves are dropped,
// so the destination never points at itself. `activity/item_merged` is recorded with the source as object
// and the destination as target.
import { invalidAt, notFound } from './errors.ts';
import { timestamp, type Clock } from './clock.ts';
import { isTimestampField, loadSchema } from './collection-schema.ts';
import { sameValue, type FieldChange } from './item-values.ts';
import { checkUnique, type ItemView } from './item-writes.ts';
import { syncTwoWay } from './item-relations.ts';
import { indexEntries, type Item } from './items.ts';
import { recordWrite } from './activity.ts';
import type { Principal } from './api-keys.ts';
import type { Field } from './fields.ts';
import type { Store } from './ports/store.ts';
import { recordLock, relationsLock } from './locks.ts';
import { storedWire, storedWireOf } from './item-wire.ts';

export interface MergeInput {
  source: { id: string; type?: string };
  destination: { id: string; type?: string };
}

const idOf = (stored: unknown): string => (stored as { id: string }).id;

/** The destination's values after taking in the source's (see the module comment). */
function combine(fields: Field[], source: Item, destination: Item): { values: Item['values']; changes: FieldChange[] } {
  const values: Item['values'] = { ...destination.values };
  const changes: FieldChange[] = [];
  const pair = new Set([source.id, destination.id]);
  for (const field of fields) {
    if (isTimestampField(field)) continue;
    let incoming = source.values[field.id] ?? [];
    // Relations between the two merged items would become the destination pointing at itself.
    if (field.type === 'field/relation') incoming = incoming.filter((v) => !pair.has(idOf(v)));
    if (incoming.length === 0) continue;
    const existing = values[field.id] ?? [];
    let next: unknown[];
    if (existing.length === 0) next = [...incoming];
    else if (field.cardinality === 'many') {
      next = [...existing];
      for (const value of incoming) if (!next.some((v) => sameValue(field, v, value))) next.push(value);
      if (next.length === existing.length) continue;
    } else continue;
    values[field.id] = next;
    changes.push({ field, values: next, pointer: '/source' });
  }
  // The destination's own relations to the source go too.
  for (const field of fields) {
    if (field.type !== 'field/relation' || !values[field.id]) continue;
    const kept = values[field.id]!.filter((v) => idOf(v) !== source.id);
    if (kept.length === values[field.id]!.length) continue;
    if (kept.length > 0) values[field.id] = kept;
    else delete values[field.id];
    const change = changes.find((c) => c.field.id === field.id);
    if (change) change.values = kept;
    else changes.push({ field, values: kept, pointer: '/source' });
  }
  return { values, changes };
}

export async function mergeItems(store: Store, principal: Principal, collectionKey: string, input: MergeInput, clock?: Clock): Promise<ItemView> {
  const orgId = principal.orgId;
  return store.transaction(async (tx) => {
    await tx.lockSchema(orgId, 'shared');
    // The merge locks the items pointing at either item after the two (domain/locks.ts).
    await tx.lock([relationsLock(orgId)]);
    const schema = await loadSchema(tx, orgId, collectionKey);
    const { collection } = schema;
    const sourceId = input.source.id;
    const destinationId = input.destination.id;
    if (sourceId === destinationId) {
      throw invalidAt('/destination/id', 'source and destination must be two different items; an item cannot be merged into itself');
    }
    const found = new Map((await tx.items.findMany(orgId, [sourceId, destinationId], 'exclusive')).map((i) => [i.id, i]));
    const source = found.get(sourceId);
    const destination = found.get(destinationId);
    // An item that does not exist is a 404, as for any unknown id; one of another collection is a 422 (reference).
    if (!source || !destination) throw notFound();
    for (const [item, pointer] of [[source, '/source/id'], [destination, '/destination/id']] as const) {
      if (item.collectionId !== collection.id) throw invalidAt(pointer, `${pointer.split('/')[1]} must be an item of ${collection.ref}; "${item.id}" is an item of another collection`);
    }
    const now = timestamp(clock);
    const destinationPointer = { id: destination.id, type: 'item', collection: { id: collection.id, type: 'collection', ref: collection.ref } };

    const { values, changes } = combine(schema.fields, source, destination);
    // The source goes first, with its index rows, so the unique check below does not see its values as taken.
    await tx.items.delete(orgId, source.id);

    // Relation values of other items that pointed at the source point at the destination (once).
    const referrerIds = (await tx.items.idsReferencing(orgId, source.id)).filter((id) => id !== destination.id);
    const referrers = await tx.items.findMany(orgId, referrerIds, 'exclusive');
    const relationFields = (await tx.fields.findMany(orgId, [...new Set(referrers.flatMap((r) => Object.keys(r.values)))])).filter(
      (f) => f.type === 'field/relation',
    );
    for (const referrer of referrers) {
      const touched = relationFields.filter((f) => referrer.values[f.id]?.some((v) => idOf(v) === source.id));
      for (const field of touched) {
        const next: unknown[] = [];
        for (const v of referrer.values[field.id]!) {
          // A two-way mirror only loses the source: syncTwoWay below adds the destination where the
          // destination's combined values point back (a `one` field the destination kept does not).
          if (idOf(v) === source.id && field.config.relationType === 'two_way') continue;
          const replaced = idOf(v) === source.id ? destinationPointer : v;
          if (!next.some((n) => idOf(n) === idOf(replaced))) next.push(replaced);
        }
        // A `one` field keeps one value.
        if (next.length > 0) referrer.values[field.id] = field.cardinality === 'one' ? next.slice(0, 1) : next;
        else delete referrer.values[field.id];
      }
      if (touched.length === 0) continue;
      referrer.updatedAt = now;
      await tx.items.update(referrer, await storedWireOf(tx, referrer), indexEntries(touched, referrer.values), touched.map((f) => f.id));
    }

    // The destination with the combined values; two-way relations it gained are mirrored on their targets.
    const next: Item = { ...destination, values, updatedAt: now };
    await checkUnique(tx, schema, next, changes);
    const touched = changes.map((c) => c.field);
    const wire = storedWire(next, schema);
    await tx.items.update(next, wire, indexEntries(touched, values), touched.map((f) => f.id));
    await syncTwoWay(tx, next, collection.ref, schema.fields, destination.values, values, now);

    // Notes, files, calls, meetings… linked to the source are linked to the destination, in place, once.
    const links = await tx.links.sourcesOf(orgId, { type: 'item', id: source.id });
    const owners = [...new Map(links.map((l) => [`${l.fromType}\u0000${l.fromId}\u0000${l.role}`, l])).values()];
    await tx.lock([...new Set(owners.map((l) => recordLock(l.fromType, l.fromId)))]);
    for (const owner of owners) {
      const targets = (await tx.links.targetsOf(orgId, owner.fromType, [owner.fromId], owner.role)).get(owner.fromId) ?? [];
      const moved: { type: string; id: string | null }[] = [];
      for (const t of targets) {
        const target = t.type === 'item' && t.id === source.id ? { type: 'item', id: destination.id } : t;
        if (!moved.some((m) => m.type === target.type && m.id === target.id)) moved.push(target);
      }
      await tx.links.replace(orgId, owner.fromType, owner.fromId, owner.role, moved);
    }
    await tx.links.deleteEntity(orgId, 'item', source.id);

    const sourcePointer = { id: source.id, type: 'item', collection: destinationPointer.collection };
    await recordWrite(tx, principal, 'activity/item_merged', now, sourcePointer, [destinationPointer]);
    return { item: next, schema, json: wire.json };
  });
}
