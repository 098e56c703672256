// Hostile values and the mutations applied to otherwise valid-looking JSON bodies. A mutation is a small
// descriptor (kind, which node, which variant) so that fast-check prints and shrinks it; the possibly huge or
// deeply nested result is only built when the request is sent.
import fc from 'fast-check';

/**
 * A raw JSON token that JSON.stringify cannot produce (1e999, -0, 9007199254740993 …): the generated value holds
 * this marker string and serialize() splices the token into the text.
 */
export const raw = (token: string) => `\u0001RAW:${token}\u0001`;

/** JSON text of a value holding raw markers. */
export function serialize(value: unknown): string {
  return JSON.stringify(value)
    .replace(/"\\u0001RAW:([^"\\]*)\\u0001"/g, '$1')
    .replace(/"\\u0001DEEP:(\d+):([^"\\]*)\\u0001"/g, (_, pick: string, leaf: string) => deepText(Number(pick), Buffer.from(leaf, 'base64url').toString('utf8')));
}

export const RAW_NUMBERS = [
  '1e999', '-1e999', '-0', '1E400', '1e-400', '-0.0', '1.0', '9007199254740993', '123456789012345678901234567890',
  '0.1e1', '1e308', '5e-324', '-9223372036854775809',
];

/** Strings that break things: NUL, lone surrogates, direction marks, combining marks, byte-order marks, … */
export const UNICODE = [
  '\u0000', 'a\u0000b', '\u0000\u0000\u0000', 'e\u0301', '\u202eevil', '\ufeffbom', '💥🔥', '\ud800', 'x\udc00', 'Ω≈ç√∫',
  '\u2028\u2029', 'ﷺ', 'İı', 'ß', 'a\u200bb', '🇺🇳', '𝕏𝕐', '\uffff', '\ufffe', '\u0007\u001b[31m', 'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
];

export const SPECIAL_STRINGS = [
  '', ' ', '  padded  ', 'x', '0', '-1', 'null', 'true', 'NaN', 'Infinity', '-Infinity', '1e999', '__proto__', 'constructor',
  'toString', 'hasOwnProperty', '\n', '\r\n', '\t', 'line\nbreak', '../../etc/passwd', '%00', '%', '%zz', "'; drop table items; --",
  '" OR 1=1 --', '${jndi:ldap://x}', '<script>alert(1)</script>', '{{7*7}}', 'a'.repeat(256), 'b'.repeat(1025), '2025-02-30',
  '2025-02-17T16:00:00', '+14155552671', 'ada@acme.test', 'https://example.com/x', 'people', 'created_at', 'name',
  '1111111111111111111111', 'IIIIIIIIIIIIIIIIIIIIII', ...UNICODE,
];

/** Values to put where something else was expected. */
export const WEIRD_VALUES: unknown[] = [
  null, true, false, 0, -1, 1.5, '', ' ', 'x', [], {}, [null], [[]], { a: 1 }, raw('1e999'), raw('-1e999'), raw('-0'), 'NaN',
  'Infinity', '-Infinity', raw('1e308'), raw('9007199254740993'), raw('123456789012345678901234567890'), 5e-324, '1', 'true', 'null',
  '\u0000', 'a\u0000b', '\ud800', '💥', '2025-02-30', 2 ** 31, -2147483649, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER,
  { type: 'value/text/single_line' }, { data: 'no type' }, { type: 'value/nonsense', data: 1 }, { type: null, data: 'x' },
  { type: 'value/text/single_line', data: null }, { type: 'value/number/monetary', data: { in_minor_units: 1 } },
  { type: 'item', id: 'x' }, { id: null }, { markdown: null }, [{}], [1, 'a', null, {}],
];

export const EXTRA_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'extra', 'type', 'id', 'data', '', '\u0000', 'values', 'k'.repeat(1000), '💥'];

export const MUTATION_KINDS = ['replace', 'delete', 'huge', 'deep', 'nul', 'unicode', 'extra', 'wrap', 'untype', 'rawnum', 'empty'] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

export interface Mutation {
  kind: MutationKind;
  /** Which node (index into the nodes of the value, modulo their number). */
  at: number;
  /** Which variant of the mutation. */
  pick: number;
}

