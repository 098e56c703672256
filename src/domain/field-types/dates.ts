// Calendar dates ("2025-02-17", must exist) and instants (ISO 8601 with a zone, or Ruby's Time#to_s:
// instants.ts; stored and returned in UTC with milliseconds).
import { parseInstant } from '../instants.ts';
import { asIs, describeJson, ValueProblem, type ValueType } from './value-type.ts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function dayExists(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export function parseDate(data: unknown): string | null {
  const m = typeof data === 'string' ? DATE.exec(data) : null;
  return m && dayExists(Number(m[1]), Number(m[2]), Number(m[3])) ? data as string : null;
}

/** The UTC instant a date-time with a zone names (in a body), or null. */
export function parseDateTime(data: unknown): string | null {
  return typeof data === 'string' ? parseInstant(data) : null;
}

export const date: ValueType = {
  parse(data) {
    const value = parseDate(data);
    if (value === null) throw new ValueProblem(`must be a calendar date YYYY-MM-DD that exists (e.g. "2025-02-17"), got ${describeJson(data)}`);
    return value;
  },
  render: asIs,
};

export const datetime: ValueType = {
  parse(data) {
    const value = parseDateTime(data);
    if (value === null) {
      throw new ValueProblem(`must be an ISO 8601 date and time with a zone (e.g. "2025-02-17T16:00:00Z"), got ${describeJson(data)}`);
    }
    return value;
  },
  render: asIs,
};
