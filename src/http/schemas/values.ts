// The value wrapper `{"type": "value/…", "data": …}` as the OpenAPI document shows it: one named schema per
// value type (20, one per field type), their discriminated union `Value`, and the value maps of requests and
// responses. The domain (src/domain/field-types) checks and renders the values; these schemas only document
// them (see documented.ts), so their names are what users see in the docs page.
import { Type, type TSchema } from 'typebox';
import { FIELD_TYPES, valueTypeOf, type FieldType } from '../../domain/fields.ts';
import { docOnly, ref } from './documented.ts';

const text = (description: string, example: string, format?: string) =>
  Type.String({ description, examples: [example], ...(format ? { format } : {}) });

const pointer = (type: string, description: string, extra: Record<string, TSchema> = {}) =>
  Type.Object(
    { type: Type.Literal(type), id: Type.String(), ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, Type.Optional(v)])) },
    { description },
  );

const profile = (network: string, url: string, username: string) =>
  Type.Object(
    { url: Type.Optional(Type.String({ examples: [url] })), username: Type.Optional(Type.String({ examples: [username] })) },
    { description: `A ${network} profile: send a url or a username (a bare string is read as either); responses carry both.` },
  );

/** The `data` of each field type's values. */
const DATA: Record<FieldType, TSchema> = {
  'field/text/single_line': text('One line of text.', 'Acme'),
  'field/text/multi_line': text('Text that may span lines.', 'First line\nSecond line'),
  'field/identifier': text('An identifier, compared verbatim (case-sensitive).', 'ACME-0042'),
  'field/number/unitless_integer': Type.Integer({ examples: [42] }),
  'field/number/unitless_float': Type.Number({ examples: [3.14] }),
  'field/number/monetary': Type.Object(
    { currency: Type.String({ description: 'ISO 4217 code; the field\'s default unit when left out', examples: ['USD'] }), in_minor_units: Type.Integer({ examples: [1000] }) },
    { required: ['in_minor_units'], description: 'An amount in the currency\'s minor units (cents for USD).' },
  ),
  'field/number/percentage': Type.Number({ description: 'A percentage: 50.5 means 50.5 %.', examples: [50.5] }),
  'field/boolean': Type.Boolean(),
  'field/email': text('An email address, stored lower-cased.', 'jane@example.com', 'email'),
  'field/uri/url': text('An absolute URL.', 'https://example.com/page', 'uri'),
  'field/uri/domain': text('A domain name.', 'example.com', 'hostname'),
  'field/uri/social_x': profile('X', 'https://x.com/jack', 'jack'),
  'field/uri/social_linked_in': profile('LinkedIn', 'https://linkedin.com/in/jane-doe', 'in/jane-doe'),
  'field/telephone_number': text('A telephone number; answered in E.164 form.', '+14155550123'),
  'field/geo': text('A place, as free text.', 'Paris, France'),
  'field/date': text('A calendar date.', '2025-02-17', 'date'),
  'field/datetime': text('An ISO 8601 date-time; answered in UTC with milliseconds.', '2025-02-17T16:00:00.000Z', 'date-time'),
  'field/choice': pointer('choice_field_option', 'One of the field\'s options: send its id; responses add its name and color.', {
    name: Type.String(),
    color: Type.String(),
  }),
  'field/stage': pointer('funnel_step', 'A step of the field\'s funnel: send its id; responses add its name, step type and color.', {
    name: Type.String(),
    step_type: Type.String(),
    color: Type.String(),
  }),
  'field/relation': pointer('item', 'An item of one of the field\'s allowed collections.'),
};

/** `value/text/single_line` → `TextSingleLineValue`, the component name of that value type. */
export function valueSchemaName(valueType: string): string {
  return `${valueType
    .slice('value/'.length)
    .split(/[/_]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Value`;
}

const VALUE_TYPES = FIELD_TYPES.map((fieldType) => ({ fieldType, valueType: valueTypeOf(fieldType) }));

/** The shared schemas: one per value type, and `Value`, the union discriminated by `type`. */
export const VALUE_SCHEMAS: object[] = [
  ...VALUE_TYPES.map(({ fieldType, valueType }) =>
    Type.Object(
      { type: Type.Literal(valueType), data: DATA[fieldType] },
      { $id: valueSchemaName(valueType), description: `A value of a ${fieldType} field.` },
    ),
  ),
  {
    $id: 'Value',
    description:
      'The value wrapper every item value travels in: `type` names the value type (the field type with `value/` ' +
      'instead of `field/`; stage fields take `value/funnel_step`), `data` holds the value itself.',
    oneOf: VALUE_TYPES.map(({ valueType }) => ref(valueSchemaName(valueType))),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(VALUE_TYPES.map(({ valueType }) => [valueType, `#/components/schemas/${valueSchemaName(valueType)}`])),
    },
  },
];

const example = {
  name: { type: 'value/text/single_line', data: 'Acme' },
  domain: [{ type: 'value/uri/domain', data: 'acme.com' }],
  employees: { type: 'value/number/unitless_integer', data: 250 },
};

/** Values by field ref in responses: a `many` field's value is always an array. */
export const ResponseValueMap = docOnly<Record<string, unknown>>(
  Type.Object(
    {},
    {
      additionalProperties: { anyOf: [ref('Value'), Type.Array(ref('Value'))] },
      description: 'Values by field ref. A field with `cardinality: many` always has an array; fields without a value are left out.',
      examples: [{ ...example, created_at: { type: 'value/datetime', data: '2025-02-17T16:00:00.000Z' } }],
    },
  ),
);

/** Values by field ref or id in requests: `null` (or `[]`) clears a field. */
export const RequestValueMap = (errorMessage: string) =>
  Type.Unsafe<Record<string, unknown>>(
    Type.Object({}, {
      additionalProperties: docOnly({ anyOf: [ref('Value'), Type.Array(ref('Value')), Type.Null()] }),
      description: 'Values by field ref or id. Send `null` or `[]` to clear a field; `many` fields take an array or a single value.',
      examples: [example],
      errorMessage,
    }),
  );
