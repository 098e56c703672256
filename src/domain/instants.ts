// Instants as clients send them, in bodies and query strings. Besides ISO 8601, clients send what their
// language prints by default: Ruby's Time#to_s is `2025-01-01 00:00:00 UTC` (or `… -0500`), and the Ruby SDK
// puts a Time into a JSON body that way. In a query string, a `+` that was not percent-encoded arrives as a
// space. Every form needs a time and a zone: a bare local time names no instant.

// date, `T` or space, hh:mm[:ss[.fraction]], optional space, zone.
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)? ?(?:([Zz]|UTC|GMT)|([+\- ])(\d{2})(?::?(\d{2}))?)$/;

/** How a time finer than a millisecond becomes one: down for an upper bound, up for a lower bound. */
export type Rounding = 'floor' | 'ceil';

/** The accepted shapes, for error messages. */
export const INSTANT_SHAPES = 'an ISO 8601 date and time with a zone (2025-01-01T00:00:00Z, 2025-01-01T00:00:00+01:00) or 2025-01-01 00:00:00 UTC / +0000 / -0500';

/**
 * The UTC instant (ISO 8601 with milliseconds, as Tycho stores times) that `text` names, or null when it is
 * not one of the accepted shapes or names no existing day and time. In a query string (`query`) surrounding
 * blanks are ignored and a space where the offset's sign belongs is read as `+`.
 */
export function parseInstant(text: string, { rounding = 'floor', query = false }: { rounding?: Rounding; query?: boolean } = {}): string | null {
  const m = INSTANT.exec(query ? text.trim() : text);
  if (!m || (!query && m[9] === ' ')) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;

  const fraction = (m[7] ?? '').padEnd(9, '0');
  let millis = Number(fraction.slice(0, 3));
  if (rounding === 'ceil' && Number(fraction.slice(3)) > 0) millis += 1;

  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const hours = Number(m[10]);
    const minutes = Number(m[11] ?? '0');
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }

  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  const instant = date.getTime() - offsetMinutes * 60_000;
  const result = new Date(instant);
  const resultYear = result.getUTCFullYear();
  if (Number.isNaN(instant) || resultYear < 0 || resultYear > 9999) return null;
  return result.toISOString();
}

function daysIn(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}
