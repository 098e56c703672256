// Query-string pieces the list endpoints share: filter operators (`x[eq]`, `x[in][]`…, anything else refused),
// id filters in every SDK spelling, `include[]` checking, and the reading of nested filters that releases
// 0.1.0-alpha.3 to alpha.9 of the Ruby SDK sent as one printed Ruby hash (`filter={:inbox_id=>{:eq=>"1C…"}}`,
// or `filter={inbox_id: {eq: "1C…"}}` on Ruby 3.4) instead of in bracket form.
import type { FastifyRequest } from 'fastify';
import { Type, type TProperties } from 'typebox';
import { badParameter } from '../domain/errors.ts';
import { findBadText } from './plugins/text-guard.ts';

/**
 * One filter's operators (`x[eq]`, `x[in][]`…), declared in a list's querystring schema. Another operator
 * (`x[gt]`), or a bare value where the operator belongs (`x=…`), is a 400 naming it and what is accepted:
 * ignoring it would answer an unfiltered list as if it were filtered.
 */
export function operators<P extends TProperties>(name: string, ops: P) {
  const spelled = Object.entries(ops).map(([op, schema]) => `[${op}]${(schema as { type?: unknown }).type === 'array' ? '[]' : ''}`);
  return Type.Optional(Type.Object(ops, { additionalProperties: false, errorMessage: `must use ${spelled.join(' or ')}, as in ${name}${spelled[0]}=…` }));
}

/** The older `filter[x][…]` spelling of a list's filters; a filter the list does not have is a 400 too. */
export function filterGroup<P extends TProperties>(filters: P) {
  const names = Object.keys(filters).map((name) => `filter[${name}]`);
  return Type.Optional(Type.Object(filters, { additionalProperties: false, errorMessage: `must be one of this list's filters: ${names.join(', ')}` }));
}

/** `x[eq]=<id>`. */
const eq = (name: string) => operators(name, { eq: Type.Optional(Type.String({ minLength: 1 })) });

/** `x[]=<id>&x[]=<id>` (the oldest SDKs' multi-valued filters). */
const IdList = Type.Optional(Type.Array(Type.String({ minLength: 1 })));

/**
 * The `include[]` a list or retrieve accepts, declared in its schema: the OpenAPI document lists the values and
 * any other value is a 400 naming `include[]`.
 */
export const Include = (values: readonly string[]) =>
  Type.Optional(Type.Array(Type.Enum([...values], { errorMessage: `must be one of: ${values.join(', ')}` })));

/** The `include[]` values asked for (already checked by the schema), or undefined when none. */
export const includesOf = (include: readonly string[] | undefined): Set<string> | undefined =>
  include === undefined || include.length === 0 ? undefined : new Set(include);

/**
 * Id filters of a list in every spelling the SDKs have sent — `x[eq]`, `filter[x][eq]` and the oldest SDKs'
 * `legacy[]=…` lists — declared once: `properties` go into the route's querystring schema, `read` gives each
 * filter's allowed ids (the intersection of every spelling given; undefined when none was).
 */
export function idFilters<N extends string>(spellings: Record<N, { legacyList?: string }>) {
  const names = Object.keys(spellings) as N[];
  const own = Object.fromEntries(names.map((n) => [n, eq(n)]));
  const legacy = Object.fromEntries(names.flatMap((n) => (spellings[n].legacyList ? [[spellings[n].legacyList!, IdList]] : [])));
  return {
    properties: { ...own, ...legacy, filter: filterGroup(own) },
    read(query: Record<string, unknown>): Record<N, string[] | undefined> {
      const eq = (value: unknown) => {
        const id = (value as { eq?: string } | undefined)?.eq;
        return id === undefined ? undefined : [id];
      };
      const nested = (query.filter ?? {}) as Record<string, unknown>;
      const list = (n: N) => (spellings[n].legacyList ? (query[spellings[n].legacyList!] as string[] | undefined) : undefined);
      return Object.fromEntries(names.map((n) => [n, intersect(eq(query[n]), eq(nested[n]), list(n))])) as Record<N, string[] | undefined>;
    },
  };
}

/** The ids every given constraint allows, sorted; undefined when no constraint was given. */
function intersect(...constraints: (readonly string[] | undefined)[]): string[] | undefined {
  const given = constraints.filter((c): c is readonly string[] => c !== undefined);
  if (given.length === 0) return undefined;
  return [...new Set(given[0])].filter((id) => given.every((c) => c.includes(id))).sort();
}

