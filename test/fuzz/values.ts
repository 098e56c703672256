// Domain-aware arbitraries for the parts of the API the OpenAPI document leaves open (`values`, `identifiers`,
// `default_values`, `filter`, sort keys …): mostly plausible values for the fixtures' fields, with the
// occasional wrong one. Real ids appear as fixture markers (see fixtures.ts).
import fc from 'fast-check';
import { FIELD_SPECS, fixtureMarker, type Resource } from './fixtures.ts';
import { raw, RAW_NUMBERS, SPECIAL_STRINGS, UNICODE } from './mutations.ts';

export const idMarker = (resource: Resource) => fc.nat({ max: 50 }).map((i) => fixtureMarker(resource, i));

/** Short strings, now and then a special one. */
export const textArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 12 }), weight: 5 },
  { arbitrary: fc.constantFrom(...SPECIAL_STRINGS), weight: 3 },
  { arbitrary: fc.string({ maxLength: 8, unit: 'binary' }), weight: 1 },
  { arbitrary: fc.constantFrom(...UNICODE), weight: 1 },
);

export const nameArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom('Fuzz', 'Lead Source', 'Ünïcödé name', 'name', 'Title', 'Created At', 'people'), weight: 3 },
  { arbitrary: textArb, weight: 2 },
);

const intArb = fc.oneof(
  { arbitrary: fc.integer({ min: -1000, max: 1000 }), weight: 4 },
  { arbitrary: fc.constantFrom(0, -1, 2 ** 31, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER, 2 ** 53, 1e21, 1.5), weight: 1 },
  { arbitrary: fc.constantFrom(...RAW_NUMBERS).map(raw), weight: 1 },
);

const numberArb = fc.oneof(
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }), weight: 4 },
  { arbitrary: fc.constantFrom(0, 1e308, -1e308, 5e-324, 0.1), weight: 1 },
  { arbitrary: fc.constantFrom(...RAW_NUMBERS).map(raw), weight: 1 },
);

