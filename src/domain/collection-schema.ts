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

/**
 * Schemas by the parts they were built from: the store hands out the same parts while the schema is
 * unchanged, so its maps (and what is derived from it once, like the wire tag) are built once, not per request.
 */
const built = new WeakMap<SchemaParts, CollectionSchema>();

/** The collection's schema; anything but a collection of the organization is 404. Callers must not change it. */
export async function loadSchema(store: Store, orgId: string, collectionKey: string): Promise<CollectionSchema> {
  const parts = await store.loadSchema(orgId, collectionKey);
  if (!parts) throw notFound();
  return schemaOf(parts);
}

/** The schema made of these parts (the same object for the same parts). */
export function schemaOf(parts: SchemaParts): CollectionSchema {
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

/** A field by id or ref. */
export function fieldByKey(schema: CollectionSchema, key: string): Field | undefined {
  return schema.byId.get(key) ?? schema.byRef.get(key);
}

export function valueContext(schema: CollectionSchema, field: Field): ValueContext {
  const funnel = field.config.funnelId ? schema.funnels.get(field.config.funnelId) : undefined;
  return funnel ? { field, funnel } : { field };
}
