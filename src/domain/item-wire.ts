// The wire form of an item — `{id, type, collection, values}` with values keyed by field ref, `many` fields as
// arrays, choices and steps expanded — and the copy of it every item row keeps (`StoredWire`), written with
// the row so that answers can send it as it is stored instead of parsing, rendering and serialising.
//
// A stored form is only as current as the schema it was rendered with. It carries that schema's `wireTag`,
// a digest of exactly what rendering reads from the schema (below); readers serve the stored form only when
// its tag is the collection's current one, and render from the values otherwise. So a schema change that
// alters how items look (a ref renamed, a field deleted, an option or step renamed, recoloured or removed)
// needs no rewrite of the items to stay correct: their stored forms stop matching, and each is rendered
// again when read until its item is next written. Changes that alter nothing shown (a field's name or
// description, a new field without values) leave the tag, and so the stored forms, as they are.
import { createHash } from 'node:crypto';
import { isTimestampField, loadSchema, valueContext, type CollectionSchema } from './collection-schema.ts';
import { renderValue } from './field-types/index.ts';
import type { Item } from './items.ts';
import type { Store } from './ports/store.ts';

export interface ItemOut {
  id: string;
  type: 'item';
  collection: { id: string; type: 'collection'; ref: string };
  values: Record<string, unknown>;
}

/** An item's wire form as stored: the JSON text, and the `wireTag` of the schema it was rendered under. */
export interface StoredWire {
  tag: string;
  json: string;
}

/** An item as read to be answered: its stored wire form when that is current, otherwise the item to render. */
export type ServedItem = Item | { id: string; wire: string };

/**
 * Changes with every change to renderItem's output for the same item and schema: stored forms rendered by an
 * older release then stop matching (bump it with any such change).
 */
const WIRE_FORMAT = 1;

/** `only`, when given, limits the values to those field ids (search's `include`). */
export function renderItem(item: Item, schema: CollectionSchema, only?: ReadonlySet<string>): ItemOut {
  const values: Record<string, unknown> = {};
  for (const field of schema.fields) {
    if (only && !only.has(field.id)) continue;
    if (isTimestampField(field)) {
      values[field.ref] = { type: 'value/datetime', data: field.ref === 'created_at' ? item.createdAt : item.updatedAt };
      continue;
    }
    const stored = item.values[field.id];
    if (!stored || stored.length === 0) continue;
    const context = valueContext(schema, field);
    values[field.ref] = field.cardinality === 'many' ? stored.map((v) => renderValue(v, context)) : renderValue(stored[0], context);
  }
  const { collection } = schema;
  return { id: item.id, type: 'item', collection: { id: collection.id, type: 'collection', ref: collection.ref }, values };
}

const tags = new WeakMap<CollectionSchema, string>();

/**
 * The digest of everything renderItem reads from the schema: the collection's id and ref, and per field in
 * order its id, ref, kind, readonly flag (timestamps), cardinality and type, the options of a choice field
 * and the steps of a stage field's funnel. Keep it in step with renderItem and the value types' `render`.
 */
export function wireTag(schema: CollectionSchema): string {
  let tag = tags.get(schema);
  if (tag === undefined) {
    const { collection } = schema;
    const fields = schema.fields.map((field) => [
      field.id,
      field.ref,
      field.kind,
      field.readonly,
      field.cardinality,
      field.type,
      field.type === 'field/choice' ? (field.config.options ?? []) : null,
      field.type === 'field/stage' ? (valueContext(schema, field).funnel?.steps ?? null) : null,
    ]);
    const shown = JSON.stringify([WIRE_FORMAT, collection.id, collection.ref, fields]);
    tag = createHash('sha256').update(shown).digest('base64url').slice(0, 22);
    tags.set(schema, tag);
  }
  return tag;
}

/** The stored wire form of `item` under `schema`, its collection's. */
export function storedWire(item: Item, schema: CollectionSchema): StoredWire {
  return { tag: wireTag(schema), json: JSON.stringify(renderItem(item, schema)) };
}

/** `storedWire` for an item whose schema the caller does not hold (a relation's far end, a value cleanup). */
export async function storedWireOf(store: Store, item: Item): Promise<StoredWire> {
  return storedWire(item, await loadSchema(store, item.orgId, item.collectionId));
}

/** The JSON text of a read item: its stored form as it is, or its rendering (always, for a selection of fields). */
export function servedJson(served: ServedItem, schema: CollectionSchema, only?: ReadonlySet<string>): string {
  if ('wire' in served && only === undefined) return served.wire;
  if ('wire' in served) throw new Error('a stored wire form cannot be narrowed to selected fields; read the item with its values');
  return JSON.stringify(renderItem(served, schema, only));
}