const dateArb = fc.oneof(
  fc.date({ min: new Date('1000-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  fc.constantFrom('2024-02-29', '2025-02-30', '0000-00-00', '17/02/2025', '2025-1-1', '+002025-01-01', '2025-01-01T00:00:00Z', ''),
);

const datetimeArb = fc.oneof(
  fc.date({ min: new Date('1000-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2025-02-17T18:00:00+02:00', '2025-02-17T16:00:00', 'yesterday', '2025-02-17', '2025-02-17T25:00:00Z', '275760-09-13T00:00:00.000Z'),
);

/** The `data` of a value of `valueType` (`text/single_line`, `choice`, …). */
export function dataArb(valueType: string): fc.Arbitrary<unknown> {
  switch (valueType) {
    case 'number/unitless_integer':
      return intArb;
    case 'number/unitless_float':
    case 'number/percentage':
      return numberArb;
    case 'number/monetary':
      return fc.record(
        { currency: fc.constantFrom('USD', 'EUR', 'JPY', 'BHD', 'usd', 'XXX', 'DOLLARS', ''), in_minor_units: intArb },
        { requiredKeys: ['in_minor_units'] },
      );
    case 'boolean':
      return fc.oneof(fc.boolean(), fc.constantFrom('true', 1, null));
    case 'email':
      return fc.oneof(fc.constantFrom('ada@acme.test', 'Ada@ACME.TEST', 'no-at-sign', 'x@y', '@acme.test', 'a@b@c.test'), fc.emailAddress());
    case 'uri/url':
      return fc.oneof(fc.constantFrom('https://example.com/x', 'mailto:a@b.test', 'ftp://x', 'javascript:alert(1)', 'notaurl', 'https://', 'https://example.com/100%', 'https://ex%ample.com/'), fc.webUrl());
    case 'uri/domain':
      return fc.oneof(fc.constantFrom('acme.test', 'Example.COM', 'bücher.de', 'localhost', 'https://x.test', 'a..b'), fc.domain());
    case 'uri/social_x':
    case 'uri/social_linked_in':
      return fc.oneof(
        fc.record({ url: fc.constantFrom('https://x.com/jack', 'https://linkedin.com/in/jane', 'https://facebook.com/jack', 'garbage', 'https://linkedin.com/in/100%', 'x.com/%E0%A4%A') }),
        fc.record({ username: fc.constantFrom('@jack', 'in/jane-doe', 'company/acme', 'a_username_far_too_long', '') }),
        fc.record({}),
        textArb,
      );
    case 'telephone_number':
      return fc.constantFrom('+14155552671', '+442071838750', '+15555550100', '+1 415 555 2671', '4155552671', '+999', '+');
    case 'date':
      return dateArb;
    case 'datetime':
      return datetimeArb;
    case 'choice':
      return fc.oneof(
        idMarker('option').map((id) => ({ type: 'choice_field_option', id })),
        fc.record({ type: fc.constant('choice_field_option'), id: textArb }),
        fc.record({ name: textArb }),
      );
    case 'funnel_step':
      return fc.oneof(idMarker('step').map((id) => ({ type: 'funnel_step', id })), fc.record({ type: fc.constant('funnel_step'), id: textArb }));
    case 'relation':
      return fc.oneof(
        { arbitrary: idMarker('item').map((id) => ({ type: 'item', id })), weight: 4 },
        { arbitrary: idMarker('foreign').map((id) => ({ type: 'item', id })), weight: 1 },
        { arbitrary: fc.record({ type: fc.constantFrom('item', 'collection', 'note'), id: textArb }), weight: 1 },
      );
    default:
      return textArb;
  }
}

/** `field/stage` → `funnel_step`, `field/relation` → `relation`, `field/text/single_line` → `text/single_line`. */
export function valueTypeOf(fieldType: string): string {
  if (fieldType === 'field/stage') return 'funnel_step';
  return fieldType.replace(/^field\//, '');
}

const VALUE_TYPES = [
  'text/single_line', 'text/multi_line', 'identifier', 'number/unitless_integer', 'number/unitless_float', 'number/monetary',
  'number/percentage', 'boolean', 'email', 'uri/url', 'uri/domain', 'uri/social_x', 'uri/social_linked_in', 'telephone_number',
  'geo', 'date', 'datetime', 'choice', 'funnel_step', 'relation',
];

/** A `{type, data}` value param, mostly of the field's own type. */
export function valueParamArb(fieldType: string | undefined): fc.Arbitrary<unknown> {
  const own = fieldType ? valueTypeOf(fieldType) : undefined;
  const typeArb = own
    ? fc.oneof({ arbitrary: fc.constant(own), weight: 6 }, { arbitrary: fc.constantFrom(...VALUE_TYPES), weight: 1 })
    : fc.constantFrom(...VALUE_TYPES);
  return typeArb.chain((t) => fc.record({ type: fc.constant(`value/${t}`), data: dataArb(t) }));
}

export interface KnownField {
  ref: string;
  type: string;
  cardinality: string;
}

/** The custom collection's fields plus the common system ones: what value maps and filters name. */
export const KNOWN_FIELDS: KnownField[] = [
  ...FIELD_SPECS.map(([ref, body]) => ({ ref, type: String(body.type), cardinality: String(body.cardinality ?? 'one') })),
  { ref: 'name', type: 'field/text/single_line', cardinality: 'one' },
  { ref: 'email', type: 'field/email', cardinality: 'many' },
  { ref: 'domain', type: 'field/uri/domain', cardinality: 'many' },
  { ref: 'created_at', type: 'field/datetime', cardinality: 'one' },
  { ref: 'updated_at', type: 'field/datetime', cardinality: 'one' },
];

/** What goes under one field in `values`: a value param, a list of them, or null. */
function fieldValueArb(field: KnownField): fc.Arbitrary<unknown> {
  const one = valueParamArb(field.type);
  return fc.oneof(
    { arbitrary: one, weight: 5 },
    { arbitrary: fc.array(one, { minLength: 1, maxLength: 3 }), weight: field.cardinality === 'many' ? 4 : 1 },
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: fc.constant([]), weight: 1 },
  );
}

const entryArb: fc.Arbitrary<[string, unknown]> = fc.oneof(
  { arbitrary: fc.constantFrom(...KNOWN_FIELDS).chain((f) => fc.tuple(fc.constant(f.ref), fieldValueArb(f))), weight: 8 },
  { arbitrary: fc.tuple(idMarker('field'), valueParamArb(undefined)), weight: 1 },
  { arbitrary: fc.tuple(textArb, valueParamArb(undefined)), weight: 1 },
);

const toMap = (entries: [string, unknown][]): Record<string, unknown> => {
  const map: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(map, k, { value: v, enumerable: true, writable: true, configurable: true });
  return map;
};

/** A `values` map: a few known fields by ref (or id), now and then an unknown key. */
export const valuesMapArb: fc.Arbitrary<Record<string, unknown>> = fc.array(entryArb, { maxLength: 5 }).map(toMap);

/** Upsert `identifiers`: mostly one identifying field (code, emails, email, domain) with a value. */
const IDENTIFYING = KNOWN_FIELDS.filter((f) => ['code', 'emails', 'email', 'domain', 'title', 'name'].includes(f.ref));
export const identifiersArb: fc.Arbitrary<Record<string, unknown>> = fc
  .array(
    fc.oneof(
      { arbitrary: fc.constantFrom(...IDENTIFYING).chain((f) => fc.tuple(fc.constant(f.ref), fieldValueArb(f))), weight: 6 },
      { arbitrary: entryArb, weight: 1 },
    ),
    { minLength: 1, maxLength: 2 },
  )
  .map(toMap);

export const defaultValuesArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.array(valueParamArb(undefined), { maxLength: 2 }),
  fc.constantFrom([{ type: 'current_date' }], [{ type: 'current_datetime' }], [{ type: 'current_member' }], null),
);

/** A field key as filters, sorts and includes take it: ref, id, relation path, or junk. */
export const fieldKeyArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...KNOWN_FIELDS.map((f) => f.ref)), weight: 6 },
  { arbitrary: idMarker('field'), weight: 2 },
  { arbitrary: fc.constantFrom('company.name', 'company.domain', 'contacts.email', 'company.company.name', 'title.x', '.name', 'company.', 'id'), weight: 2 },
  { arbitrary: textArb, weight: 1 },
);

export const sortKeyArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.tuple(fc.constantFrom('', '-'), fieldKeyArb).map(([sign, key]) => sign + key), weight: 6 },
  { arbitrary: fc.constantFrom('-', '--title', '+title', ' title', 'title ', '-id', '-created_at', 'updated_at'), weight: 1 },
);

