// Refuses U+0000 anywhere in a request's text before it reaches the domain: PostgreSQL cannot store it in a
// text column and SQLite would, so both engines answer alike — 404 for a path id (no record has such an id),
// 400 naming the query parameter, 422 pointing at the body value (or key) that holds it.
import type { FastifyInstance } from 'fastify';
import { AppError, badParameter, invalidAt } from '../../domain/errors.ts';

const NUL = '\u0000';
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

/** Where the first NUL sits in a parsed JSON value: the path segments down to it, or undefined. */
export function findNul(root: unknown): string[] | undefined {
  // Iterative, and paths are only built for a find, so a deeply nested body costs linear time and no stack.
  const pending: Visit[] = [{ value: root }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const { value } = visit;
    if (typeof value === 'string') {
      if (value.includes(NUL)) return pathOf(visit);
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => pending.push({ value: v, key: String(i), parent: visit }));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, v] of Object.entries(value)) {
        if (key.includes(NUL)) return [...pathOf(visit), key];
        pending.push({ value: v, key, parent: visit });
      }
    }
  }
  return undefined;
}

const NO_NUL = 'must not contain the NUL character (U+0000); remove it from the text';

export function registerTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (findNul(request.params) !== undefined) throw new AppError('not_found');
    const inQuery = findNul(request.query);
    if (inQuery !== undefined) {
      const parameter = inQuery[0]! + inQuery.slice(1).map((s) => `[${s}]`).join('');
      throw badParameter(parameter, `${parameter} ${NO_NUL}`);
    }
    const inBody = findNul(request.body);
    if (inBody !== undefined) {
      const pointer = inBody.map((s) => `/${escapePointer(s)}`).join('');
      throw invalidAt(pointer, `${inBody.join('.') || 'the body'} ${NO_NUL}`);
    }
  });
}
