// Request generation: for one operation of the OpenAPI document, an arbitrary of request *specs* (path
// parameters, query entries, headers, body) built from the operation's schemas, and materialize(), which turns a
// spec into the bytes that are sent (resolving fixture markers, building huge or deep values, multipart bodies).
import fc from 'fast-check';
import type { Operation, Parameter, Schema } from './openapi.ts';
import type { WireRequest, FuzzHarness } from './harness.ts';
import { entryOf, FIELD_SPECS, FIELD_TYPE_MARKER, lockMarker, RESOURCES, resolveId, resolveInString, resolveValue, type Fixtures, type Resource } from './fixtures.ts';
import { applyMutations, JSON_CONTENT_TYPES, mutationArb, RAW_BODIES, serialize, type Mutation } from './mutations.ts';
import { KNOWN_FIELDS, defaultValuesArb, fieldKeyArb, filterArb, identifiersArb, idMarker, nameArb, sortKeyArb, sortListArb, textArb, valuesMapArb } from './values.ts';

// ---- specs --------------------------------------------------------------------------------------------------

export type PathValue =
  | { t: 'fx'; resource: Resource; index: number; form: 'id' | 'alt' }
  | { t: 'raw'; value: string; encode: boolean }
  | { t: 'download'; index: number };

export const CURSOR_MUTATIONS = ['none', 'flip', 'truncate', 'append', 'case', 'garbage-body', 'double', 'padding', 'nul', 'no-mac', 'swap'] as const;
export type CursorMutation = (typeof CURSOR_MUTATIONS)[number];

export type QueryValue =
  | { t: 'text'; value: string }
  | { t: 'fx'; resource: Resource; index: number; form: 'id' | 'alt' }
  | { t: 'cursor'; own: boolean; index: number; mutation: CursorMutation; pick: number }
  | { t: 'download'; index: number; field: 'expires' | 'signature'; mutation: CursorMutation; pick: number };

export interface QueryEntry {
  key: string;
  value: QueryValue;
  /** Percent-encode key and value (false: sent as typed, when that is possible at all). */
  encode: boolean;
}

export type PartContent =
  | { t: 'text'; value: string }
  | { t: 'fx'; resource: Resource; index: number }
  | { t: 'associations'; index: number; shape: number }
  | { t: 'big'; size: number }
  | { t: 'bytes' };

export interface PartSpec {
  name: string;
  filename: string | null;
  contentType: string | null;
  disposition: 'ok' | 'missing' | 'garbage' | 'noname';
  content: PartContent;
}

export const BOUNDARY_MODES = ['ok', 'ok', 'ok', 'missing', 'mismatch', 'quoted', 'long', 'empty', 'charset'] as const;
export const ENDINGS = ['ok', 'ok', 'ok', 'none', 'truncated', 'lf', 'garbage', 'preamble', 'nocrlf', 'empty'] as const;

export type BodySpec =
  | { t: 'none' }
  | { t: 'json'; value: unknown; mutations: Mutation[] }
  | { t: 'raw'; index: number }
  | { t: 'multipart'; parts: PartSpec[]; boundary: (typeof BOUNDARY_MODES)[number]; ending: (typeof ENDINGS)[number]; flood: 'none' | 'fields' | 'files' };

export type AuthSpec = 'key' | 'none' | 'readonly' | 'other' | { garbage: number } | { odd: number };

export interface RequestSpec {
  /** Another method than the operation's, now and then (PUT, HEAD, OPTIONS …). */
  method?: string;
  path: Record<string, PathValue>;
  /** Parent ids (collection of an item, message of an attachment) follow the child fixture. */
  coherent: boolean;
  query: QueryEntry[];
  /** Extra junk query parameters (beyond qs's parameterLimit when large). */
  flood: number;
  body: BodySpec;
  contentType: { t: 'auto' } | { t: 'omit' } | { t: 'set'; value: string };
  auth: AuthSpec;
  headers: [string, string | string[]][];
}

// ---- path parameters ----------------------------------------------------------------------------------------

const SEGMENT_RESOURCE: Record<string, Resource> = {
  collections: 'collection',
  fields: 'field',
  funnels: 'funnel',
  items: 'item',
  activities: 'activity',
  tagsets: 'tagset',
  notes: 'note',
  inboxes: 'inbox',
  files: 'file',
  inbox_conversations: 'conversation',
  inbox_messages: 'message',
  attachments: 'attachment',
  views: 'view',
  meetings: 'meeting',
  calls: 'call',
};

/** What a path parameter names, from the segment before it (`/notes/{id}` → note). */
export function resourceOf(op: Operation, param: string): Resource | undefined {
  if (param === 'collection_id') return 'collection';
  if (param === 'message_id') return 'draft';
  if (param === 'org') return 'org';
  if (param === 'file') return 'file';
  const segments = op.path.split('/');
  const i = segments.indexOf(`{${param}}`);
  const resource = SEGMENT_RESOURCE[segments[i - 1] ?? ''];
  // Writes to a message are about drafts.
  if (resource === 'message' && op.method !== 'GET') return 'draft';
  return resource;
}

const PATH_JUNK = [
  '', ' ', 'x', '0', '-1', 'null', 'undefined', '1111111111111111111111', 'IIIIIIIIIIIIIIIIIIIIII', 'a'.repeat(22), 'x'.repeat(101),
  'x'.repeat(10_000), 'y'.repeat(70_000), '\u0000', 'a\u0000b', '💥', '..', '.', '%', '%zz', '%00', '%2F', '%E0%A4%A', '__proto__', 'constructor',
  'people', 'PEOPLE', ' people', 'created_at', 'name', '-', '*', ';', 'a/b', 'a?b=c', 'a#b', '\ud800', '%C0%AE%C0%AE',
];

function pathValueArb(op: Operation, param: string): fc.Arbitrary<PathValue> {
  const resource = resourceOf(op, param);
  const fx = (r: fc.Arbitrary<Resource>) =>
    fc.record({ t: fc.constant('fx' as const), resource: r, index: fc.nat({ max: 40 }), form: fc.constantFrom<'id' | 'alt'>('id', 'id', 'alt') });
  const choices: fc.WeightedArbitrary<PathValue>[] = [
    { arbitrary: fx(fc.constantFrom(...RESOURCES)), weight: 1 },
    { arbitrary: fc.record({ t: fc.constant('raw' as const), value: fc.constantFrom(...PATH_JUNK), encode: fc.boolean() }), weight: 2 },
    { arbitrary: fc.record({ t: fc.constant('raw' as const), value: fc.oneof(textArb, fc.string({ unit: 'binary', maxLength: 30 })), encode: fc.constant(true) }), weight: 1 },
  ];
  if (resource) choices.push({ arbitrary: fx(fc.constant(resource)), weight: 8 });
  if (op.path.startsWith('/tycho/downloads/')) choices.push({ arbitrary: fc.record({ t: fc.constant('download' as const), index: fc.nat({ max: 3 }) }), weight: 8 });
  return fc.oneof(...choices);
}