export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom(...MUTATION_KINDS),
  at: fc.nat({ max: 1000 }),
  pick: fc.nat({ max: 1000 }),
});

const HUGE_STRING_SIZES = [1025, 65_537, 300_000, 1_100_000];
const DEEP_DEPTHS = [33, 100, 1000, 5000];

const pickOf = <T>(list: readonly T[], pick: number): T => list[pick % list.length]!;

/** A huge value, built on demand. */
export function hugeValue(pick: number): unknown {
  switch (pick % 8) {
    case 0:
    case 1:
      return 'h'.repeat(pickOf(HUGE_STRING_SIZES, Math.floor(pick / 8)));
    case 2:
      return '\u0000'.repeat(100_000);
    case 3:
      return '💥'.repeat(50_000);
    case 4:
      return Array.from({ length: 10_000 }, () => null);
    case 5:
      return Array.from({ length: 2_000 }, (_, i) => ({ type: 'value/text/single_line', data: `v${i}` }));
    case 6:
      return Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    default:
      return Array.from({ length: 5_000 }, (_, i) => `s${i}`);
  }
}

/**
 * A deeply nested value (arrays, objects, or filter-shaped `not` / `and` chains around `leaf`). It is spliced in
 * as text when serialized: JSON.stringify itself would run out of stack on the deepest ones.
 */
export function deepValue(pick: number, leaf: unknown = 1): string {
  return `\u0001DEEP:${pick}:${Buffer.from(JSON.stringify(leaf ?? 1)).toString('base64url')}\u0001`;
}

const DEEP_SHAPES: [string, string][] = [
  ['[', ']'],
  ['{"a":', '}'],
  ['{"op":"not","filter":', '}'],
  ['{"op":"and","filters":[', ']}'],
];

function deepText(pick: number, leaf: string): string {
  const depth = pickOf(DEEP_DEPTHS, Math.floor(pick / 4));
  const [open, close] = DEEP_SHAPES[pick % 4]!;
  return open.repeat(depth) + leaf + close.repeat(depth);
}

type Slot = { parent: any; key: string | number | null };

/** Every node of a value as (parent, key) slots, root first; deep inside huge values is not walked. */
function slotsOf(root: { value: unknown }): Slot[] {
  const slots: Slot[] = [{ parent: root, key: 'value' }];
  const walk = (value: unknown, depth: number) => {
    if (depth > 12 || slots.length > 500) return;
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        slots.push({ parent: value, key: i });
        walk(v, depth + 1);
      });
    } else if (value && typeof value === 'object') {
      for (const k of Object.keys(value)) {
        slots.push({ parent: value, key: k });
        walk((value as any)[k], depth + 1);
      }
    }
  };
  walk(root.value, 0);
  return slots;
}

