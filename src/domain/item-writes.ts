// Item writes: create, update (with strategies), delete and upsert. Each is one transaction that checks
// values, relation targets, required and unique fields, keeps two-way relations mirrored and records
// the activity the change causes. Writers of one organization run side by side: each holds the schema lock
// shared and locks only what it reads to decide (domain/locks.ts): the item it changes, the identifier and
// unique values it checks, the relation targets it checks or mirrors onto.
import { AppError, invalidAt, notFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { fieldByKey, loadSchema, recentSchema, type CollectionSchema } from './collection-schema.ts';
import { applyChanges, checkRequired, defaultChanges, parseValueMap, REPLACE, type FieldChange, type Strategies } from './item-values.ts';
import { mirrorOntoItself, removeRelationsTo, resolveRelationTargets, syncTwoWay } from './item-relations.ts';
import { indexEntries, indexKey, type IndexKey, type Item } from './items.ts';
import { constituent, recordActivity } from './activity.ts';
import type { Principal } from './api-keys.ts';
import type { LockMode, Store } from './ports/store.ts';
import { relationsLock, valueLock } from './locks.ts';
import { storedWire } from './item-wire.ts';

/** Identifier values one upsert may match on; each is an index lookup inside the write transaction. */
const MAX_IDENTIFIERS = 100;

export interface ItemView {
  item: Item;
  schema: CollectionSchema;
  /** The item's wire form as it was stored with it: the answer's body. */
  json: string;
}

export interface ValuesInput {
  values: Record<string, unknown>;
}

export interface UpsertInput {
  identifiers: Record<string, unknown>;
  values?: Record<string, unknown>;
}

/** The item `id` of the schema's collection, locked exclusive when `lock` says so; 404 when there is none. */
export async function findItem(store: Store, schema: CollectionSchema, id: string, lock?: LockMode): Promise<Item> {
  const [item] = await store.items.findMany(schema.collection.orgId, [id], lock);
  return inCollection(schema, item);
}

function inCollection(schema: CollectionSchema, item: Item | undefined): Item {
  if (!item || item.collectionId !== schema.collection.id) throw notFound();
  return item;
}

/**
 * The collection's schema and the item `id`, locked exclusive: a concurrent writer of the item is either
 * complete or not begun. The item's read does not depend on the schema, so it shares the schema's round trip.
 */
async function schemaAndLockedItem(tx: Store, orgId: string, collectionKey: string, id: string): Promise<{ schema: CollectionSchema; item: Item }> {
  await tx.lockSchema(orgId, 'shared');
  // A delete goes on to lock the items pointing at this one (removeRelationsTo).
  await tx.lock([relationsLock(orgId)]);
  const [found] = await tx.items.findMany(orgId, [id], 'exclusive');
  const schema = await loadSchema(tx, orgId, collectionKey);
  return { schema, item: inCollection(schema, found) };
}

export function createItem(store: Store, principal: Principal, collectionKey: string, input: ValuesInput, clock?: Clock): Promise<ItemView> {
  return createItemIn(store, principal.orgId, collectionKey, input.values, '/values', clock);
}

/** Creates an item from a values map that sits at `base` in the request (a form submission's is the body). */
export async function createItemIn(store: Store, orgId: string, collectionKey: string, values: Record<string, unknown>, base: string, clock?: Clock): Promise<ItemView> {
  return store.transaction(async (tx) => {
    await tx.lockSchema(orgId, 'shared');
    const schema = await loadSchema(tx, orgId, collectionKey);
    const changes = parseValueMap(schema, values, base);
    return { ...(await insertItem(tx, orgId, schema, changes, timestamp(clock))), schema };
  });
}

export async function updateItem(
  store: Store,
  principal: Principal,
  collectionKey: string,
  id: string,
  input: ValuesInput,
  strategies: Strategies,
  clock?: Clock,
): Promise<ItemView> {
  const orgId = principal.orgId;
  return store.transaction(async (tx) => {
    await tx.lockSchema(orgId, 'shared');
    const schema = await loadSchema(tx, orgId, collectionKey);
    // The relation targets are locked before the item itself, as everywhere (domain/locks.ts).
    const changes = await unlessMissing(tx, schema, id, async () => {
      const parsed = parseValueMap(schema, input.values ?? {});
      await resolveRelationTargets(tx, orgId, parsed);
      return parsed;
    });
    const item = await findItem(tx, schema, id, 'exclusive');
    return { ...(await changeItem(tx, schema, item, changes, strategies, timestamp(clock))), schema };
  });
}

/** Runs the checks of a request about item `id`; should one fail, an item that does not exist is the answer (404). */
async function unlessMissing<T>(tx: Store, schema: CollectionSchema, id: string, checks: () => Promise<T>): Promise<T> {
  try {
    return await checks();
  } catch (error) {
    if (error instanceof AppError) await findItem(tx, schema, id);
    throw error;
  }
}

export async function deleteItem(store: Store, principal: Principal, collectionKey: string, id: string): Promise<void> {
  await store.transaction(async (tx) => {
    // Exclusive on the item: writers pointing relations at it hold it (shared) while they check it exists.
    const { item } = await schemaAndLockedItem(tx, principal.orgId, collectionKey, id);
    await tx.items.delete(principal.orgId, item.id);
    await removeRelationsTo(tx, principal.orgId, item.id);
    // Notes, files (and later calls, meetings) associated with the item no longer list it.
    await tx.links.deleteEntity(principal.orgId, 'item', item.id);
  });
}

/** Finds the item holding any identifier value: none → create, one → update, several → 409. */
export async function upsertItem(
  store: Store,
  principal: Principal,
  collectionKey: string,
  input: UpsertInput,
  strategies: Strategies,
  clock?: Clock,
): Promise<ItemView & { created: boolean }> {
  return store.transaction(async (tx) => {
    await tx.lockSchema(principal.orgId, 'shared');
    // Matched with the schema this process saw last, in the round trip that confirms the current one.
    const early = await matchEarly(tx, principal.orgId, collectionKey, input);
    const schema = await loadSchema(tx, principal.orgId, collectionKey);
    const identifiers = identifierChanges(schema, input.identifiers);
    const changes = parseValueMap(schema, input.values ?? {});
    // Relation targets before the item matched (domain/locks.ts); and where a creation would add default
    // relation values, the relations lock before the identifiers' (insertItem resolves those defaults).
    await resolveRelationTargets(tx, principal.orgId, [...identifiers, ...changes]);
    if (hasRelationDefaults(schema)) await tx.lock([relationsLock(principal.orgId)]);
    const match = identifierMatch(identifiers);
    // The early statements count only if the current schema asks for exactly the same, in the same order.
    const matches = early?.match.signature === match.signature ? early.items : await lockAndMatch(tx, principal.orgId, match);
    if (matches.length > 1) {
      throw new AppError('conflict', `the identifiers match ${matches.length} items (${matches.slice(0, 5).map((m) => m.id).join(', ')}); make them specific to one item`);
    }
    const now = timestamp(clock);
    const [item] = matches;
    if (!item || item.collectionId !== schema.collection.id) {
      const named = new Set(changes.map((c) => c.field.id));
      const unnamed = identifiers.filter((c) => !named.has(c.field.id));
      const ambiguous = unnamed.find((c) => c.field.cardinality === 'one' && c.values!.length > 1);
      if (ambiguous) {
        throw invalidAt(ambiguous.pointer, `${ambiguous.field.ref} holds one value (cardinality "one"): none of the ${ambiguous.values!.length} identifier values matched, so say in values.${ambiguous.field.ref} which one the new item holds`);
      }
      const all = [...unnamed, ...changes];
      return { ...(await insertItem(tx, principal.orgId, schema, all, now)), schema, created: true };
    }
    return { ...(await changeItem(tx, schema, item, changes, strategies, now)), schema, created: false };
  });
}

/** The identifier values of an upsert, checked against the collection's schema. */
function identifierChanges(schema: CollectionSchema, input: Record<string, unknown>): FieldChange[] {
  const identifiers = parseValueMap(schema, input, '/identifiers', true).filter((c) => c.values);
  const identifierCount = identifiers.reduce((n, c) => n + (c.values?.length ?? 0), 0);
  if (identifierCount > MAX_IDENTIFIERS) {
    throw invalidAt('/identifiers', `an upsert matches on at most ${MAX_IDENTIFIERS} identifier values, got ${identifierCount}`);
  }
  if (identifiers.length === 0) {
    throw invalidAt('/identifiers', 'identifiers must map at least one field ref to a value, e.g. {"email": {"type": "value/email", "data": "jane@example.com"}}');
  }
  return identifiers;
}

interface IdentifierMatch {
  locks: string[];
  keys: { fieldId: string; key: IndexKey }[];
  /** Says which statements `lockAndMatch` sends: equal signatures, equal statements. */
  signature: string;
}

function identifierMatch(identifiers: FieldChange[]): IdentifierMatch {
  const locks = identifiers.flatMap(({ field, values }) => values!.map((value) => valueLock(field, value)));
  const keys = identifiers.flatMap(({ field, values }) => values!.map((value) => ({ fieldId: field.id, key: indexKey(field, value) })));
  return { locks, keys, signature: JSON.stringify([locks, keys]) };
}

/**
 * Upserts on a shared identifier value run one at a time, so exactly one of them creates the item; upserts on
 * other values do not wait. Matched and locked in one step; an item deleted meanwhile is not matched, so the
 * upsert creates.
 */
async function lockAndMatch(tx: Store, orgId: string, { locks, keys }: IdentifierMatch): Promise<Item[]> {
  await tx.lock(locks);
  return tx.items.withKeys(orgId, keys, 'exclusive');
}

/**
 * The identifier match as the schema this process saw last asks for it, sent before the current schema is
 * known; undefined where that schema is unknown, rejects the identifiers, or needs reads first: relation
 * targets, locked before the item (domain/locks.ts).
 */
async function matchEarly(tx: Store, orgId: string, collectionKey: string, input: UpsertInput): Promise<{ match: IdentifierMatch; items: Item[] } | undefined> {
  const recent = recentSchema(tx, orgId, collectionKey);
  if (!recent) return undefined;
  if (Object.keys(input.values ?? {}).some((key) => fieldByKey(recent, key)?.type === 'field/relation') || hasRelationDefaults(recent)) return undefined;
  let identifiers: FieldChange[];
  try {
    identifiers = identifierChanges(recent, input.identifiers);
  } catch (error) {
    // Judged again against the current schema, which answers for it.
    if (error instanceof AppError) return undefined;
    throw error;
  }
  if (identifiers.some((c) => c.field.type === 'field/relation')) return undefined;
  const match = identifierMatch(identifiers);
  return { match, items: await lockAndMatch(tx, orgId, match) };
}

/** Whether creating an item of the collection may point relations at other items without being asked to. */
const hasRelationDefaults = (schema: CollectionSchema): boolean => schema.fields.some((f) => f.type === 'field/relation' && f.defaultValues.length > 0);

/** An item as written: the item, and its wire form's JSON as stored with it. */
interface Written {
  item: Item;
  json: string;
}

async function insertItem(store: Store, orgId: string, schema: CollectionSchema, changes: FieldChange[], now: string): Promise<Written> {
  const { collection } = schema;
  const all = [...defaultChanges(schema, changes, now), ...changes];
  await resolveRelationTargets(store, orgId, all);
  const values = applyChanges({}, all, REPLACE);
  checkRequired(schema, values);
  const item: Item = { id: newId(), orgId, collectionId: collection.id, values, createdAt: now, updatedAt: now };
  await checkUnique(store, schema, item, all);
  const wire = storedWire(item, schema);
  await store.items.insert(item, wire, indexEntries(schema.fields, values));
  await syncTwoWay(store, item, collection.ref, schema.fields, {}, values, now);
  const collectionPointer = { id: collection.id, type: 'collection', ref: collection.ref };
  await recordActivity(store, orgId, 'activity/item_created', now, [
    constituent('object', { id: item.id, type: 'item', collection: collectionPointer }),
    constituent('target', collectionPointer),
  ]);
  return { item, json: wire.json };
}

async function changeItem(
  store: Store,
  schema: CollectionSchema,
  item: Item,
  changes: FieldChange[],
  strategies: Strategies,
  now: string,
): Promise<Written> {
  // The relation targets of `changes` are resolved (and locked) by the caller, before it locked the item.
  const before = item.values;
  const after = applyChanges(before, changes, strategies);
  // A relation of the item to itself changes its other side on the item too.
  const mirrored = mirrorOntoItself(schema.fields, item, schema.collection.ref, before, after);
  checkRequired(schema, after, changes.map((c) => c.field));
  const next: Item = { ...item, values: after, updatedAt: now };
  await checkUnique(store, schema, next, changes);
  // Only the fields the write changed get new index entries.
  const touched = [...changes.map((c) => c.field), ...mirrored.filter((m) => !changes.some((c) => c.field.id === m.id))];
  const wire = storedWire(next, schema);
  await store.items.update(next, wire, indexEntries(touched, after), touched.map((f) => f.id), indexEntries(touched, before));
  await syncTwoWay(store, next, schema.collection.ref, schema.fields, before, after, now);
  return { item: next, json: wire.json };
}

/**
 * A unique field's value may not appear on another item; the error points at the offending value. Only the
 * fields being written can newly collide: the others' values were unique when they were written.
 */
export async function checkUnique(store: Store, schema: CollectionSchema, item: Item, changes: FieldChange[]): Promise<void> {
  // A writer checking (or about to write) a unique value waits for any other writer of the same value.
  const unique = changes.filter((c) => c.field.unique);
  await store.lock(unique.flatMap(({ field }) => (item.values[field.id] ?? []).map((value) => valueLock(field, value))));
  for (const { field, pointer } of unique) {
    for (const value of item.values[field.id] ?? []) {
      const key = indexKey(field, value);
      const others = (await store.items.idsWithKey(item.orgId, field.id, key)).filter((id) => id !== item.id);
      if (others.length > 0) {
        throw invalidAt(pointer, `${field.ref} is unique and the value ${JSON.stringify(key.text ?? key.num)} is already used by item ${others[0]}`);
      }
    }
  }
}