const VALUE_OPS = ['starts_with', 'ends_with', 'contains', 'not_contains', 'eq', 'not_eq', 'gt', 'lt', 'gte', 'lte'];

const filterValueArb: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: textArb, weight: 4 },
  { arbitrary: numberArb, weight: 2 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
  { arbitrary: dateArb, weight: 1 },
  { arbitrary: idMarker('option'), weight: 1 },
  { arbitrary: idMarker('item'), weight: 1 },
  { arbitrary: valueParamArb(undefined), weight: 1 },
  { arbitrary: fc.array(textArb, { maxLength: 3 }), weight: 1 },
);

/** Search filters: value ops, exists, and/or/not, now and then with an unknown op or missing parts. */
export const filterArb: fc.Arbitrary<unknown> = fc.letrec<{ filter: unknown; leaf: unknown; node: unknown }>((tie) => ({
  filter: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('leaf'), tie('node')),
  leaf: fc.oneof(
    { arbitrary: fc.record({ op: fc.constantFrom(...VALUE_OPS), field: fieldKeyArb, value: filterValueArb }), weight: 6 },
    { arbitrary: fc.record({ op: fc.constant('exists'), field: fieldKeyArb }), weight: 2 },
    { arbitrary: fc.record({ op: fc.oneof(fc.constantFrom('in', 'regex', 'EQ', ''), textArb), field: fieldKeyArb, value: filterValueArb }, { requiredKeys: [] }), weight: 1 },
  ),
  node: fc.oneof(
    fc.record({ op: fc.constantFrom('and', 'or'), filters: fc.array(tie('filter'), { maxLength: 3 }) }),
    fc.record({ op: fc.constant('not'), filter: tie('filter') }),
    fc.record({ op: fc.constantFrom('and', 'or', 'not'), filter: tie('filter'), filters: tie('filter') }, { requiredKeys: [] }),
  ),
})).filter;

/** Sort lists, sometimes very long (hundreds of keys). */
export const sortListArb: fc.Arbitrary<string[]> = fc.oneof(
  { arbitrary: fc.array(sortKeyArb, { maxLength: 4 }), weight: 8 },
  {
    arbitrary: fc.tuple(fc.constantFrom(33, 101, 500, 2000), sortKeyArb).map(([n, key]) => Array.from({ length: n }, (_, i) => (i % 2 ? key : `-${KNOWN_FIELDS[i % KNOWN_FIELDS.length]!.ref}`))),
    weight: 1,
  },
);

