// The items filter language as the OpenAPI document shows it (the domain parses and checks filters:
// src/domain/filter/parse.ts, with messages pointing into the filter). Recursive through `Filter`.
import { Type } from 'typebox';
import { FILTER_LIMITS } from '../../domain/filter/parse.ts';
import { docOnly, ref } from './documented.ts';

const VALUE_OPS = ['starts_with', 'ends_with', 'contains', 'not_contains', 'eq', 'not_eq', 'gt', 'lt', 'gte', 'lte'];

export const FILTER_SCHEMAS: object[] = [
  Type.Object(
    {
      field: Type.String({ description: 'a field ref or id' }),
      op: Type.Union(VALUE_OPS.map((op) => Type.Literal(op))),
      value: Type.Union([Type.String(), Type.Number(), Type.Boolean()], {
        description:
          'Text, date, date-time, choice (option id or name), stage (step id) and relation (item id) fields compare with ' +
          'strings; numbers, percentages and money (minor units) with numbers; booleans with true/false.',
      }),
    },
    {
      $id: 'FilterCondition',
      description:
        'Compares a field\'s values. Text compares case-insensitively (identifiers verbatim); `contains` and ' +
        '`not_contains` take at most 256 characters. A `many` field matches when any value matches; `not_eq` and ' +
        '`not_contains` match items where no value matches.',
      examples: [{ field: 'name', op: 'starts_with', value: 'Ac' }],
    },
  ),
  Type.Object(
    { field: Type.String({ description: 'a field ref or id' }), op: Type.Literal('exists') },
    { $id: 'FilterExists', description: 'Matches items that have a value in the field.', examples: [{ field: 'email', op: 'exists' }] },
  ),
  Type.Object(
    { op: Type.Union([Type.Literal('and'), Type.Literal('or')]), filters: Type.Array(ref('Filter')) },
    { $id: 'FilterGroup', description: 'All (`and`) or any (`or`) of the filters match.' },
  ),
  Type.Object({ op: Type.Literal('not'), filter: ref('Filter') }, { $id: 'FilterNot', description: 'The filter does not match.' }),
  {
    $id: 'Filter',
    description:
      `The items filter language: conditions combined with \`and\`, \`or\` and \`not\`, at most ${FILTER_LIMITS.conditions} ` +
      `conditions nested at most ${FILTER_LIMITS.depth} levels deep. A malformed filter, an unknown field or an ` +
      'operator that does not apply to the field\'s type answers 422, pointing into the filter (`/filter/filters/1/op`).',
    oneOf: [ref('FilterCondition'), ref('FilterExists'), ref('FilterGroup'), ref('FilterNot')],
    discriminator: {
      propertyName: 'op',
      mapping: {
        ...Object.fromEntries(VALUE_OPS.map((op) => [op, '#/components/schemas/FilterCondition'])),
        exists: '#/components/schemas/FilterExists',
        and: '#/components/schemas/FilterGroup',
        or: '#/components/schemas/FilterGroup',
        not: '#/components/schemas/FilterNot',
      },
    },
  },
];

export const FilterParam = docOnly({
  ...ref('Filter'),
  examples: [
    {
      op: 'and',
      filters: [
        { field: 'name', op: 'contains', value: 'acme' },
        { op: 'not', filter: { field: 'employees', op: 'lt', value: 10 } },
      ],
    },
  ],
});
