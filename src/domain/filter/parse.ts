// The items filter language (reference §6.4) and sort specs, checked against a collection's fields.
// Malformed shapes are 422 invalid_filter; an unknown field or an op that does not apply to the field's
// type is 422 validation_failed. Every error points into the request (`/filter/filters/1/field`, `/sort/0`).
import { AppError, invalidAt } from '../errors.ts';
import { fieldByKey, isTimestampField, type CollectionSchema } from '../collection-schema.ts';
import { parseDate, parseDateTime } from '../field-types/dates.ts';
import type { Field, FieldType } from '../fields.ts';
import type { FilterNode, KeyColumn, SortKey, ValueOp } from './ast.ts';
import { prefixKey, reverseText, textKey } from '../items.ts';

const TEXT_OPS: ValueOp[] = ['starts_with', 'ends_with', 'contains', 'not_contains', 'eq', 'not_eq', 'gt', 'lt', 'gte', 'lte'];
const ORDER_OPS: ValueOp[] = ['eq', 'not_eq', 'gt', 'lt', 'gte', 'lte'];
const EQUALITY_OPS: ValueOp[] = ['eq', 'not_eq'];
/** Bounds on one filter, so no request can make the database work for long (docs/behaviour.md). */
/**
 * `substrings`: `contains`/`not_contains` conditions, which no index answers: each reads every value of its
 * field in the collection (~75 ms at 100,000 items), so a search holds the database for as many of those.
 */
export const FILTER_LIMITS = { depth: 32, conditions: 64, valueLength: 65_536, containsLength: 256, substrings: 4 } as const;
const DENSE = new Set<FieldType>(['field/choice', 'field/stage', 'field/boolean']);

const malformed = (pointer: string, detail: string) => new AppError('invalid_filter', detail, { pointer });

type Kind = 'text' | 'verbatim' | 'number' | 'boolean' | 'date' | 'datetime' | 'reference';

function kindOf(type: FieldType): Kind {
  switch (type) {
    case 'field/number/unitless_integer':
    case 'field/number/unitless_float':
    case 'field/number/percentage':
    case 'field/number/monetary':
      return 'number';
    case 'field/boolean':
      return 'boolean';
    case 'field/date':
      return 'date';
    case 'field/datetime':
      return 'datetime';
    case 'field/choice':
    case 'field/stage':
    case 'field/relation':
      return 'reference';
    case 'field/identifier':
      return 'verbatim';
    default:
      return 'text';
  }
}

const OPS: Record<Kind, ValueOp[]> = {
  text: TEXT_OPS,
  verbatim: TEXT_OPS,
  number: ORDER_OPS,
  boolean: EQUALITY_OPS,
  date: [...ORDER_OPS, 'starts_with'],
  datetime: [...ORDER_OPS, 'starts_with'],
  reference: EQUALITY_OPS,
};

export function columnOf(field: Field): KeyColumn {
  if (isTimestampField(field)) return field.ref as KeyColumn;
  const kind = kindOf(field.type);
  return kind === 'number' || kind === 'boolean' ? 'num' : 'text';
}

export function parseFilter(schema: CollectionSchema, input: unknown): FilterNode {
  let conditions = 0;
  let substrings = 0;
  const parse = (input: unknown, pointer: string, depth: number): FilterNode => {
    if (depth > FILTER_LIMITS.depth) throw malformed(pointer, `filters nest at most ${FILTER_LIMITS.depth} levels deep`);
    if (++conditions > FILTER_LIMITS.conditions) {
      throw malformed(pointer, `a filter holds at most ${FILTER_LIMITS.conditions} conditions (and/or/not included); split the search`);
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw malformed(pointer, 'a filter must be an object with an "op", e.g. {"op": "eq", "field": "name", "value": "Acme"}');
    }
    const node = input as Record<string, unknown>;
    switch (node.op) {
      case 'and':
      case 'or': {
        if (!Array.isArray(node.filters)) throw malformed(`${pointer}/filters`, `"${node.op}" takes "filters", an array of filters`);
        return { kind: node.op, filters: node.filters.map((f, i) => parse(f, `${pointer}/filters/${i}`, depth + 1)) };
      }
      case 'not':
        if (node.filter === undefined) throw malformed(`${pointer}/filter`, '"not" takes "filter", a single filter object');
        return { kind: 'not', filter: parse(node.filter, `${pointer}/filter`, depth + 1) };
      case 'exists': {
        const field = filterField(schema, node.field, pointer);
        return { kind: 'exists', fieldId: field.id, column: columnOf(field) };
      }
      default:
        if ((node.op === 'contains' || node.op === 'not_contains') && ++substrings > FILTER_LIMITS.substrings) {
          throw malformed(
            `${pointer}/op`,
            `a filter holds at most ${FILTER_LIMITS.substrings} contains/not_contains conditions (each reads every value of its field); use starts_with, ends_with or eq where they do, or split the search`,
          );
        }
        return valueCondition(schema, node, pointer);
    }
  };
  return parse(input, '/filter', 0);
}