// ---- query parameters ---------------------------------------------------------------------------------------

const LIMITS = ['1', '20', '100', '0', '-1', '101', 'Infinity', '-Infinity', 'NaN', '1e999', '1e2', '1.5', '', ' ', 'abc', '0x10', '007', '9'.repeat(400), '+5', '5 ', 'true', 'null', '-0', '1e-400'];

const cursorArb = (own: boolean): fc.Arbitrary<QueryValue> =>
  fc.record({
    t: fc.constant('cursor' as const),
    own: fc.constant(own),
    index: fc.nat({ max: 5 }),
    mutation: fc.constantFrom(...CURSOR_MUTATIONS),
    pick: fc.nat({ max: 1000 }),
  });

const text = (value: fc.Arbitrary<string>): fc.Arbitrary<QueryValue> => value.map((v) => ({ t: 'text' as const, value: v }));
const fxValue = (resource: Resource): fc.Arbitrary<QueryValue> =>
  fc.nat({ max: 40 }).map((index) => ({ t: 'fx' as const, resource, index, form: 'id' as const }));

/** Values for a scalar query parameter, by its name and schema. */
function scalarValueArb(name: string, schema: Schema): fc.Arbitrary<QueryValue> {
  if (name === 'limit') return text(fc.oneof(fc.constantFrom(...LIMITS), fc.integer({ min: -5, max: 200 }).map(String)));
  if (name === 'after' || name === 'before') {
    return fc.oneof({ arbitrary: cursorArb(true), weight: 5 }, { arbitrary: cursorArb(false), weight: 1 }, { arbitrary: text(textArb), weight: 2 });
  }
  if (name === 'expires' || name === 'signature') {
    return fc.oneof(
      { arbitrary: fc.record({ t: fc.constant('download' as const), index: fc.nat({ max: 3 }), field: fc.constant(name), mutation: fc.constantFrom(...CURSOR_MUTATIONS), pick: fc.nat({ max: 1000 }) }), weight: 5 },
      { arbitrary: text(fc.oneof(fc.constantFrom(...LIMITS), textArb)), weight: 2 },
    );
  }
  if (/(^|_)id$/.test(name)) {
    const resource: Resource = name === 'inbox_id' ? 'inbox' : name === 'conversation_id' ? 'conversation' : 'item';
    return fc.oneof({ arbitrary: fxValue(resource), weight: 4 }, { arbitrary: fxValue('foreign'), weight: 1 }, { arbitrary: text(textArb), weight: 2 });
  }
  if (schema.enum) return fc.oneof({ arbitrary: text(fc.constantFrom(...schema.enum.map(String))), weight: 4 }, { arbitrary: text(textArb), weight: 1 });
  if (schema.anyOf?.every((s) => s.enum)) {
    const values = schema.anyOf.flatMap((s) => s.enum!.map(String));
    return fc.oneof({ arbitrary: text(fc.constantFrom(...values)), weight: 4 }, { arbitrary: text(textArb), weight: 1 });
  }
  if (name === 'gte' || name === 'lte') return text(fc.oneof(fc.constantFrom('2020-01-01T00:00:00Z', '2020-01-01', 'yesterday', '', '9999-99-99', '0'), textArb));
  if (schema.type === 'integer' || schema.type === 'number') return text(fc.constantFrom(...LIMITS));
  return text(textArb);
}

/** `[]`, `[x]`, or a repetition: the ways a client might spell one parameter. */
const keyForms = (name: string) => fc.constantFrom(name, name, name, name, `${name}[]`, `${name}[0]`, `${name}[x]`, `${name}[][]`);

/** Entries for one declared query parameter (possibly none, possibly many). */
function parameterEntriesArb(param: Parameter, prefix = ''): fc.Arbitrary<QueryEntry[]> {
  const name = prefix ? `${prefix}[${param.name}]` : param.name;
  const schema = param.schema;
  const encode = fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 });
  if (schema.type === 'array') {
    const item = schema.items ?? {};
    const valueArb =
      param.name === 'sort'
        ? text(sortKeyArb)
        : param.name === 'include'
          ? text(fc.oneof(fc.constantFrom(...(enumOf(item) ?? INCLUDE_VALUES)), fieldKeyArb))
          : scalarValueArb(param.name, item);
    const many =
      param.name === 'sort'
        ? fc.oneof({ arbitrary: fc.constant(0), weight: 8 }, { arbitrary: fc.constantFrom(33, 101, 150, 900), weight: 1 })
        : fc.oneof({ arbitrary: fc.constant(0), weight: 8 }, { arbitrary: fc.constantFrom(101, 150), weight: 1 });
    return fc
      .tuple(fc.array(fc.tuple(fc.constantFrom(`${name}[]`, `${name}[]`, name, `${name}[0]`, `${name}[5]`, `${name}[100000]`, `${name}[x]`), valueArb), { maxLength: 4 }), many, valueArb, encode)
      .map(([entries, n, filler, enc]) => [
        ...entries.map(([key, value]) => ({ key, value, encode: enc })),
        ...Array.from({ length: n }, () => ({ key: `${name}[]`, value: filler, encode: enc })),
      ]);
  }
  if (schema.type === 'object' && schema.properties) {
    const props = Object.entries(schema.properties).map(([prop, sub]) => parameterEntriesArb({ name: prop, in: 'query', required: false, schema: sub }, name));
    return fc
      .tuple(fc.subarray(props.map((_, i) => i)), ...props)
      .map(([chosen, ...lists]) => (chosen as number[]).flatMap((i) => (lists[i] as QueryEntry[]) ?? []));
  }
  return fc
    .tuple(keyForms(name), scalarValueArb(param.name, schema), encode, fc.oneof({ arbitrary: fc.constant(1), weight: 6 }, { arbitrary: fc.constant(2), weight: 1 }))
    .map(([key, value, enc, times]) => Array.from({ length: times }, () => ({ key, value, encode: enc })));
}

