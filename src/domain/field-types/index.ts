// Which value type each field type uses, and the checks shared by all of them: the `{type, data}` wrapper,
// and default-value placeholders that are resolved when an item is created.
import { valueTypeOf, type Field, type FieldType } from '../fields.ts';
import { describeJson, ValueProblem, type ValueContext, type ValueType } from './value-type.ts';
import { email, domain, geo, identifier, multiLine, singleLine, url } from './text.ts';
import { boolean, float, integer, monetary, percentage } from './numbers.ts';
import { socialLinkedIn, socialX } from './social.ts';
import { telephone } from './telephone.ts';
import { date, datetime } from './dates.ts';
import { choice, funnelStep, relation } from './references.ts';

export { ValueProblem, type ValueContext } from './value-type.ts';

const VALUE_TYPES: Record<FieldType, ValueType> = {
  'field/text/single_line': singleLine,
  'field/text/multi_line': multiLine,
  'field/identifier': identifier,
  'field/number/unitless_integer': integer,
  'field/number/unitless_float': float,
  'field/number/monetary': monetary,
  'field/number/percentage': percentage,
  'field/boolean': boolean,
  'field/email': email,
  'field/uri/url': url,
  'field/uri/domain': domain,
  'field/uri/social_x': socialX,
  'field/uri/social_linked_in': socialLinkedIn,
  'field/telephone_number': telephone,
  'field/geo': geo,
  'field/date': date,
  'field/datetime': datetime,
  'field/choice': choice,
  'field/stage': funnelStep,
  'field/relation': relation,
};

/** Placeholders a field's default values may hold instead of a static value (reference §6.1.5). */
const PLACEHOLDERS: Partial<Record<FieldType, string>> = {
  'field/date': 'current_date',
  'field/datetime': 'current_datetime',
  'field/relation': 'current_member',
};

export interface Placeholder {
  placeholder: string;
}

export function isPlaceholder(stored: unknown): stored is Placeholder {
  return typeof stored === 'object' && stored !== null && 'placeholder' in stored;
}

/** A `data` example for each field type, so every value error can show the whole accepted shape. */
const DATA_EXAMPLES: Record<FieldType, (context: ValueContext) => string> = {
  'field/text/single_line': () => '"Acme"',
  'field/text/multi_line': () => '"First line\\nSecond line"',
  'field/identifier': () => '"ACME-0042"',
  'field/number/unitless_integer': () => '42',
  'field/number/unitless_float': () => '3.14',
  'field/number/monetary': ({ field }) => `{"currency": "${field.config.defaultUnit ?? 'USD'}", "in_minor_units": 1000}`,
  'field/number/percentage': () => '50.5',
  'field/boolean': () => 'true',
  'field/email': () => '"jane@example.com"',
  'field/uri/url': () => '"https://example.com/page"',
  'field/uri/domain': () => '"example.com"',
  'field/uri/social_x': () => '{"username": "jack"}',
  'field/uri/social_linked_in': () => '{"username": "in/jane-doe"}',
  'field/telephone_number': () => '"+14155550123"',
  'field/geo': () => '"Paris, France"',
  'field/date': () => '"2025-02-17"',
  'field/datetime': () => '"2025-02-17T16:00:00Z"',
  'field/choice': ({ field }) => `{"type": "choice_field_option", "id": "${field.config.options?.[0]?.id ?? '<option id>'}"}`,
  'field/stage': ({ funnel }) => `{"type": "funnel_step", "id": "${funnel?.steps[0]?.id ?? '<step id>'}"}`,
  'field/relation': () => '{"type": "item", "id": "<item id>"}',
};

/** The complete accepted form of a value of the context's field, e.g. `{"type": "value/boolean", "data": true}`. */
export function valueShape(context: ValueContext): string {
  return `{"type": "${valueTypeOf(context.field.type)}", "data": ${DATA_EXAMPLES[context.field.type](context)}}`;
}

/** Checks one `{type, data}` value of `field`; returns the stored form of its data. */
export function parseValue(value: unknown, context: ValueContext): unknown {
  const expected = valueTypeOf(context.field.type);
  const shape = `send a value such as ${valueShape(context)}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValueProblem(`must be a value object with "type" and "data", got ${describeJson(value)}; ${shape}`);
  }
  const { type, data } = value as Record<string, unknown>;
  if (type === undefined) throw new ValueProblem(`is missing "type"; ${shape}`);
  if (type !== expected) {
    throw new ValueProblem(`has type ${describeJson(type)} but field ${context.field.ref} takes values of type "${expected}"; ${shape}`);
  }
  if (data === undefined || data === null) throw new ValueProblem(`needs data (send null instead of the value to clear the field); ${shape}`);
  try {
    return VALUE_TYPES[context.field.type].parse(data, context);
  } catch (error) {
    if (error instanceof ValueProblem) throw new ValueProblem(`data ${error.detail}; ${shape}`);
    throw error;
  }
}

/** Like parseValue, but also accepts the field type's placeholder (`{"type": "current_date"}`). */
export function parseDefaultValue(value: unknown, context: ValueContext): unknown {
  const placeholder = PLACEHOLDERS[context.field.type];
  const type = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).type : undefined;
  if (placeholder !== undefined && type === placeholder) return { placeholder } satisfies Placeholder;
  if (typeof type === 'string' && type.startsWith('current_')) {
    throw new ValueProblem(
      placeholder ? `the only placeholder field ${context.field.ref} accepts is "${placeholder}"` : `placeholders do not apply to ${context.field.type} fields`,
    );
  }
  return parseValue(value, context);
}

export function renderValue(stored: unknown, context: ValueContext): { type: string; data?: unknown } {
  if (isPlaceholder(stored)) return { type: stored.placeholder };
  return { type: valueTypeOf(context.field.type), data: VALUE_TYPES[context.field.type].render(stored, context) };
}

export function fieldTakesPlaceholder(field: Field): boolean {
  return PLACEHOLDERS[field.type] !== undefined;
}
