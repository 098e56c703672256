// The field model: the 20 field types, their value types, and the type-specific configuration a field
// carries. Field creation and value checks build on this in later modules.
import { deriveRef, uniqueRef } from './refs.ts';

export const FIELD_TYPES = [
  'field/text/single_line',
  'field/text/multi_line',
  'field/identifier',
  'field/number/unitless_integer',
  'field/number/unitless_float',
  'field/number/monetary',
  'field/number/percentage',
  'field/boolean',
  'field/email',
  'field/uri/url',
  'field/uri/domain',
  'field/uri/social_x',
  'field/uri/social_linked_in',
  'field/telephone_number',
  'field/geo',
  'field/date',
  'field/datetime',
  'field/choice',
  'field/stage',
  'field/relation',
] as const;

export type FieldType = (typeof FIELD_TYPES)[number];

export function isFieldType(value: unknown): value is FieldType {
  return typeof value === 'string' && (FIELD_TYPES as readonly string[]).includes(value);
}

/** The value type a field's values carry; the stage field's is `value/funnel_step` (there is no value/stage). */
export function valueTypeOf(type: FieldType): string {
  return type === 'field/stage' ? 'value/funnel_step' : `value/${type.slice('field/'.length)}`;
}

export type Cardinality = 'one' | 'many';
export type FieldKind = 'system' | 'inverse' | 'custom';

export interface ChoiceOption {
  id: string;
  name: string;
  color: string;
}

/** Type-specific settings; only the members that belong to the field's type are set. */
export interface FieldConfig {
  defaultUnit?: string;
  options?: ChoiceOption[];
  funnelId?: string;
  relationType?: 'one_way' | 'two_way';
  allowedCollectionIds?: string[];
  reverseFieldName?: string;
  reverseFieldIds?: string[];
  sourceFieldId?: string;
}

export interface Field {
  id: string;
  orgId: string;
  collectionId: string;
  ref: string;
  name: string;
  description: string | null;
  type: FieldType;
  cardinality: Cardinality;
  required: boolean;
  unique: boolean;
  readonly: boolean;
  kind: FieldKind;
  config: FieldConfig;
  defaultValues: unknown[];
  createdAt: string;
  updatedAt: string;
}

/** What a new field is made of before it has an id, a ref and timestamps. */
export interface FieldSpec {
  name: string;
  type: FieldType;
  description?: string | null;
  cardinality?: Cardinality;
  required?: boolean;
  unique?: boolean;
  readonly?: boolean;
  kind?: FieldKind;
  config?: FieldConfig;
  defaultValues?: unknown[];
  ref?: string;
}

export const COLORS = [
  'amber', 'blue', 'cyan', 'emerald', 'fuchsia', 'green', 'indigo', 'lime', 'lunar',
  'orange', 'pink', 'purple', 'red', 'rose', 'sky', 'teal', 'violet', 'yellow',
] as const;

export type Color = (typeof COLORS)[number];

/** Turns specs into fields of one collection, giving each an id and a ref unique among `takenRefs`. */
export function buildFields(
  orgId: string,
  collectionId: string,
  specs: FieldSpec[],
  takenRefs: Set<string>,
  now: string,
  makeId: () => string,
): Field[] {
  return specs.map((spec) => {
    const ref = uniqueRef(spec.ref ?? deriveRef(spec.name, 'field'), takenRefs);
    takenRefs.add(ref);
    return {
      id: makeId(),
      orgId,
      collectionId,
      ref,
      name: spec.name,
      description: spec.description ?? null,
      type: spec.type,
      cardinality: spec.cardinality ?? 'one',
      required: spec.required ?? false,
      unique: spec.unique ?? false,
      readonly: spec.readonly ?? false,
      kind: spec.kind ?? 'custom',
      config: spec.config ?? {},
      defaultValues: spec.defaultValues ?? [],
      createdAt: now,
      updatedAt: now,
    };
  });
}