const JUNK_KEYS = [
  'filter[x][eq]', 'filter', 'x', '__proto__[a]', 'constructor[prototype][a]', 'a[b][c][d][e][f][g][h]', '[]', '[', ']', 'limit[__proto__]',
  'sort[][]', 'filter[type][in][][]', 'include[][x]', 'include[]', 'sort[]', 'filter[item_id][eq]', 'type[eq]', 'type[in][]',
  'occurred_at[gte]', 'constituent_entity_id[eq]', 'inbox_id[eq]', 'conversation_id[eq]', 'after', 'before', 'limit', 'filter[x][y][z][w][v][u]',
];

function queryArb(op: Operation): fc.Arbitrary<QueryEntry[]> {
  const declared = op.queryParams.map((p) =>
    fc.oneof({ arbitrary: fc.constant([] as QueryEntry[]), weight: 1 }, { arbitrary: parameterEntriesArb(p), weight: p.required ? 6 : 2 }),
  );
  const junk = fc.array(
    fc.record({ key: fc.oneof(fc.constantFrom(...JUNK_KEYS), textArb), value: text(fc.oneof(textArb, fc.constantFrom(...LIMITS))), encode: fc.boolean() }),
    { maxLength: 2 },
  );
  return fc.tuple(junk, ...declared).map(([extra, ...lists]) => [...(lists as QueryEntry[][]).flat(), ...extra]);
}

// ---- bodies -------------------------------------------------------------------------------------------------

type Hint = (pointer: string, schema: Schema) => fc.Arbitrary<unknown> | undefined;

/** A value that fits the schema most of the time (the hint supplies what the schema leaves open). */
export function schemaArb(schema: Schema, pointer: string, hint: Hint): fc.Arbitrary<unknown> {
  const hinted = hint(pointer, schema);
  if (hinted) return hinted;
  let arb: fc.Arbitrary<unknown>;
  if (schema.anyOf) arb = fc.oneof(...schema.anyOf.map((s) => schemaArb(s, pointer, hint)));
  else if (schema.enum) arb = fc.constantFrom(...schema.enum);
  else if (schema.type === 'string') arb = pointer.endsWith('/name') ? nameArb : textArb;
  else if (schema.type === 'integer') arb = fc.oneof(fc.integer({ min: schema.minimum ?? -10, max: schema.maximum ?? 1000 }), fc.constantFrom(-1, 0, 2 ** 31));
  else if (schema.type === 'number') arb = fc.double({ noNaN: true, noDefaultInfinity: true });
  else if (schema.type === 'boolean') arb = fc.boolean();
  else if (schema.type === 'array') arb = fc.array(schemaArb(schema.items ?? {}, `${pointer}/*`, hint), { maxLength: 3 });
  else if (schema.type === 'object' && schema.properties) {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [key, sub] of Object.entries(schema.properties)) model[key] = schemaArb(sub, `${pointer}/${key}`, hint);
    arb = fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in model) });
  } else if (schema.type === 'object') arb = fc.dictionary(textArb, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
  else arb = fc.jsonValue({ maxDepth: 2 });
  return schema.nullable ? fc.option(arb, { nil: null, freq: 8 }) : arb;
}

const CURRENCIES = ['USD', 'EUR', 'JPY', 'usd', 'XXX', 'DOLLARS', ''];

function hintFor(op: Operation): Hint {
  const tagsets = op.path.startsWith('/v0/tagsets');
  const notes = op.path.startsWith('/v0/notes');
  return (pointer) => {
    switch (pointer) {
      case '/values':
        return valuesMapArb;
      case '/identifiers':
        return identifiersArb;
      case '/default_values':
        return defaultValuesArb;
      case '/filter':
        return filterArb;
      case '/sort':
        return sortListArb;
      case '/include':
        return fc.array(fieldKeyArb, { maxLength: 3 });
      case '/associations/*/id':
        return tagsets
          ? fc.oneof({ arbitrary: idMarker('inbox'), weight: 4 }, { arbitrary: textArb, weight: 1 })
          : fc.oneof({ arbitrary: idMarker('item'), weight: 5 }, { arbitrary: idMarker('foreign'), weight: 1 }, { arbitrary: idMarker('note'), weight: 1 }, { arbitrary: textArb, weight: 1 });
      case '/associations/*/type':
        return tagsets ? fc.constantFrom('inbox', 'inbox', 'calls', 'meetings', 'item', '') : fc.constantFrom('item', 'item', 'item', 'calls', 'meetings', 'note', '');
      case '/inbox_id':
        return fc.oneof({ arbitrary: idMarker('inbox'), weight: 5 }, { arbitrary: textArb, weight: 1 });
      case '/conversation_id':
        return fc.oneof({ arbitrary: idMarker('conversation'), weight: 4 }, { arbitrary: textArb, weight: 1 });
      case '/file_id':
        return fc.oneof({ arbitrary: idMarker('file'), weight: 5 }, { arbitrary: idMarker('attachment'), weight: 1 }, { arbitrary: textArb, weight: 1 });
      case '/funnel/id':
        return fc.oneof({ arbitrary: idMarker('funnel'), weight: 4 }, { arbitrary: textArb, weight: 1 });
      case '/options/*/id':
        return fc.oneof(idMarker('option'), textArb);
      case '/stages/*/id':
      case '/steps/*/id':
        return fc.oneof(idMarker('step'), textArb);
      case '/tags/*/id':
        return fc.oneof(idMarker('tag'), textArb);
      case '/lock_version':
        return fc.oneof(
          { arbitrary: fc.nat({ max: 40 }).map((i) => lockMarker(notes ? 'note' : 'draft', i)), weight: 5 },
          { arbitrary: fc.constantFrom(-1, 0, 1, 2 ** 31, 1.5), weight: 1 },
        );
      case '/allowed_collections/*/id':
        return fc.oneof(idMarker('collection'), idMarker('foreign'), textArb);
      case '/allowed_collections/*/ref':
        return fc.constantFrom('people', 'organizations', 'fuzz_things', 'deals', 'tasks', 'nope', '');
      case '/collection_id':
        return fc.oneof(idMarker('collection'), textArb);
      case '/default_unit':
        return fc.constantFrom(...CURRENCIES);
      case '/reverse_field_name':
        return nameArb;
      case '/source/id':
      case '/destination/id':
        return fc.oneof({ arbitrary: idMarker('item'), weight: 5 }, { arbitrary: idMarker('foreign'), weight: 1 }, { arbitrary: textArb, weight: 1 });
      case '/start_at':
      case '/end_at':
        return fc.oneof(
          fc.constantFrom('2025-01-01T10:00:00Z', '2025-01-01T11:00:00+01:00', '2025-01-01 10:00:00 UTC', '2025-01-01', 'yesterday', ''),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        );
      case '/transcript':
        return fc.option(fc.record({ cues: fc.array(fc.record({ from: fc.nat({ max: 100 }), to: fc.nat({ max: 100 }), text: textArb, speaker: fc.constantFrom('+14155552671', 'x') }), { maxLength: 2 }) }), { nil: null });
      case '/time_zone':
        return fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Mars/Olympus', '');
    }
    if (/\/participants\/\*\/phone$/.test(pointer)) return fc.constantFrom('+14155552671', '+442071838750', '+1', '4155552671', '');
    if (/\/(attendees|participants)\/\*\/email$/.test(pointer)) return fc.oneof(fc.constantFrom('ada@acme.test', 'new@acme.test', 'bad'), fc.emailAddress());
    if (/^\/(to|cc|bcc)\/\*\/email$/.test(pointer)) return fc.oneof(fc.constantFrom('ada@acme.test', 'new@acme.test', 'nobody@elsewhere.test', 'bad', ''), fc.emailAddress());
    return undefined;
  };
}

