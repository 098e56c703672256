// The contract every field type's values follow: check and normalise a request's `data` into the stored
// form, and turn a stored form back into the response `data`.
import type { Field } from '../fields.ts';
import type { Funnel } from '../funnels.ts';
import { characterCount, longerThan } from '../characters.ts';

/** A value that cannot be accepted; `detail` says what is wrong and what would be accepted. */
export class ValueProblem extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'ValueProblem';
  }
}

/** What checking or rendering a value may need besides the value: its field and, for stages, the funnel. */
export interface ValueContext {
  field: Field;
  funnel?: Funnel;
}

export interface ValueType {
  /** The stored form of request `data`; throws ValueProblem. */
  parse(data: unknown, context: ValueContext): unknown;
  /** The response `data` of a stored form. */
  render(stored: unknown, context: ValueContext): unknown;
}

export const asIs = (stored: unknown): unknown => stored;

export function describeJson(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  // JSON.parse reads a literal such as 1e400 as Infinity, which JSON.stringify would show as null.
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large to represent';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** A string, trimmed, 1 to `max` characters. */
export function boundedString(data: unknown, max: number, what: string): string {
  if (typeof data !== 'string') throw new ValueProblem(`must be ${what} string, got ${describeJson(data)}`);
  const text = data.trim();
  if (text.length === 0) throw new ValueProblem('must not be empty; send null to clear the field');
  if (longerThan(text, max)) throw new ValueProblem(`must be at most ${max} characters long, got ${characterCount(text)}`);
  return text;
}