/** Replaces a `filter` sent as a printed Ruby hash by the object it prints; anything else is left to validation. */
export async function legacyFilterHook(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown> | undefined;
  const filter = query?.filter;
  if (typeof filter !== 'string' || !filter.trimStart().startsWith('{')) return;
  const parsed = parseRubyInspect(filter);
  if (parsed === undefined || typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return;
  // Escapes in the printed hash (`\u0000`) can produce what the text guard refused in the raw query.
  const bad = findBadText(parsed);
  if (bad !== undefined) throw badParameter('filter', `filter ${bad.problem}`);
  query!.filter = parsed;
}

type Printed = string | null | Printed[] | { [key: string]: Printed };

/**
 * The value a Ruby `inspect` string prints, for the shapes SDK parameters take: hashes (`:k=>v`, `k: v`,
 * `"k"=>v`, `"k": v`), arrays, strings, symbols (as their names), nil, true/false, and bare values such as
 * numbers and times (`2025-01-01 00:00:00 UTC`) as their text. Undefined when the text is not one.
 */
export function parseRubyInspect(text: string): Printed | undefined {
  let i = 0;
  const space = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const fail = (): never => {
    throw new SyntaxError(`unexpected input at ${i}`);
  };

  function quoted(): string {
    // At the opening quote.
    i++;
    let out = '';
    while (i < text.length && text[i] !== '"') {
      if (text[i] !== '\\') {
        out += text[i++];
        continue;
      }
      const c = text[i + 1] ?? fail();
      i += 2;
      if (c === 'n') out += '\n';
      else if (c === 't') out += '\t';
      else if (c === 'r') out += '\r';
      else if (c === 'e') out += '\x1b';
      else if (c === 'u' && text[i] === '{') {
        const end = text.indexOf('}', i);
        if (end < 0) fail();
        out += String.fromCodePoint(...text.slice(i + 1, end).trim().split(/\s+/).map((h) => parseInt(h, 16)));
        i = end + 1;
      } else if (c === 'u' && /^[0-9a-fA-F]{4}/.test(text.slice(i, i + 4))) {
        out += String.fromCharCode(parseInt(text.slice(i, i + 4), 16));
        i += 4;
      } else if (c === 'x' && /^[0-9a-fA-F]{2}/.test(text.slice(i, i + 2))) {
        out += String.fromCharCode(parseInt(text.slice(i, i + 2), 16));
        i += 2;
      } else out += c;
    }
    if (text[i] !== '"') fail();
    i++;
    return out;
  }

  const NAME = /^[A-Za-z_][A-Za-z0-9_]*[?!]?/;

  function symbol(): string {
    // At the colon.
    i++;
    if (text[i] === '"') return quoted();
    const name = NAME.exec(text.slice(i))?.[0] ?? fail();
    i += name.length;
    return name;
  }

  function bare(): Printed {
    const start = i;
    while (i < text.length && !',}]'.includes(text[i]!)) i++;
    const raw = text.slice(start, i).trim();
    if (raw === '') fail();
    return raw === 'nil' ? null : raw;
  }

  function value(): Printed {
    space();
    const c = text[i];
    if (c === '{') return hash();
    if (c === '[') return array();
    if (c === '"') return quoted();
    if (c === ':' && text[i + 1] !== ':') return symbol();
    return bare();
  }

  function array(): Printed[] {
    i++;
    const out: Printed[] = [];
    space();
    if (text[i] === ']') {
      i++;
      return out;
    }
    for (;;) {
      out.push(value());
      space();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return out;
      }
      fail();
    }
  }

  function key(): string {
    space();
    const c = text[i];
    let name: string;
    if (c === ':') name = symbol();
    else if (c === '"') name = quoted();
    else {
      name = NAME.exec(text.slice(i))?.[0] ?? fail();
      i += name.length;
      // A bare word is a key only in the `name: value` form.
      if (text[i] !== ':') fail();
    }
    space();
    if (text.startsWith('=>', i)) i += 2;
    else if (text[i] === ':' && text[i + 1] !== ':') i++;
    else fail();
    return name;
  }

  function hash(): { [key: string]: Printed } {
    i++;
    const out: { [key: string]: Printed } = {};
    space();
    if (text[i] === '}') {
      i++;
      return out;
    }
    for (;;) {
      const k = key();
      const v = value();
      if (v !== null) out[k] = v;
      space();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return out;
      }
      fail();
    }
  }

  try {
    const result = value();
    space();
    return i === text.length ? result : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}