/** Attachments take JSON `{file_id}` besides multipart; the document declares neither. */
const ATTACHMENT_BODY: Schema = { type: 'object', required: ['file_id'], properties: { file_id: { type: 'string' } } };

/** The valid-looking base of a JSON body, before mutations. */
function baseBodyArb(op: Operation): fc.Arbitrary<unknown> {
  const hint = hintFor(op);
  if (op.path.endsWith('/attachments') && op.method === 'POST') return schemaArb(ATTACHMENT_BODY, '', hint);
  if (!op.body) return fc.jsonValue({ maxDepth: 2 });
  const generic = schemaArb(op.body, '', hint);
  if (op.method === 'POST' && op.path.endsWith('/fields')) {
    // A creation body that fits its type half of the time, so that creation paths are reached.
    const coherent = fc
      .tuple(fc.constantFrom(...FIELD_SPECS.map(([, body]) => body)), nameArb, generic)
      .map(([body, name, extra]) => ({ ...pickSome(extra), ...body, name }));
    return fc.oneof(coherent, generic);
  }
  if (op.method === 'PATCH' && op.path.endsWith('/fields/{id}')) {
    // The field's own type (a change of type is refused), with some of the generated changes.
    const keeping = generic.map((extra) => ({ ...pickSome(extra, ['name', 'description', 'cardinality', 'required', 'unique', 'default_values']), type: FIELD_TYPE_MARKER }));
    return fc.oneof(keeping, generic);
  }
  return generic;
}

/** A few of the generated optional properties, to mix into a coherent body. */
function pickSome(value: unknown, keys = ['cardinality', 'required', 'unique', 'description', 'default_values']): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (keys.includes(k)) out[k] = v;
  return out;
}

const partContentArb: fc.Arbitrary<PartContent> = fc.oneof(
  { arbitrary: fc.record({ t: fc.constant('text' as const), value: fc.oneof(fc.constantFrom('file contents', '', '{"a":1}', '[1]', 'not json', 'item'), textArb) }), weight: 5 },
  { arbitrary: fc.record({ t: fc.constant('fx' as const), resource: fc.constantFrom<Resource>('item', 'item', 'file', 'foreign', 'note', 'attachment'), index: fc.nat({ max: 40 }) }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('associations' as const), index: fc.nat({ max: 40 }), shape: fc.nat({ max: 11 }) }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('big' as const), size: fc.constantFrom(70_000, 1_100_000) }), weight: 1 },
  { arbitrary: fc.constant({ t: 'bytes' as const }), weight: 1 },
);

const partArb: fc.Arbitrary<PartSpec> = fc.record({
  name: fc.oneof(
    { arbitrary: fc.constantFrom('file', 'file', 'file', 'name', 'associations', 'associations[][id]', 'associations[][type]', 'file_id'), weight: 6 },
    { arbitrary: fc.constantFrom('x', '', 'FILE', 'file[]', 'associations[0][id]', 'a"b', '\u00e9', 'name\u0000'), weight: 1 },
  ),
  filename: fc.oneof(
    { arbitrary: fc.constant(null), weight: 2 },
    { arbitrary: fc.constantFrom('a.txt', 'report.pdf', '', ' ', '../../etc/passwd', 'a\u0000b.txt', 'x'.repeat(5000), '💥.txt', 'a"b.txt', 'C:\\boot.ini', '.', 'CON'), weight: 3 },
  ),
  contentType: fc.oneof(
    { arbitrary: fc.constant(null), weight: 3 },
    { arbitrary: fc.constantFrom('text/plain', 'application/json', 'application/octet-stream', '', 'garbage', 'multipart/mixed; boundary=zz', 'text/plain; charset=utf-16'), weight: 2 },
  ),
  disposition: fc.constantFrom('ok', 'ok', 'ok', 'ok', 'ok', 'missing', 'garbage', 'noname'),
  content: partContentArb,
});

/** A usual upload (file part, maybe name and associations) more often than pure noise. */
const multipartArb: fc.Arbitrary<BodySpec> = fc.record({
  t: fc.constant('multipart' as const),
  parts: fc.oneof(
    fc.tuple(
      fc.record({ name: fc.constant('file'), filename: fc.constantFrom('a.txt', 'b.bin'), contentType: fc.constant('text/plain'), disposition: fc.constant('ok' as const), content: partContentArb }),
      fc.array(partArb, { maxLength: 3 }),
    ).map(([file, rest]) => [file, ...rest]),
    fc.array(partArb, { maxLength: 4 }),
  ),
  boundary: fc.constantFrom(...BOUNDARY_MODES),
  ending: fc.constantFrom(...ENDINGS),
  flood: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'none', 'fields', 'files'),
});