const setOwn = (target: any, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

/** Applies the mutations in order to a deep copy of `value`; `undefined` means "no body at all". */
export function applyMutations(value: unknown, mutations: Mutation[], fixtureIds: string[]): unknown {
  const root = { value: structuredClone(value) as unknown };
  for (const m of mutations) {
    const slots = slotsOf(root);
    // The whole body one time in five; otherwise a node inside it.
    const slot = slots.length > 1 && m.at % 5 !== 0 ? slots[1 + (m.at % (slots.length - 1))]! : slots[0]!;
    const current = slot.parent[slot.key as any];
    const put = (v: unknown) => {
      if (typeof slot.key === 'string') setOwn(slot.parent, slot.key, v);
      else slot.parent[slot.key as number] = v;
    };
    switch (m.kind) {
      case 'replace': {
        // Sometimes a real id of some other record, where a string or a pointer was expected.
        const pool = fixtureIds.length > 0 && m.pick % 7 === 0 ? fixtureIds : null;
        put(pool ? pickOf(pool, m.pick) : structuredClone(pickOf(WEIRD_VALUES, m.pick)));
        break;
      }
      case 'delete':
        if (slot.parent === root) root.value = undefined;
        else if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
        else delete slot.parent[slot.key as string];
        break;
      case 'huge':
        put(hugeValue(m.pick));
        break;
      case 'deep':
        put(deepValue(m.pick, typeof current === 'object' ? 1 : current));
        break;
      case 'nul':
        if (typeof current === 'string') {
          const at = m.pick % (current.length + 1);
          put(`${current.slice(0, at)}\u0000${current.slice(at)}`);
        } else if (current && typeof current === 'object' && !Array.isArray(current) && Object.keys(current).length > 0) {
          // A NUL inside a key.
          const keys = Object.keys(current);
          const key = pickOf(keys, m.pick);
          const moved = (current as any)[key];
          delete (current as any)[key];
          setOwn(current, `${key}\u0000`, moved);
        } else {
          put('a\u0000b');
        }
        break;
      case 'unicode':
        put(typeof current === 'string' && m.pick % 2 === 0 ? current + pickOf(UNICODE, m.pick >> 1) : pickOf(UNICODE, m.pick));
        break;
      case 'extra':
        if (current && typeof current === 'object' && !Array.isArray(current)) {
          setOwn(current, pickOf(EXTRA_KEYS, m.pick), structuredClone(pickOf(WEIRD_VALUES, m.pick >> 2)));
        } else if (Array.isArray(current)) {
          current.push(structuredClone(pickOf(WEIRD_VALUES, m.pick)));
        } else {
          put({ [pickOf(EXTRA_KEYS.filter((k) => k !== '__proto__'), m.pick)]: current });
        }
        break;
      case 'wrap':
        if (Array.isArray(current)) put(current.length > 0 && m.pick % 2 === 0 ? current[0] : { 0: current[0] ?? null });
        else if (current && typeof current === 'object') put(m.pick % 2 === 0 ? [current] : Object.values(current));
        else put([current]);
        break;
      case 'untype': {
        // A value object (or pointer) without its `type`.
        const typed = slots.filter((s) => {
          const v = s.parent[s.key as any];
          return v && typeof v === 'object' && !Array.isArray(v) && 'type' in v;
        });
        if (typed.length > 0) {
          const target = typed[m.pick % typed.length]!;
          delete target.parent[target.key as any].type;
        }
        break;
      }
      case 'rawnum':
        put(raw(pickOf(RAW_NUMBERS, m.pick)));
        break;
      case 'empty':
        put(pickOf(['', [], {}, null, ' '], m.pick));
        break;
    }
  }
  return root.value;
}

/** Whole bodies that are not what a JSON parser wants (or are, in unusual ways). */
export const RAW_BODIES = [
  '', ' ', '{', '{"a":', 'null', '[]', '[{}]', '"string"', '123', 'true', '{}garbage', '\ufeff{}', '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}', '{"a":1,"a":2}', "{'a':1}", '{"values": NaN}', '{"values": Infinity}', '{"values": undefined}',
  '{"x":"\\ud800"}', '{"x":"\\u0000"}', '\u0000', '{"name":"x"}\u0000', '[' .repeat(100_000), '{"a":'.repeat(20_000),
  `{"name":"${'x'.repeat(1_100_000)}"}`, '{"values":{"title":{"type":"value/text/single_line","data":"ok"}}}',
  '{"values":{"title":{"data":"no type"}}}', '{"name":"Fuzz"}', '\n\n{"name":"Fuzz"}\n\n', '{"name":"Fuzz",}', '{"name":"\\x41"}',
  '{"name":"\\u00"}', '{"name": 1e999}', '{"lock_version": 1e999, "body": "x"}', '{"lock_version": -0, "body": "x"}',
];

/** Content types for a JSON body (the first is what a client should send). */
export const JSON_CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json; charset=utf-16',
  'application/json; charset=latin1', 'application/json;;', 'application/vnd.api+json', 'application/merge-patch+json',
  'text/plain', 'text/json', 'application/x-www-form-urlencoded', 'multipart/form-data', 'multipart/form-data; boundary=x', '',
  ' ', 'application/json, text/plain', '*/*', 'application/octet-stream', 'garbage', 'application/json; boundary=---',
  'application/jsonp', 'application/json; charset="utf-8"', 'application/json ; charset=UTF-8', 'application/xml',
];
