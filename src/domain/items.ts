// The item model: values are kept per field id as arrays of stored forms (cardinality only decides how they
// are shown), plus the typed, normalised index keys every filter, sort and unique check runs on.
import type { Field } from './fields.ts';

export interface Item {
  id: string;
  orgId: string;
  collectionId: string;
  /** Field id → stored values, in order; a field without values is absent. */
  values: Record<string, unknown[]>;
  createdAt: string;
  updatedAt: string;
}

/** One value's entry in the index: text keys are lower-cased; `suffixes` asks for an ends_with key too. */
export interface IndexEntry {
  fieldId: string;
  position: number;
  text: string | null;
  num: number | null;
  suffixes?: boolean;
}

export type IndexKey = Omit<IndexEntry, 'fieldId' | 'position'>;

const TEXT_KEY_MAX = 512;

/** The index key of one stored value of `field`. */
export function indexKey(field: Field, stored: unknown): IndexKey {
  switch (field.type) {
    case 'field/number/unitless_integer':
    case 'field/number/unitless_float':
    case 'field/number/percentage':
      return { text: null, num: stored as number };
    case 'field/boolean':
      return { text: null, num: stored ? 1 : 0 };
    case 'field/number/monetary': {
      const money = stored as { currency: string; in_minor_units: number };
      return { text: money.currency, num: money.in_minor_units };
    }
    case 'field/uri/social_x':
    case 'field/uri/social_linked_in':
      return { text: (stored as { username: string }).username.toLowerCase(), num: null, suffixes: true };
    case 'field/choice':
    case 'field/stage':
    case 'field/relation':
      return { text: (stored as { id: string }).id, num: null };
    case 'field/date':
    case 'field/datetime':
      return { text: stored as string, num: null };
    case 'field/identifier':
      return { text: stored as string, num: null, suffixes: true };
    default:
      return { text: (stored as string).toLowerCase().slice(0, TEXT_KEY_MAX), num: null, suffixes: true };
  }
}

export function indexEntries(fields: Field[], values: Item['values']): IndexEntry[] {
  const entries: IndexEntry[] = [];
  for (const field of fields) {
    const list = values[field.id];
    if (!list) continue;
    list.forEach((stored, position) => entries.push({ fieldId: field.id, position, ...indexKey(field, stored) }));
  }
  return entries;
}
