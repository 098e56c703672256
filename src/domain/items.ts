// The item model: values are kept per field id as arrays of stored forms (cardinality only decides how they
// are shown), plus the typed, normalised index keys every filter, sort and unique check runs on.
import { createHash } from 'node:crypto';
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

/** One value's entry in the index: text keys are lower-cased; `suffix` (the reversed key) serves ends_with. */
export interface IndexEntry {
  fieldId: string;
  position: number;
  text: string | null;
  num: number | null;
  suffix?: string | null;
}

export type IndexKey = Omit<IndexEntry, 'fieldId' | 'position'>;

/** Texts up to this many UTF-8 bytes are their own key (every single-line text fits). */
const KEY_BYTES_MAX = 2000;
/** How much of a longer text its key keeps; with the separator and digest the key exceeds KEY_BYTES_MAX. */
const KEPT_BYTES = 1960;
/** Between the kept part and the digest: the lowest character a text column of every engine can hold. */
const DIGEST_SEPARATOR = '\u0001';

/** The longest start of `text` that fits in `max` UTF-8 bytes without splitting a character. */
function cutBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  const kept = Buffer.from(text).subarray(0, max).toString();
  return kept.endsWith('\uFFFD') ? kept.slice(0, -1) : kept;
}

/**
 * The key of a text: whole when short, otherwise the kept prefix plus a digest of the whole, so equality
 * stays exact while prefix ranges still work on the kept part. A long text's key is longer than
 * KEY_BYTES_MAX, so it can never equal the key of a short text.
 */
export function textKey(text: string): string {
  if (Buffer.byteLength(text) <= KEY_BYTES_MAX) return text;
  return `${cutBytes(text, KEPT_BYTES)}${DIGEST_SEPARATOR}${createHash('sha256').update(text).digest('hex')}`;
}

/**
 * What a prefix search compares keys with: the prefix, cut to what long keys keep, so texts of any length
 * that start with it match (a prefix longer than that also matches texts that differ only beyond it).
 */
export const prefixKey = (prefix: string): string => cutBytes(prefix, KEPT_BYTES);

export const reverseText = (text: string): string => [...text].reverse().join('');

const searchable = (text: string): IndexKey => ({ text: textKey(text), num: null, suffix: textKey(reverseText(text)) });

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
      return searchable((stored as { username: string }).username.toLowerCase());
    case 'field/choice':
    case 'field/stage':
    case 'field/relation':
      return { text: (stored as { id: string }).id, num: null };
    case 'field/date':
    case 'field/datetime':
      return { text: stored as string, num: null };
    case 'field/identifier':
      return searchable(stored as string);
    default:
      return searchable((stored as string).toLowerCase());
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
