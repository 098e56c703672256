// Refuses text neither engine stores as sent, anywhere in a request, before it reaches the domain: U+0000
// (PostgreSQL cannot store it in a text column, SQLite would) and unpaired UTF-16 surrogates (a JSON escape
// such as "\ud800" alone: no UTF-8 holds it, so each engine would store its own replacement and answer
// something other than what the create echoed). Both engines answer alike — 404 for a path id (no record has
// such an id), 400 naming the query parameter, 422 pointing at the body value (or key) that holds it.
import type { FastifyInstance } from 'fastify';
import { AppError, badParameter, invalidAt } from '../../domain/errors.ts';

const NUL = '\u0000';
/** A surrogate standing alone: with the `u` flag a pair reads as the one code point it encodes. */
const LONE_SURROGATE = /\p{Cs}/u;

/** What is wrong with `text` for storage, as the end of a sentence naming it, or undefined. */
export function textProblem(text: string): string | undefined {
  if (text.includes(NUL)) return 'must not contain the NUL character (U+0000); remove it from the text';
  if (LONE_SURROGATE.test(text)) {
    return 'must be well-formed Unicode: it holds an unpaired surrogate (an escape such as \\ud800 without its pair); send the character itself or both halves of its pair';
  }
  return undefined;
}

/** Where a piece of text is that cannot be stored (`textProblem`), and why. */
export interface BadText {
  path: string[];
  problem: string;
}
const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

interface Visit {
  value: unknown;
  key?: string;
  parent?: Visit;
}

/** The path segments from the root down to `visit`. */
function pathOf(visit: Visit): string[] {
  const path: string[] = [];
  for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) path.push(v.key);
  return path.reverse();
}

/** The first string (or key) of a parsed JSON value that cannot be stored: the path segments down to it and why. */
export function findBadText(root: unknown): BadText | undefined {
  // Iterative, and paths are only built for a find, so a deeply nested body costs linear time and no stack.
  const pending: Visit[] = [{ value: root }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const { value } = visit;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem !== undefined) return { path: pathOf(visit), problem };
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => pending.push({ value: v, key: String(i), parent: visit }));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, v] of Object.entries(value)) {
        const problem = textProblem(key);
        if (problem !== undefined) return { path: [...pathOf(visit), key], problem };
        pending.push({ value: v, key, parent: visit });
      }
    }
  }
  return undefined;
}

export function registerTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (findBadText(request.params) !== undefined) throw new AppError('not_found');
    // A parameter without a name (`?=…`) reaches no route: there is nothing to name, and nothing is stored.
    // (Copied only then: this runs on every request.)
    const query = request.query as Record<string, unknown> | undefined;
    const inQuery = findBadText(query && '' in query ? { ...query, '': undefined } : query);
    if (inQuery !== undefined) {
      const [first, ...rest] = inQuery.path;
      const parameter = first! + rest.map((s) => `[${s}]`).join('');
      throw badParameter(parameter, textProblem(first!) === undefined ? `${parameter} ${inQuery.problem}` : `a query parameter's name ${inQuery.problem}`);
    }
    // A body is judged where the route reads one (a body schema, or media types it consumes); elsewhere it
    // is ignored, as a stray body on a GET or on global search is.
    const schema = request.routeOptions.schema;
    const inBody = schema?.body !== undefined || schema?.consumes !== undefined ? findBadText(request.body) : undefined;
    if (inBody !== undefined) {
      const pointer = inBody.path.map((s) => `/${escapePointer(s)}`).join('');
      throw invalidAt(pointer, `${inBody.path.join('.') || 'the body'} ${inBody.problem}`);
    }
  });
}
