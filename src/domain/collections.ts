// Collections: creation (with the system fields every collection has), retrieval by id or ref, renames that
// never touch the ref.
import { invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { deriveRef, uniqueRef } from './refs.ts';
import { timestamp, type Clock } from './clock.ts';
import { buildFields, type FieldSpec } from './fields.ts';
import { describeFields, type FieldView } from './field-views.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { SchemaParts, Store } from './ports/store.ts';
import { longerThan } from './characters.ts';

export type CollectionKind = 'system' | 'form' | 'custom';

export interface Collection {
  id: string;
  orgId: string;
  ref: string;
  name: string;
  description: string | null;
  iconName: string;
  kind: CollectionKind;
  createdAt: string;
  updatedAt: string;
}

export interface CollectionWithFields {
  collection: Collection;
  fields: FieldView[];
}

export interface CollectionSpec {
  name: string;
  ref?: string;
  description?: string | null;
  iconName?: string;
  kind?: CollectionKind;
  /** Fields beyond the `name`, `created_at` and `updated_at` that every collection gets. */
  fields?: FieldSpec[];
}

export interface CollectionInput {
  name: string;
  description?: string | null;
  icon_name?: string;
}

export type CollectionPatch = Partial<CollectionInput>;

const DEFAULT_ICON = 'folder';
const NAME_MAX = 255;
const DESCRIPTION_MAX = 4096;

/** Every collection starts with these: a writable name and the two readonly timestamps. */
const BASE_FIELDS: FieldSpec[] = [
  { name: 'Name', ref: 'name', type: 'field/text/single_line', kind: 'system' },
  { name: 'Created at', ref: 'created_at', type: 'field/datetime', kind: 'system', readonly: true },
  { name: 'Updated at', ref: 'updated_at', type: 'field/datetime', kind: 'system', readonly: true },
];

export async function createCollectionWithFields(
  store: Store,
  orgId: string,
  spec: CollectionSpec,
  clock?: Clock,
): Promise<CollectionWithFields> {
  const now = timestamp(clock);
  const taken = new Set(await store.collections.refs(orgId));
  const collection: Collection = {
    id: newId(),
    orgId,
    ref: uniqueRef(spec.ref ?? deriveRef(spec.name, 'collection'), taken),
    name: spec.name,
    description: spec.description ?? null,
    iconName: spec.iconName ?? DEFAULT_ICON,
    kind: spec.kind ?? 'custom',
    createdAt: now,
    updatedAt: now,
  };
  const fields = buildFields(orgId, collection.id, [...BASE_FIELDS, ...(spec.fields ?? [])], new Set(), now, newId);
  await store.collections.insert(collection);
  await store.fields.insertMany(fields);
  return { collection, fields: fields.map((field) => ({ field })) };
}

export async function createCollection(
  store: Store,
  orgId: string,
  input: CollectionInput,
  clock?: Clock,
): Promise<CollectionWithFields> {
  const spec: CollectionSpec = { name: checkName(input.name) };
  if (input.description !== undefined) spec.description = checkDescription(input.description);
  if (input.icon_name !== undefined) spec.iconName = checkIcon(input.icon_name);
  return store.transaction((tx) => createCollectionWithFields(tx, orgId, spec, clock), orgId);
}

export async function updateCollection(
  store: Store,
  orgId: string,
  idOrRef: string,
  patch: CollectionPatch,
  clock?: Clock,
): Promise<CollectionWithFields> {
  return store.transaction(async (tx) => {
    const current = await findCollection(tx, orgId, idOrRef);
    const next: Collection = { ...current, updatedAt: timestamp(clock) };
    if (patch.name !== undefined) next.name = checkName(patch.name);
    if (patch.description !== undefined) next.description = checkDescription(patch.description);
    if (patch.icon_name !== undefined) next.iconName = checkIcon(patch.icon_name);
    await tx.collections.update(next);
    return { collection: next, fields: await describeFields(tx, orgId, await tx.fields.listByCollection(orgId, next.id)) };
  }, orgId);
}

/** The organization's collection with that id or ref; anything else (another tenant's included) is 404. */
export async function findCollection(store: Store, orgId: string, idOrRef: string): Promise<Collection> {
  return orNotFound(store.collections.find(orgId, idOrRef));
}

/**
 * The fields as a collection shows them, per schema object the store hands out: what they show of other
 * objects (funnels, related fields and collections) is the organization's schema too, which a new object
 * replaces whenever any of it changes.
 */
const shownFields = new WeakMap<SchemaParts, Promise<FieldView[]>>();

/** The collection with its fields, from the schema the store keeps while the organization's schema is unchanged. */
export async function getCollection(store: Store, orgId: string, idOrRef: string): Promise<CollectionWithFields> {
  const parts = await orNotFound(store.loadSchema(orgId, idOrRef));
  let fields = shownFields.get(parts);
  if (!fields) {
    fields = describeFields(store, orgId, parts.fields, parts.funnels);
    shownFields.set(parts, fields);
    // A failed read is not remembered.
    fields.catch(() => shownFields.delete(parts));
  }
  return { collection: parts.collection, fields: await fields };
}

/**
 * A page of collections, each with its fields as a retrieve shows them: the reference allows list elements
 * with or without `fields`, and the TypeScript SDK types them with (reading `fields` of one without throws).
 */
export async function listCollections(store: Store, orgId: string, page: PageRequest): Promise<Page<CollectionWithFields>> {
  const found = await store.collections.list(orgId, page);
  return { ...found, rows: await Promise.all(found.rows.map((c) => getCollection(store, orgId, c.id))) };
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw invalidAt('/name', 'name must not be blank; send the collection\'s display name');
  if (longerThan(trimmed, NAME_MAX)) throw invalidAt('/name', `name must be at most ${NAME_MAX} characters`);
  return trimmed;
}

function checkDescription(description: string | null): string | null {
  if (description === null) return null;
  if (description.length > DESCRIPTION_MAX) {
    throw invalidAt('/description', `description must be at most ${DESCRIPTION_MAX} characters`);
  }
  return description.trim() === '' ? null : description;
}

function checkIcon(icon: string): string {
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(icon)) {
    throw invalidAt('/icon_name', 'icon_name must be 1 to 64 lower-case letters, digits, "-" or "_" (e.g. "briefcase")');
  }
  return icon;
}
