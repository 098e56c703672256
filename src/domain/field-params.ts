// Checks of the type-specific field parameters (reference §6.1.3–6.1.4), shared by field creation and
// update. Every failure points at the offending property of the request body.
import { invalidAt, propertyAt } from './errors.ts';
import { newId } from './ids.ts';
import { isCurrencyCode } from './currencies.ts';
import type { ChoiceOption, FieldType } from './fields.ts';
import type { Store } from './ports/store.ts';
import type { StepInput } from './funnels.ts';
import { checkedName, longerThan } from './characters.ts';
import { checkListSize } from './list-limits.ts';

export interface OptionInput {
  id?: string;
  /** Required, except on an `update` or `remove` operation. */
  name?: string;
  color?: string;
  /** The operation form some docs show: add, update or remove one entry of the current set. */
  op?: 'add' | 'update' | 'remove';
}

/** An entry of the complete set a request leaves, with where in the body it came from. */
interface OptionEntry {
  input: OptionInput;
  at: string;
}

export interface CollectionRefInput {
  type?: 'collection';
  id?: string;
  ref?: string;
}

/** The body of POST …/fields; PATCH takes the same properties, all optional but `type`. */
export interface FieldInput {
  type: FieldType;
  name?: string;
  description?: string | null;
  cardinality?: 'one' | 'many';
  required?: boolean;
  unique?: boolean;
  default_values?: unknown[] | null;
  default_unit?: string;
  options?: OptionInput[];
  stages?: StepInput[];
  funnel?: { type?: 'funnel'; id: string };
  relation_type?: 'one_way' | 'two_way';
  allowed_collections?: CollectionRefInput[];
  reverse_field_name?: string;
}

const EXTRAS: Record<string, FieldType> = {
  default_unit: 'field/number/monetary',
  options: 'field/choice',
  stages: 'field/stage',
  funnel: 'field/stage',
  relation_type: 'field/relation',
  allowed_collections: 'field/relation',
  reverse_field_name: 'field/relation',
};

export const DEFAULT_OPTION_COLOR = 'lunar';
const NAME_MAX = 255;

/** A type-specific property sent for a field of another type is a mistake worth reporting. */
export function rejectForeignExtras(input: FieldInput): void {
  for (const [property, owner] of Object.entries(EXTRAS)) {
    if ((input as unknown as Record<string, unknown>)[property] !== undefined && owner !== input.type) {
      throw invalidAt(`/${property}`, `${property} applies only to ${owner} fields, not to ${input.type}`);
    }
  }
}

export function checkFieldName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw invalidAt('/name', 'name must not be blank; send the field\'s display name');
  if (longerThan(trimmed, NAME_MAX)) throw invalidAt('/name', `name must be at most ${NAME_MAX} characters`);
  return trimmed;
}

export function checkDescription(description: string | null): string | null {
  if (description === null || description.trim() === '') return null;
  if (longerThan(description, 4096)) throw invalidAt('/description', 'description must be at most 4096 characters');
  return description;
}

export function checkDefaultUnit(unit: string | undefined): string {
  if (unit === undefined) {
    throw invalidAt('/default_unit', 'default_unit is required for monetary fields: a three-letter ISO 4217 code such as "USD"');
  }
  if (!isCurrencyCode(unit)) {
    throw invalidAt('/default_unit', `default_unit must be an ISO 4217 currency code of three upper-case letters such as "USD" or "EUR", got "${unit}"`);
  }
  return unit;
}

/**
 * Named, coloured entries (choice options, tags) a request describes, in order. Entries with an `id` update
 * that entry of `current`; the others are new; names must be distinct. `pointer` locates the array.
 */
