// A request's `values` map checked against a collection's fields (reference §6.2–6.3, §6.5): errors point at
// /values/<ref> (reference A.5), cardinality leniency on input, null to clear, update strategies, defaults and
// required fields.
import { invalidAt } from './errors.ts';
import { isPlaceholder, parseValue, ValueProblem } from './field-types/index.ts';
import { isTimestampField, valueContext, type CollectionSchema } from './collection-schema.ts';
import { valueTypeOf, type Field } from './fields.ts';
import { indexKey, type Item } from './items.ts';

/** A field's new values (null clears), with what later checks need to report a bad one. */
export interface FieldChange {
  field: Field;
  values: unknown[] | null;
  /** Where the field sits in the body: an error about any of its values points here, as the hosted API's do. */
  pointer: string;
  /**
   * The field's default values, not the request's: a relation default whose item was deleted, or whose
   * collection the field no longer allows, is left out rather than refused (the client never sent it).
   */
  fromDefault?: boolean;
}

/** How an error detail names value `i` of a change: the ref, or `ref[i]` when it holds several. */
export const valueLabel = ({ field, values }: FieldChange, i: number): string => ((values?.length ?? 0) > 1 ? `${field.ref}[${i}]` : field.ref);

export type OneStrategy = 'replace' | 'preserve';
export type ManyStrategy = 'replace' | 'preserve' | 'merge';

export interface Strategies {
  one: OneStrategy;
  many: ManyStrategy;
}

export const REPLACE: Strategies = { one: 'replace', many: 'replace' };

/** Values one field may be given in one request: enough for any real list, bounded for the write's cost. */
export const MAX_VALUES_PER_FIELD = 1000;

const escapePointer = (ref: string): string => ref.replace(/~/g, '~0').replace(/\//g, '~1');

/** A few refs a values map may name: readonly fields would only be refused in turn. */
const writableRefs = (schema: CollectionSchema): string =>
  schema.fields.filter((f) => !f.readonly).slice(0, 5).map((f) => f.ref).join(', ');

/**
 * Checks every entry of a values map; `base` is where the map sits in the body (`/values`, `/identifiers`).
 * `toMatch`: the values are looked for, not stored (upsert identifiers), so a cardinality-one field may be
 * given several.
 */
export function parseValueMap(schema: CollectionSchema, input: Record<string, unknown>, base = '/values', toMatch = false): FieldChange[] {
  return Object.entries(input).map(([key, raw]) => {
    const pointer = `${base}/${escapePointer(key)}`;
    const field = schema.byRef.get(key) ?? schema.byId.get(key);
    if (!field) throw invalidAt(pointer, `${schema.collection.ref} has no field "${key}"; use a field ref such as ${writableRefs(schema)}`);
    if (field.readonly) throw invalidAt(pointer, `${field.ref} is readonly and set by the service`);
    if (raw === null) return { field, values: null, pointer };
    const list = Array.isArray(raw) ? raw : [raw];
    if (list.length > MAX_VALUES_PER_FIELD) {
      throw invalidAt(pointer, `${field.ref} takes at most ${MAX_VALUES_PER_FIELD} values in one request, got ${list.length}`);
    }
    if (!toMatch && field.cardinality === 'one' && list.length > 1) {
      throw invalidAt(pointer, `${field.ref} holds one value (cardinality "one"), got ${list.length}`);
    }
    const values = list.map((value, i) => {
      try {
        return parseValue(value, valueContext(schema, field));
      } catch (error) {
        if (error instanceof ValueProblem) throw invalidAt(pointer, `${valueLabel({ field, values: list, pointer }, i)} ${error.detail}`);
        throw error;
      }
    });
    return { field, values: values.length === 0 ? null : values, pointer };
  });
}

export const sameValue = (field: Field, a: unknown, b: unknown): boolean => {
  const ka = indexKey(field, a);
  const kb = indexKey(field, b);
  return ka.text === kb.text && ka.num === kb.num;
};

/** The item's values after the changes, under the update strategies. */
export function applyChanges(current: Item['values'], changes: FieldChange[], strategies: Strategies): Item['values'] {
  const next: Item['values'] = { ...current };
  for (const { field, values } of changes) {
    const existing = current[field.id] ?? [];
    const strategy = field.cardinality === 'one' ? strategies.one : strategies.many;
    if (strategy === 'preserve' && existing.length > 0) continue;
    let result = values ?? [];
    if (strategy === 'merge') {
      result = [...existing];
      for (const value of values ?? []) if (!result.some((r) => sameValue(field, r, value))) result.push(value);
    }
    if (result.length > 0) next[field.id] = result;
    else delete next[field.id];
  }
  return next;
}

/**
 * Changes that give the fields a create request did not mention their default values; placeholders resolve
 * now. Relation defaults go through the target checks of any value, and are left out where they fail.
 */
export function defaultChanges(schema: CollectionSchema, changes: FieldChange[], now: string, memberId?: string): FieldChange[] {
  const mentioned = new Set(changes.map((c) => c.field.id));
  return schema.fields.flatMap((field) => {
    if (mentioned.has(field.id) || field.defaultValues.length === 0 || isTimestampField(field)) return [];
    const values = field.defaultValues.flatMap((d) => {
      if (!isPlaceholder(d)) return [d];
      if (d.placeholder === 'current_date') return [now.slice(0, 10)];
      if (d.placeholder === 'current_datetime') return [now];
      return memberId ? [{ id: memberId, type: 'item' }] : [];
    });
    return values.length > 0 ? [{ field, values, pointer: `/values/${escapePointer(field.ref)}`, fromDefault: true }] : [];
  });
}

/**
 * Required fields hold a value. `fields`: the ones to check — an update checks only those it writes, so items
 * older than a required field stay updatable until someone sets it.
 */
export function checkRequired(schema: CollectionSchema, values: Item['values'], fields: readonly Field[] = schema.fields): void {
  for (const field of fields) {
    if (field.required && !isTimestampField(field) && !(values[field.id]?.length)) {
      throw invalidAt(`/values/${escapePointer(field.ref)}`, `${field.ref} is required; send a value of type ${valueTypeOf(field.type)}`);
    }
  }
}
