// Wire shape of a Field (reference §6.1.1): the common properties plus the extras of its type, and the
// mapping from the domain model.
import { Type, type Static } from 'typebox';
import { COLORS, FIELD_TYPES } from '../../domain/fields.ts';
import { STEP_TYPES, type Funnel } from '../../domain/funnels.ts';
import type { FieldRef, FieldView } from '../../domain/field-views.ts';
import { renderValue } from '../../domain/field-types/index.ts';
import { CollectionPointer, collectionPointer, EXAMPLE_STAMPS, Timestamp } from './common.ts';
import { docOnly, ref } from './documented.ts';

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


export const FunnelWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('funnel'),
    name: Type.String(),
    steps: Type.Array(FunnelStep),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5RkWq8HnBZs4Yde',
        type: 'funnel',
        name: 'Sales',
        steps: [
          { id: '1CLJt2v5S2pLx7JmQa9Ufb', type: 'funnel_step', name: 'Lead', step_type: 'active', color: 'blue' },
          { id: '1CLJt2v5SgYc3NtVw6Hkrm', type: 'funnel_step', name: 'Won', step_type: 'success', color: 'green' },
        ],
        ...EXAMPLE_STAMPS,
      },
    ],
  },
);

const ChoiceOption = Type.Object({
  id: Type.String(),
  type: Type.Literal('choice_field_option'),
  name: Type.String(),
  color: Type.String(),
});

export const FieldWire = Type.Object(
  {
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
    default_values: Type.Array(docOnly(ref('Value')), { description: 'values a new item gets when it is created without one' }),
    default_unit: Type.Optional(Type.String()),
    options: Type.Optional(Type.Array(ChoiceOption)),
    funnel: Type.Optional(FunnelWire),
    relation_type: Type.Optional(Type.String()),
    allowed_collections: Type.Optional(Type.Array(CollectionPointer)),
    reverse_field_name: Type.Optional(Type.String()),
    reverse_fields: Type.Optional(Type.Array(FieldPointer)),
    source_field: Type.Optional(FieldPointer),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5TbZs9KcRd2Wfgn',
        type: 'field/choice',
        name: 'Tier',
        ref: 'tier',
        cardinality: 'one',
        required: false,
        unique: false,
        readonly: false,
        kind: 'custom',
        default_values: [],
        options: [
          { id: '1CLJt2v5U6hQm4XyPe8Vjs', type: 'choice_field_option', name: 'Gold', color: 'amber' },
          { id: '1CLJt2v5UrNd7GaTk3Lbwq', type: 'choice_field_option', name: 'Silver', color: 'lunar' },
        ],
        ...EXAMPLE_STAMPS,
      },
    ],
  },
);

export type FieldOut = Static<typeof FieldWire>;

const Color = Type.Union(COLORS.map((c) => Type.Literal(c)), { errorMessage: `must be one of: ${COLORS.join(', ')}` });
const StepType = Type.Union(STEP_TYPES.map((t) => Type.Literal(t)), { errorMessage: `must be one of: ${STEP_TYPES.join(', ')}` });
const NullableString = Type.Union([Type.String(), Type.Null()], { errorMessage: 'must be a string or null' });

export const StepInput = Type.Object({
  id: Type.Optional(Type.String()),
  name: Type.String(),
  step_type: StepType,
  color: Type.Optional(Color),
});