function bodyArb(op: Operation): fc.Arbitrary<BodySpec> {
  const json = fc.record({
    t: fc.constant('json' as const),
    value: baseBodyArb(op),
    mutations: fc.oneof({ arbitrary: fc.constant([] as Mutation[]), weight: 2 }, { arbitrary: fc.array(mutationArb, { minLength: 1, maxLength: 3 }), weight: 5 }),
  });
  const rawBody = fc.record({ t: fc.constant('raw' as const), index: fc.nat({ max: RAW_BODIES.length - 1 }) });
  const none = fc.constant({ t: 'none' as const });
  const declaresBody = op.body !== undefined;
  const takesUpload = op.method === 'POST' && !declaresBody;
  if (declaresBody) return fc.oneof({ arbitrary: json, weight: 12 }, { arbitrary: rawBody, weight: 2 }, { arbitrary: none, weight: 1 }, { arbitrary: multipartArb, weight: 1 });
  if (takesUpload) return fc.oneof({ arbitrary: multipartArb, weight: 8 }, { arbitrary: json, weight: 3 }, { arbitrary: rawBody, weight: 1 }, { arbitrary: none, weight: 2 });
  return fc.oneof({ arbitrary: none, weight: 12 }, { arbitrary: json, weight: 1 }, { arbitrary: rawBody, weight: 1 });
}

// ---- headers ------------------------------------------------------------------------------------------------

const STRATEGIES = ['replace', 'preserve', 'merge', 'REPLACE', ' replace', '', 'replace,preserve', 'x'.repeat(300), 'null', 'merge '];

