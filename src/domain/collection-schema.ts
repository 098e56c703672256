// A collection with everything needed to check and show its items: fields by id and ref, and the funnels
// of its stage fields. Loaded once per request.
import { notFound } from './errors.ts';
import type { Collection } from './collections.ts';
import type { Field } from './fields.ts';
import type { Funnel } from './funnels.ts';
import type { ValueContext } from './field-types/index.ts';
import type { SchemaParts, Store } from './ports/store.ts';

export interface CollectionSchema {
  collection: Collection;
  fields: Field[];
  byRef: Map<string, Field>;
  byId: Map<string, Field>;
  funnels: Map<string, Funnel>;
}

/** The system datetime fields whose values are the item's own timestamps, not stored values. */
export const TIMESTAMP_REFS = new Set(['created_at', 'updated_at']);

export function isTimestampField(field: Field): boolean {
  return field.kind === 'system' && field.readonly && TIMESTAMP_REFS.has(field.ref);
}

/** Schemas built from the store's parts, which the store hands out again while they are current. */
const built = new WeakMap<SchemaParts, CollectionSchema>();

/** The schema made of these parts (the same object for the same parts). */
export function fromParts(parts: SchemaParts): CollectionSchema {
  let schema = built.get(parts);
  if (!schema) {
    const { collection, fields, funnels } = parts;
    schema = {
      collection,
      fields,
      byRef: new Map(fields.map((f) => [f.ref, f])),
      byId: new Map(fields.map((f) => [f.id, f])),
      funnels: new Map(funnels.map((f) => [f.id, f])),
    };
    built.set(parts, schema);
  }
  return schema;
}

/** The collection's schema; anything but a collection of the organization is 404. */
export async function loadSchema(store: Store, orgId: string, collectionKey: string): Promise<CollectionSchema> {
  const parts = await store.loadSchema(orgId, collectionKey);
  if (!parts) throw notFound();
  return fromParts(parts);
}

/** The schema this process saw last for the collection, perhaps stale (`Store.recentSchema`). */
export function recentSchema(store: Store, orgId: string, collectionKey: string): CollectionSchema | undefined {
  const parts = store.recentSchema(orgId, collectionKey);
  return parts && fromParts(parts);
}

/** A field by id or ref. */
export function fieldByKey(schema: CollectionSchema, key: string): Field | undefined {
  return schema.byId.get(key) ?? schema.byRef.get(key);
}

export function valueContext(schema: CollectionSchema, field: Field): ValueContext {
  const funnel = field.config.funnelId ? schema.funnels.get(field.config.funnelId) : undefined;
  return funnel ? { field, funnel } : { field };
}
