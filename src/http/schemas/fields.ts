// Wire shape of a Field (reference §6.1.1): the common properties plus the extras of its type, and the
// mapping from the domain model.
import { Type, type Static } from 'typebox';
import type { Field } from '../../domain/fields.ts';
import { CollectionPointer, Timestamp } from './common.ts';

const FieldPointer = Type.Object({
  id: Type.String(),
  type: Type.Literal('field'),
  ref: Type.String(),
  collection: CollectionPointer,
});

const FunnelStep = Type.Object({
  id: Type.String(),
  type: Type.Literal('funnel_step'),
  name: Type.String(),
  step_type: Type.String(),
  color: Type.String(),
});

export const Funnel = Type.Object({
  id: Type.String(),
  type: Type.Literal('funnel'),
  name: Type.String(),
  steps: Type.Array(FunnelStep),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const ChoiceOption = Type.Object({
  id: Type.String(),
  type: Type.Literal('choice_field_option'),
  name: Type.String(),
  color: Type.String(),
});

export const FieldWire = Type.Object({
  id: Type.String(),
  type: Type.String(),
  name: Type.String(),
  ref: Type.String(),
  description: Type.Optional(Type.String()),
  cardinality: Type.String(),
  required: Type.Boolean(),
  unique: Type.Boolean(),
  readonly: Type.Boolean(),
  kind: Type.String(),
  default_values: Type.Array(Type.Unknown()),
  default_unit: Type.Optional(Type.String()),
  options: Type.Optional(Type.Array(ChoiceOption)),
  funnel: Type.Optional(Funnel),
  relation_type: Type.Optional(Type.String()),
  allowed_collections: Type.Optional(Type.Array(CollectionPointer)),
  reverse_field_name: Type.Optional(Type.String()),
  reverse_fields: Type.Optional(Type.Array(FieldPointer)),
  source_field: Type.Optional(FieldPointer),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export type FieldOut = Static<typeof FieldWire>;

export function renderField(field: Field): FieldOut {
  const out: FieldOut = {
    id: field.id,
    type: field.type,
    name: field.name,
    ref: field.ref,
    cardinality: field.cardinality,
    required: field.required,
    unique: field.unique,
    readonly: field.readonly,
    kind: field.kind,
    default_values: field.defaultValues,
    created_at: field.createdAt,
    updated_at: field.updatedAt,
  };
  if (field.description !== null) out.description = field.description;
  if (field.config.defaultUnit !== undefined) out.default_unit = field.config.defaultUnit;
  if (field.config.options !== undefined) {
    out.options = field.config.options.map((o) => ({ id: o.id, type: 'choice_field_option', name: o.name, color: o.color }));
  }
  return out;
}