const headerValueArb = fc.oneof(
  fc.constantFrom('', ' ', 'x'.repeat(8000), 'ünïcödé', '\u00ff\u00fe', '"quoted"', 'a, b', 'gzip', '*/*', 'true'),
  fc.string({ maxLength: 20 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
);

function headersArb(op: Operation): fc.Arbitrary<[string, string | string[]][]> {
  const declaresStrategies = op.headerParams.length > 0;
  const strategyValue = fc.oneof(fc.constantFrom(...STRATEGIES), fc.array(fc.constantFrom(...STRATEGIES), { minLength: 2, maxLength: 2 }));
  const strategy = (name: string) => fc.option(strategyValue.map((v) => [name, v] as [string, string | string[]]), { freq: declaresStrategies ? 2 : 12 });
  const misc = fc.array(
    fc.tuple(
      fc.constantFrom('x-request-id', 'accept', 'content-encoding', 'accept-encoding', 'x-http-method-override', 'if-match', 'idempotency-key', 'x-forwarded-for', 'origin', 'cookie'),
      headerValueArb,
    ) as fc.Arbitrary<[string, string | string[]]>,
    { maxLength: 2 },
  );
  return fc
    .tuple(strategy('update-one-strategy'), strategy('update-many-strategy'), fc.oneof({ arbitrary: fc.constant([]), weight: 4 }, { arbitrary: misc, weight: 1 }))
    .map(([one, many, rest]) => [...(one ? [one] : []), ...(many ? [many] : []), ...rest]);
}

/** Authorization values that must be refused (401). */
const GARBAGE_AUTH = [
  'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', `Bearer ${'x'.repeat(5000)}`, 'Bearer tycho_1111111111111111111111111111111111111111111',
  'Bearer a.b.c', 'Bearer eyJhbGciOiJub25lIn0.eyJvcmciOiJkZWZhdWx0Iiwic2NvcGUiOiJ3cml0ZSJ9.', 'Bearer tycho_test_key_0123456789abcdef, Bearer x',
  'Bearer ünï', 'Bearer tycho_test_key_0123456789abcdeF', 'Bearer tycho_test_key_0123456789abcde', 'Token tycho_test_key_0123456789abcdef',
];

/** Unusual spellings of the valid key that a server may or may not accept (RFC 7235: the scheme is case-insensitive). */
const ODD_AUTH = ['bearer tycho_test_key_0123456789abcdef', 'Bearer  tycho_test_key_0123456789abcdef', 'BEARER tycho_test_key_0123456789abcdef', 'tycho_test_key_0123456789abcdef', 'Bearer tycho_test_key_0123456789abcdef '];

const authArb: fc.Arbitrary<AuthSpec> = fc.oneof(
  { arbitrary: fc.constant('key' as const), weight: 40 },
  { arbitrary: fc.constantFrom('none' as const, 'readonly' as const, 'other' as const), weight: 3 },
  { arbitrary: fc.nat({ max: GARBAGE_AUTH.length - 1 }).map((garbage) => ({ garbage })), weight: 1 },
  { arbitrary: fc.nat({ max: ODD_AUTH.length - 1 }).map((odd) => ({ odd })), weight: 1 },
);

const contentTypeArb: fc.Arbitrary<RequestSpec['contentType']> = fc.oneof(
  { arbitrary: fc.constant({ t: 'auto' as const }), weight: 20 },
  { arbitrary: fc.constant({ t: 'omit' as const }), weight: 1 },
  { arbitrary: fc.constantFrom(...JSON_CONTENT_TYPES).map((value) => ({ t: 'set' as const, value })), weight: 3 },
);

// ---- clean requests -----------------------------------------------------------------------------------------
// What a well-behaved client would send: right kind of real ids, sensible query values, an unmutated body. Most
// generated requests are clean but for one part, so that the deep code paths are reached with one fault at a time.

/** The values an enum (or a union of single-value enums) allows, as strings. */
function enumOf(schema: Schema | undefined): string[] | undefined {
  const values = schema?.enum ?? schema?.anyOf?.flatMap((s) => s.enum ?? []);
  return values && values.length > 0 ? values.map(String) : undefined;
}

const INCLUDE_VALUES = ['addresses', 'attachments', 'conversation', 'inbox', 'messages', 'messages.addresses', 'tags'];

function cleanScalarArb(name: string, schema: Schema): fc.Arbitrary<QueryValue> {
  if (name === 'limit') return text(fc.integer({ min: 1, max: 100 }).map(String));
  if (name === 'after' || name === 'before') return cursorArb(true).map((c) => ({ ...c, mutation: 'none' as const }));
  if (name === 'expires' || name === 'signature') return fc.record({ t: fc.constant('download' as const), index: fc.nat({ max: 3 }), field: fc.constant(name), mutation: fc.constant('none' as const), pick: fc.constant(0) });
  if (/(^|_)id$/.test(name)) return fxValue(name === 'inbox_id' ? 'inbox' : name === 'conversation_id' ? 'conversation' : 'item');
  const values = schema.enum ?? schema.anyOf?.flatMap((s) => s.enum ?? []);
  if (values && values.length > 0) return text(fc.constantFrom(...values.map(String)));
  if (name === 'gte' || name === 'lte') return text(fc.constantFrom('2020-01-01T00:00:00Z', '2030-01-01T00:00:00.000Z'));
  if (name === 'constituent_entity_type' || name === 'eq') return text(fc.constantFrom('item', 'api_key', 'collection', 'note', 'file'));
  return text(fc.constantFrom('item', 'x'));
}

function cleanParameterArb(param: Parameter, prefix = '', itemsList = false): fc.Arbitrary<QueryEntry[]> {
  const name = prefix ? `${prefix}[${param.name}]` : param.name;
  const schema = param.schema;
  if (schema.type === 'array') {
    const listed = enumOf(schema.items);
    const value =
      param.name === 'sort'
        ? text(sortKeyArb.filter((k) => /^-?[a-z_.]+$/.test(k)))
        : listed
          ? text(fc.constantFrom(...listed))
          : param.name === 'include'
            ? text(itemsList ? fc.constantFrom(...KNOWN_FIELDS.map((f) => f.ref)) : fc.constantFrom(...INCLUDE_VALUES))
            : cleanScalarArb(param.name, schema.items ?? {});
    return fc.array(value, { minLength: 1, maxLength: 2 }).map((values) => values.map((v) => ({ key: `${name}[]`, value: v, encode: true })));
  }
  if (schema.type === 'object' && schema.properties) {
    const props = Object.entries(schema.properties).map(([prop, sub]) => cleanParameterArb({ name: prop, in: 'query', required: false, schema: sub }, name));
    return fc.tuple(fc.nat({ max: props.length - 1 }), ...props).map(([chosen, ...lists]) => (lists[chosen] as QueryEntry[]) ?? []);
  }
  return cleanScalarArb(param.name, schema).map((value) => [{ key: name, value, encode: true }]);
}

function cleanQueryArb(op: Operation): fc.Arbitrary<QueryEntry[]> {
  const params = op.queryParams.filter((p) => p.name !== 'before');
  if (params.length === 0) return fc.constant([]);
  return fc
    .tuple(...params.map((p) => fc.option(cleanParameterArb(p, '', op.path.includes('/items')), { freq: p.required ? 100 : 2 })))
    .map((lists) => (lists as (QueryEntry[] | null)[]).flatMap((l) => l ?? []));
}

function cleanBodyArb(op: Operation): fc.Arbitrary<BodySpec> {
  if (op.body || (op.method === 'POST' && op.path.endsWith('/attachments'))) {
    const json = fc.record({ t: fc.constant('json' as const), value: baseBodyArb(op), mutations: fc.constant([] as Mutation[]) });
    if (op.body) return json;
    return fc.oneof(json, multipartArb.map((m) => ({ ...m, boundary: 'ok' as const, ending: 'ok' as const, flood: 'none' as const })));
  }
  if (op.method === 'POST' && op.path === '/v0/files') return multipartArb.map((m) => ({ ...m, boundary: 'ok' as const, ending: 'ok' as const, flood: 'none' as const }));
  return fc.constant({ t: 'none' as const });
}

function cleanPathArb(op: Operation): fc.Arbitrary<Record<string, PathValue>> {
  const path: Record<string, fc.Arbitrary<PathValue>> = {};
  for (const p of op.pathParams) {
    const resource = resourceOf(op, p.name);
    path[p.name] = op.path.startsWith('/tycho/downloads/')
      ? fc.record({ t: fc.constant('download' as const), index: fc.nat({ max: 3 }) })
      : fc.record({
          t: fc.constant('fx' as const),
          resource: fc.constant(resource ?? 'item'),
          // The first entry (the custom collection, its first field …) half of the time.
          index: fc.oneof(fc.constant(0), fc.nat({ max: 40 })),
          form: fc.constantFrom<'id' | 'alt'>('id', 'alt'),
        });
  }
  return fc.record(path);
}

function cleanHeadersArb(op: Operation): fc.Arbitrary<[string, string | string[]][]> {
  if (op.headerParams.length === 0) return fc.constant([]);
  return fc
    .tuple(fc.option(fc.constantFrom('replace', 'preserve'), { freq: 2 }), fc.option(fc.constantFrom('replace', 'preserve', 'merge'), { freq: 2 }))
    .map(([one, many]) => [...(one ? [['update-one-strategy', one] as [string, string]] : []), ...(many ? [['update-many-strategy', many] as [string, string]] : [])]);
}

/** Which part of an otherwise clean request is replaced by its hostile version ('clean': none, 'chaos': all). */
export const MODES = ['clean', 'body', 'body', 'body', 'query', 'query', 'path', 'path', 'headers', 'auth', 'contentType', 'chaos', 'chaos'] as const;
export type Mode = (typeof MODES)[number];

export function requestArb(op: Operation): fc.Arbitrary<RequestSpec> {
  const path: Record<string, fc.Arbitrary<PathValue>> = {};
  for (const p of op.pathParams) path[p.name] = pathValueArb(op, p.name);
  const hostile = fc.record({
    method: fc.oneof({ arbitrary: fc.constant(op.method), weight: 30 }, { arbitrary: fc.constantFrom('PUT', 'HEAD', 'OPTIONS', 'GET', 'POST', 'PATCH', 'DELETE', 'TRACE'), weight: 1 }),
    path: fc.record(path),
    coherent: fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }),
    query: queryArb(op),
    flood: fc.oneof({ arbitrary: fc.constant(0), weight: 30 }, { arbitrary: fc.constantFrom(50, 1500), weight: 1 }),
    body: bodyArb(op),
    contentType: contentTypeArb,
    auth: op.public ? fc.constant('none' as const) : authArb,
    headers: headersArb(op),
  });
  const clean = fc.record({
    path: cleanPathArb(op),
    coherent: fc.constant(true),
    query: cleanQueryArb(op),
    method: fc.constant(op.method),
    flood: fc.constant(0),
    body: cleanBodyArb(op),
    contentType: fc.constant({ t: 'auto' as const }),
    auth: fc.constant(op.public ? ('none' as const) : ('key' as const)),
    headers: cleanHeadersArb(op),
  });
  return fc.tuple(fc.constantFrom(...MODES), clean, hostile).map(([mode, c, x]): RequestSpec => {
    switch (mode) {
      case 'clean':
        return c;
      case 'chaos':
        return x;
      case 'path':
        return { ...c, path: x.path, coherent: x.coherent, method: x.method ?? op.method };
      case 'query':
        return { ...c, query: x.query, flood: x.flood };
      default:
        return { ...c, [mode]: x[mode] };
    }
  });
}

// ---- materialize --------------------------------------------------------------------------------------------