export function buildOptions(
  inputs: OptionInput[] | undefined,
  current: ChoiceOption[] = [],
  pointer = '/options',
  allowEmpty = false,
): ChoiceOption[] {
  const entries = inputs?.some((input) => input.op !== undefined)
    ? applyOperations(inputs, current, pointer)
    : inputs?.map((input, i) => ({ input, at: `${pointer}/${i}` }));
  if (!entries || (entries.length === 0 && !allowEmpty)) {
    throw invalidAt(pointer, `${propertyAt(pointer)} must list at least one entry, e.g. [{"name": "High", "color": "red"}]`);
  }
  checkListSize(pointer, entries.length);
  const names = new Set<string>();
  const ids = new Set<string>();
  return entries.map(({ input, at }) => {
    if (input.name === undefined) throw invalidAt(`${at}/name`, 'each entry needs a name, e.g. {"name": "High", "color": "red"}');
    const name = checkedName(input.name, `${at}/name`);
    if (names.has(name.toLowerCase())) throw invalidAt(`${at}/name`, `name "${name}" appears twice; names must be distinct`);
    names.add(name.toLowerCase());
    const previous = input.id === undefined ? undefined : current.find((o) => o.id === input.id);
    if (input.id !== undefined && (!previous || ids.has(input.id))) {
      throw invalidAt(`${at}/id`, `"${input.id}" is not one of the current entries; omit id to add a new one`);
    }
    if (input.id !== undefined) ids.add(input.id);
    return { id: previous?.id ?? newId(), name, color: input.color ?? previous?.color ?? DEFAULT_OPTION_COLOR };
  });
}

/**
 * The operation form (`[{"op": "add", "name": …}, {"op": "remove", "id": …}]`) as the complete set it leaves:
 * the current entries, changed in the order the operations come. Mixed with plain entries it would be
 * ambiguous whether the omitted ones stay, so every entry must then carry an op.
 */
function applyOperations(inputs: OptionInput[], current: ChoiceOption[], pointer: string): OptionEntry[] {
  const entries: OptionEntry[] = current.map((o) => ({ input: { id: o.id, name: o.name, color: o.color }, at: pointer }));
  inputs.forEach((input, i) => {
    const at = `${pointer}/${i}`;
    if (input.op === undefined) {
      throw invalidAt(`${at}/op`, 'every entry needs an op ("add", "update" or "remove") when one has; or send the complete set without ops');
    }
    if (input.op === 'add') {
      if (input.id !== undefined) throw invalidAt(`${at}/id`, 'an added entry gets a new id; omit id');
      entries.push({ input: { name: input.name, color: input.color }, at });
      return;
    }
    const index = entries.findIndex((e) => e.input.id !== undefined && e.input.id === input.id);
    if (index < 0) {
      throw invalidAt(`${at}/id`, input.id === undefined ? `"${input.op}" needs the id of a current entry` : `"${input.id}" is not one of the current entries`);
    }
    if (input.op === 'remove') entries.splice(index, 1);
    else {
      const { input: was } = entries[index]!;
      entries[index] = { input: { id: was.id, name: input.name ?? was.name, color: input.color ?? was.color }, at };
    }
  });
  return entries;
}

/** The ids of the collections a relation may point into; an unknown one is `collection_not_found`. */
export async function resolveAllowedCollections(
  store: Store,
  orgId: string,
  inputs: CollectionRefInput[] | undefined,
): Promise<string[]> {
  if (!inputs || inputs.length === 0) {
    throw invalidAt('/allowed_collections', 'allowed_collections must list at least one collection, e.g. [{"type": "collection", "ref": "people"}]');
  }
  const ids: string[] = [];
  for (const [i, input] of inputs.entries()) {
    const key = input.id ?? input.ref;
    if (key === undefined) throw invalidAt(`/allowed_collections/${i}`, 'each allowed collection needs an id or a ref');
    const collection = await store.collections.find(orgId, key);
    if (!collection || (input.id !== undefined && input.ref !== undefined && collection.ref !== input.ref)) {
      throw invalidAt(`/allowed_collections/${i}`, `no collection has ${input.id !== undefined ? `id "${input.id}"` : `ref "${input.ref}"`}`, 'collection_not_found');
    }
    if (!ids.includes(collection.id)) ids.push(collection.id);
  }
  return ids;
}