const fieldInputProperties = {
  name: Type.String(),
  description: Type.Optional(NullableString),
  cardinality: Type.Optional(Type.Union([Type.Literal('one'), Type.Literal('many')], { errorMessage: 'must be "one" or "many"' })),
  required: Type.Optional(Type.Boolean()),
  unique: Type.Optional(Type.Boolean()),
  default_values: Type.Optional(
    Type.Union([Type.Array(docOnly({ description: 'a Value, or a placeholder: {"type": "current_date"}, "current_datetime" or "current_member"', anyOf: [ref('Value'), Type.Object({ type: Type.String() })] })), Type.Null()], {
      errorMessage: 'must be an array of values or null',
    }),
  ),
  default_unit: Type.Optional(Type.String()),
  options: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.Optional(Type.String()),
        name: Type.Optional(Type.String({ description: 'required, except on an `update` or `remove` operation' })),
        color: Type.Optional(Color),
        op: Type.Optional(
          Type.Union([Type.Literal('add'), Type.Literal('update'), Type.Literal('remove')], {
            description: 'the operation form: change one option and keep the others (every entry then carries an op); without ops the array is the complete set',
            errorMessage: 'must be "add", "update" or "remove"',
          }),
        ),
      }),
    ),
  ),
  stages: Type.Optional(Type.Array(StepInput)),
  funnel: Type.Optional(Type.Object({ type: Type.Optional(Type.Literal('funnel')), id: Type.String() })),
  relation_type: Type.Optional(Type.Union([Type.Literal('one_way'), Type.Literal('two_way')], { errorMessage: 'must be "one_way" or "two_way"' })),
  allowed_collections: Type.Optional(
    Type.Array(Type.Object({ type: Type.Optional(Type.Literal('collection')), id: Type.Optional(Type.String()), ref: Type.Optional(Type.String()) })),
  ),
  reverse_field_name: Type.Optional(Type.String()),
};

const FieldTypeName = Type.Union(FIELD_TYPES.map((t) => Type.Literal(t)), { errorMessage: `must be one of the field types: ${FIELD_TYPES.join(', ')}` });

export const CreateFieldBody = Type.Object(
  { type: FieldTypeName, ...fieldInputProperties },
  {
    examples: [
      { name: 'Tier', type: 'field/choice', options: [{ name: 'Gold', color: 'amber' }, { name: 'Silver', color: 'lunar' }] },
      { name: 'Employees', type: 'field/number/unitless_integer', default_values: [{ type: 'value/number/unitless_integer', data: 1 }] },
    ],
  },
);
export const UpdateFieldBody = Type.Object(
  { type: FieldTypeName, ...fieldInputProperties, name: Type.Optional(Type.String()) },
  { examples: [{ type: 'field/choice', name: 'Tier', options: [{ id: '1CLJt2v5U6hQm4XyPe8Vjs', name: 'Gold' }, { name: 'Bronze', color: 'orange' }] }] },
);

export const FieldParams = Type.Object({ collection_id: Type.String(), id: Type.String() });

export function renderFunnel(funnel: Funnel): Static<typeof FunnelWire> {
  return {
    id: funnel.id,
    type: 'funnel',
    name: funnel.name,
    steps: funnel.steps.map((s) => ({ id: s.id, type: 'funnel_step', name: s.name, step_type: s.stepType, color: s.color })),
    created_at: funnel.createdAt,
    updated_at: funnel.updatedAt,
  };
}

const fieldPointer = (f: FieldRef) => ({ id: f.id, type: 'field' as const, ref: f.ref, collection: collectionPointer(f.collection) });

export function renderField(view: FieldView): FieldOut {
  const { field, funnel } = view;
  const context = { field, ...(funnel ? { funnel } : {}) };
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
    default_values: field.defaultValues.map((stored) => renderValue(stored, context)),
    created_at: field.createdAt,
    updated_at: field.updatedAt,
  };
  if (field.description !== null) out.description = field.description;
  const { config } = field;
  if (config.defaultUnit !== undefined) out.default_unit = config.defaultUnit;
  if (config.options !== undefined) {
    out.options = config.options.map((o) => ({ id: o.id, type: 'choice_field_option', name: o.name, color: o.color }));
  }
  if (funnel) out.funnel = renderFunnel(funnel);
  if (field.type === 'field/relation') {
    out.relation_type = config.relationType ?? 'one_way';
    out.allowed_collections = (view.allowedCollections ?? []).map(collectionPointer);
    if (config.reverseFieldName !== undefined) out.reverse_field_name = config.reverseFieldName;
    if (view.reverseFields) out.reverse_fields = view.reverseFields.map(fieldPointer);
    if (view.sourceField) out.source_field = fieldPointer(view.sourceField);
  }
  return out;
}