const printable = (s: string) => /^[\x21-\x7e]*$/.test(s) && !/[#?&=/ ]/.test(s);

function mutateToken(token: string, mutation: CursorMutation, pick: number): string {
  const at = token.length === 0 ? 0 : pick % token.length;
  switch (mutation) {
    case 'none':
      return token;
    case 'flip': {
      const c = token[at] ?? 'A';
      return token.slice(0, at) + (c === 'A' ? 'B' : 'A') + token.slice(at + 1);
    }
    case 'truncate':
      return token.slice(0, at);
    case 'append':
      return token + ['A', '==', '%00', '.x', '.', '\u0000', 'é'][pick % 7];
    case 'case':
      return token.replace(/[a-z]/gi, (ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()));
    case 'garbage-body':
      return `${Buffer.from(['{"x":1}', '[[],"x"]', '[[1e999],"x"]', '[null,null]', 'x'.repeat(5000)][pick % 5]!).toString('base64url')}.${token.split('.')[1] ?? ''}`;
    case 'double':
      return token + token;
    case 'padding':
      return `${token}=`;
    case 'nul':
      return `${token.slice(0, at)}\u0000${token.slice(at)}`;
    case 'no-mac':
      return token.split('.')[0] ?? '';
    case 'swap': {
      const [body = '', mac = ''] = token.split('.');
      return `${mac}.${body}`;
    }
  }
}

function queryValueOf(fx: Fixtures, op: Operation, value: QueryValue): string {
  switch (value.t) {
    case 'text':
      return resolveInString(fx, value.value);
    case 'fx':
      return resolveId(fx, value.resource, value.index, value.form);
    case 'cursor': {
      const own = fx.cursors.get(op.name);
      const all = [...fx.cursors.values()].flat();
      const pool = value.own && own && own.length > 0 ? own : all;
      const cursor = pool.length > 0 ? pool[value.index % pool.length]! : 'eyJ4IjoxfQ.AAAA';
      return mutateToken(cursor, value.mutation, value.pick);
    }
    case 'download': {
      const link = fx.downloads[value.index % Math.max(1, fx.downloads.length)];
      const real = link ? (new URL(link, 'http://x').searchParams.get(value.field) ?? '') : '';
      return mutateToken(real, value.mutation, value.pick);
    }
  }
}

function pathValueOf(fx: Fixtures, value: PathValue, param: string): { text: string; encode: boolean } {
  switch (value.t) {
    case 'fx':
      return { text: resolveId(fx, value.resource, value.index, value.form), encode: true };
    case 'raw':
      return { text: value.value, encode: value.encode || !printable(value.value) && !/^%/.test(value.value) };
    case 'download': {
      const link = fx.downloads[value.index % Math.max(1, fx.downloads.length)] ?? '/tycho/downloads/x/y';
      const [, , , org = '', file = ''] = new URL(link, 'http://x').pathname.split('/');
      return { text: param === 'org' ? org : file, encode: false };
    }
  }
}

/** encodeURIComponent, except that lone surrogates become their (invalid) three UTF-8-style bytes instead of throwing. */
export function percentEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    let out = '';
    for (const ch of text) {
      const c = ch.charCodeAt(0);
      if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff) {
        out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
      } else out += encodeURIComponent(ch);
    }
    return out;
  }
}

const enc = (text: string, encode: boolean) => (encode ? percentEncode(text) : text);

function urlOf(fx: Fixtures, op: Operation, spec: RequestSpec): string {
  const values: Record<string, { text: string; encode: boolean }> = {};
  for (const [name, value] of Object.entries(spec.path)) values[name] = pathValueOf(fx, value, name);
  if (spec.coherent) {
    // The parent follows the child: an item's collection, an attachment's message, a download's organization.
    for (const [name, value] of Object.entries(spec.path)) {
      if (value.t !== 'fx') continue;
      const parent = entryOf(fx, value.resource, value.index)?.parent;
      for (const [parentName, parentId] of Object.entries(parent ?? {})) if (parentName in values && parentName !== name) values[parentName] = { text: parentId, encode: true };
    }
    const download = Object.values(spec.path).find((v) => v.t === 'download');
    if (download) for (const name of Object.keys(values)) values[name] = pathValueOf(fx, download, name);
  }
  let url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = values[name];
    return v ? enc(v.text, v.encode) : '';
  });
  const pairs = spec.query.map((entry) => {
    const value = queryValueOf(fx, op, entry.value);
    const raw = !entry.encode && printable(entry.key.replace(/[[\]]/g, '')) && printable(value);
    return `${raw ? entry.key : percentEncode(entry.key)}=${raw ? value : percentEncode(value)}`;
  });
  for (let i = 0; i < spec.flood; i++) pairs.push(`p${i}[a]=${i}`);
  if (pairs.length > 0) url += `?${pairs.join('&')}`;
  return url;
}

const BOUNDARY = 'FuzzBoundary0123456789';

function associationsJson(fx: Fixtures, index: number, shape: number): string {
  const item = resolveId(fx, 'item', index);
  const shapes = [
    [{ type: 'item', id: item }],
    { type: 'item', id: item },
    [{ id: item }],
    [{ type: 'item' }],
    [{ type: 'note', id: resolveId(fx, 'note', index) }],
    [{ type: 'item', id: resolveId(fx, 'foreign', index) }],
    [{ type: 'item', id: 5 }],
    [null],
    'not json',
    [],
    [{ type: 'item', id: item }, { type: 'item', id: item }],
    Array.from({ length: 500 }, () => ({ type: 'item', id: item })),
  ];
  const chosen = shapes[shape % shapes.length];
  return typeof chosen === 'string' ? chosen : JSON.stringify(chosen);
}

function partContentOf(fx: Fixtures, content: PartContent): Buffer {
  switch (content.t) {
    case 'text':
      return Buffer.from(resolveInString(fx, content.value));
    case 'fx':
      return Buffer.from(resolveId(fx, content.resource, content.index));
    case 'associations':
      return Buffer.from(associationsJson(fx, content.index, content.shape));
    case 'big':
      return Buffer.alloc(content.size, 0x61);
    case 'bytes':
      return Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0xed, 0xa0, 0x80]);
  }
}