function valueCondition(schema: CollectionSchema, node: Record<string, unknown>, pointer: string): FilterNode {
  if (typeof node.op !== 'string' || !(TEXT_OPS as string[]).includes(node.op)) {
    throw malformed(`${pointer}/op`, `op must be one of: ${[...TEXT_OPS, 'exists', 'and', 'or', 'not'].join(', ')}`);
  }
  const op = node.op as ValueOp;
  const field = filterField(schema, node.field, pointer);
  const value = node.value;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw malformed(`${pointer}/value`, `"${op}" needs a value: a string, number or boolean`);
  }
  const kind = kindOf(field.type);
  if (!OPS[kind].includes(op)) {
    throw invalidAt(`${pointer}/op`, `op "${op}" does not apply to ${field.ref} (${field.type}); use one of: ${OPS[kind].join(', ')}`);
  }
  const valuePointer = `${pointer}/value`;
  if (typeof value === 'string') {
    const max = op === 'contains' || op === 'not_contains' ? FILTER_LIMITS.containsLength : FILTER_LIMITS.valueLength;
    if (value.length > max) throw invalidAt(valuePointer, `a "${op}" value is at most ${max} characters long, got ${value.length}`);
  }
  const key = filterKey(field, kind, op, value, valuePointer);
  if (typeof key === 'string' && columnOf(field) === 'text' && (op === 'starts_with' || op === 'ends_with')) {
    // Prefix ranges compare with the kept part of long keys, never with their digest.
    const ends = op === 'ends_with';
    return { kind: 'value', fieldId: field.id, column: ends ? 'suffix' : 'text', op: 'starts_with', key: prefixKey(ends ? reverseText(key) : key) };
  }
  const parsed: FilterNode = { kind: 'value', fieldId: field.id, column: columnOf(field), op, key };
  if (DENSE.has(field.type)) parsed.dense = true;
  return parsed;
}

function filterField(schema: CollectionSchema, key: unknown, pointer: string): Field {
  if (typeof key !== 'string') throw malformed(`${pointer}/field`, 'field must be a field ref or id (a string)');
  const field = fieldByKey(schema, key);
  if (!field) throw invalidAt(`${pointer}/field`, `${schema.collection.ref} has no field "${key}"`);
  return field;
}

/** What each kind of field compares with, as the error for a value of another JSON type says it. */
const EXPECTED: Record<Kind, { json: 'string' | 'number' | 'boolean'; what: string }> = {
  text: { json: 'string', what: 'text: send a string such as "Acme"' },
  verbatim: { json: 'string', what: 'text: send a string such as "ACME-0042"' },
  number: { json: 'number', what: 'numbers: send a number such as 42 (or "42")' },
  boolean: { json: 'boolean', what: 'booleans: send true or false' },
  date: { json: 'string', what: 'dates: send a string "YYYY-MM-DD"' },
  datetime: { json: 'string', what: 'date-times: send an ISO 8601 string such as "2025-02-17T16:00:00Z"' },
  reference: { json: 'string', what: 'ids: send the id as a string' },
};

/** A number written as text (`"42"`, `"-1.5"`, `"1e3"`): what a client that sends every value as a string sends. */
const NUMBER_TEXT = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * `value` as the JSON type the field's kind compares with, when it says the same unambiguously: a number as
 * text for a number field, "true"/"false" for a boolean, a number for text (seed §4.4 shows every filter
 * value as a string; the SDKs send strings, numbers and booleans).
 */