function multipartOf(fx: Fixtures, body: Extract<BodySpec, { t: 'multipart' }>): { payload: Buffer; contentType: string } {
  let parts = body.parts;
  if (body.flood === 'fields') parts = [...parts, ...Array.from({ length: 120 }, (_, i): PartSpec => ({ name: `f${i}`, filename: null, contentType: null, disposition: 'ok', content: { t: 'text', value: 'v' } }))];
  if (body.flood === 'files') parts = [...parts, ...Array.from({ length: 3 }, (): PartSpec => ({ name: 'file', filename: 'extra.txt', contentType: 'text/plain', disposition: 'ok', content: { t: 'text', value: 'extra' } }))];
  const nl = body.ending === 'lf' ? '\n' : '\r\n';
  const chunks: Buffer[] = [];
  if (body.ending === 'preamble') chunks.push(Buffer.from(`this is a preamble${nl}`));
  for (const part of parts) {
    let head = `--${BOUNDARY}${nl}`;
    const name = part.name;
    switch (part.disposition) {
      case 'ok':
        head += `Content-Disposition: form-data; name="${name}"${part.filename !== null ? `; filename="${part.filename}"` : ''}${nl}`;
        break;
      case 'garbage':
        head += `Content-Disposition: ;;;=="${name}${nl}`;
        break;
      case 'noname':
        head += `Content-Disposition: form-data${part.filename !== null ? `; filename="${part.filename}"` : ''}${nl}`;
        break;
      case 'missing':
        break;
    }
    if (part.contentType !== null) head += `Content-Type: ${part.contentType}${nl}`;
    chunks.push(Buffer.from(`${head}${nl}`), partContentOf(fx, part.content), Buffer.from(nl));
  }
  if (body.ending !== 'none') chunks.push(Buffer.from(`--${BOUNDARY}--${body.ending === 'nocrlf' ? '' : nl}`));
  if (body.ending === 'garbage') chunks.push(Buffer.from('trailing garbage after the close delimiter'));
  let payload = Buffer.concat(chunks);
  if (body.ending === 'truncated') payload = payload.subarray(0, Math.floor(payload.length / 2));
  if (body.ending === 'empty') payload = Buffer.alloc(0);
  const contentType = {
    ok: `multipart/form-data; boundary=${BOUNDARY}`,
    missing: 'multipart/form-data',
    mismatch: 'multipart/form-data; boundary=SomethingElse',
    quoted: `multipart/form-data; boundary="${BOUNDARY}"`,
    long: `multipart/form-data; boundary=${'b'.repeat(200)}`,
    empty: 'multipart/form-data; boundary=',
    charset: `multipart/form-data; charset=utf-8; boundary=${BOUNDARY}`,
  }[body.boundary];
  return { payload, contentType };
}

/** Ids of the fixtures, for mutations that put a real id of some other record where something else belongs. */
function someIds(fx: Fixtures): string[] {
  return (['item', 'note', 'file', 'collection', 'field', 'option', 'foreign'] as Resource[]).map((r, i) => resolveId(fx, r, i));
}

/** The type of the field a request's path names, when it names one of the fixtures' fields. */
function fieldTypeOf(fx: Fixtures, spec: RequestSpec): string | undefined {
  const value = spec.path.id;
  if (!value || value.t !== 'fx' || value.resource !== 'field') return undefined;
  return entryOf(fx, 'field', value.index)?.type;
}

export interface Materialized {
  request: WireRequest;
  /** The JSON body as sent (before serialization), for reports; undefined for other bodies. */
  json?: unknown;
}

export async function materialize(h: FuzzHarness, fx: Fixtures, op: Operation, spec: RequestSpec): Promise<Materialized> {
  const headers: Record<string, string | string[]> = {};
  const auth = spec.auth;
  if (auth === 'key') headers.authorization = `Bearer ${h.key}`;
  else if (auth === 'readonly') headers.authorization = `Bearer ${fx.readOnlyKey}`;
  else if (auth === 'other') headers.authorization = `Bearer ${fx.otherKey}`;
  else if (typeof auth === 'object' && 'garbage' in auth) headers.authorization = GARBAGE_AUTH[auth.garbage % GARBAGE_AUTH.length]!;
  else if (typeof auth === 'object') headers.authorization = ODD_AUTH[auth.odd % ODD_AUTH.length]!;
  for (const [name, value] of spec.headers) headers[name] = value;

  let payload: string | Buffer | undefined;
  let autoType: string | undefined;
  let json: unknown;
  const body = spec.body;
  if (body.t === 'json') {
    const base = await resolveValue(h, fx, body.value, fieldTypeOf(fx, spec));
    json = applyMutations(base, body.mutations, someIds(fx));
    if (json !== undefined) payload = serialize(json);
    autoType = 'application/json';
  } else if (body.t === 'raw') {
    payload = RAW_BODIES[body.index % RAW_BODIES.length]!;
    autoType = 'application/json';
  } else if (body.t === 'multipart') {
    const built = multipartOf(fx, body);
    payload = built.payload;
    autoType = built.contentType;
  }
  if (spec.contentType.t === 'set') headers['content-type'] = spec.contentType.value;
  else if (spec.contentType.t === 'auto' && autoType) headers['content-type'] = autoType;
  return { request: { method: spec.method ?? op.method, url: urlOf(fx, op, spec), headers, ...(payload !== undefined ? { payload } : {}) }, ...(json !== undefined ? { json } : {}) };
}

// ---- printing -----------------------------------------------------------------------------------------------

/** Shortens runs of a repeated character or short unit (deep nesting), long texts, and shows NULs. */
export function abbreviate(text: string, max = 1500): string {
  let out = text.length > 50_000_000 ? text.slice(0, 50_000_000) : text;
  out = out.replace(/(.)\1{40,}/gsu, (run, ch: string) => `⟨${ch}⟩×${[...run].length}`);
  out = out.replace(/(.{2,24}?)\1{19,}/gs, (run, unit: string) => `⟨${unit}⟩×${run.length / unit.length}`);
  if (out.length > max) out = `${out.slice(0, max)}…[${out.length} chars in all]`;
  return out.replace(/\u0000/g, '\\u0000');
}

/** A curl-like rendering of a request, huge and deep parts abbreviated. */
export function describeRequest(request: WireRequest): string {
  const lines = [`${request.method} ${abbreviate(request.url, 600)}`];
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'x-request-id' && String(value).startsWith('fuzz-')) continue;
    if (name === 'authorization' && value === 'Bearer tycho_test_key_0123456789abcdef') {
      lines.push('  authorization: Bearer <test key>');
      continue;
    }
    lines.push(`  ${name}: ${abbreviate(Array.isArray(value) ? value.join(' | ') : value, 200)}`);
  }
  if (request.payload !== undefined) {
    const text = Buffer.isBuffer(request.payload) ? request.payload.toString('latin1') : request.payload;
    lines.push(`  body (${Buffer.byteLength(request.payload)} bytes): ${abbreviate(text)}`);
  }
  return lines.join('\n');
}