function asExpected(kind: Kind, value: string | number | boolean): string | number | boolean {
  const expected = EXPECTED[kind].json;
  if (typeof value === expected) return value;
  if (expected === 'number' && typeof value === 'string' && NUMBER_TEXT.test(value.trim())) return Number(value.trim());
  if (expected === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  if (expected === 'string' && typeof value === 'number' && (kind === 'text' || kind === 'verbatim')) return String(value);
  return value;
}

/** The value normalised like the index keys it is compared with; starts_with/ends_with get the whole text. */
function filterKey(field: Field, kind: Kind, op: ValueOp, sent: string | number | boolean, pointer: string): string | number {
  const bad = (what: string) => invalidAt(pointer, `${field.ref} compares ${what}; got ${JSON.stringify(sent)}`);
  const value = asExpected(kind, sent);
  if (typeof value !== EXPECTED[kind].json) throw bad(EXPECTED[kind].what);
  const substring = op === 'contains' || op === 'not_contains';
  const affix = op === 'starts_with' || op === 'ends_with';
  switch (kind) {
    case 'number': {
      if (!Number.isFinite(value)) throw bad(field.type === 'field/number/monetary' ? 'numbers of minor units (1000 = 10.00)' : 'numbers');
      return value as number;
    }
    case 'boolean':
      return value === true ? 1 : 0;
    case 'date':
    case 'datetime': {
      const text = value as string;
      if (op === 'starts_with') return text;
      const day = parseDate(text.slice(0, 10));
      if (kind === 'date') {
        if (!day) throw bad('ISO dates (YYYY-MM-DD)');
        return day;
      }
      const instant = parseDateTime(text) ?? (day && text.length === 10 ? `${day}T00:00:00.000Z` : null);
      if (!instant) throw bad('ISO 8601 date-times (e.g. 2025-02-17T16:00:00Z)');
      return instant;
    }
    case 'reference': {
      const text = value as string;
      const byName = (list: { id: string; name: string }[] | undefined) =>
        list?.find((o) => o.id === text || o.name.toLowerCase() === text.toLowerCase())?.id;
      if (field.type === 'field/choice') return byName(field.config.options) ?? text;
      return text;
    }
    default: {
      const text = kind === 'verbatim' ? (value as string) : (value as string).toLowerCase();
      return substring || affix ? text : textKey(text);
    }
  }
}

/** Sort keys one list or search may give (each one joins the value index once more). */
export const MAX_SORT_KEYS = 8;

/** Sort specs: refs or ids, `-` for descending, `relation.field` paths. `where(i)` locates spec i. */
export function parseSort(schemas: SortSchemas, specs: string[], where: (i: number) => { pointer?: string; parameter?: string }): SortKey[] {
  const keys = specs.map((spec, i) => {
    const desc = spec.startsWith('-');
    const path = (desc ? spec.slice(1) : spec).split('.');
    const fail = (detail: string) => new AppError('validation_failed', detail, where(i));
    if (path.length === 1 && path[0] === 'id') return { fieldIds: [], column: 'id' as const, desc };
    const first = fieldByKey(schemas.own, path[0]!);
    if (!first) throw fail(`cannot sort by "${spec}": ${schemas.own.collection.ref} has no field "${path[0]}"`);
    if (path.length === 1) return { fieldIds: [first.id], column: columnOf(first), desc };
    if (path.length > 2 || first.type !== 'field/relation') throw fail(`cannot sort by "${spec}": only relation fields can be followed, one level deep`);
    const targets = (first.config.allowedCollectionIds ?? []).flatMap((id) => {
      const target = schemas.related.get(id);
      const field = target && fieldByKey(target, path[1]!);
      return field ? [field] : [];
    });
    if (targets.length === 0) throw fail(`cannot sort by "${spec}": the collections ${first.ref} points at have no field "${path[1]}"`);
    return { via: first.id, fieldIds: targets.map((f) => f.id), column: columnOf(targets[0]!), desc };
  });
  return keys;
}

export interface SortSchemas {
  own: CollectionSchema;
  /** Schemas of collections reachable through relation fields, by collection id. */
  related: Map<string, CollectionSchema>;
}
