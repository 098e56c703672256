// Query strings as the SDKs send them (brackets: `type[eq]=…`, `sort[]=a&sort[]=b`), parsed with qs. One with
// more parameters than qs keeps is refused (400) rather than cut short: a dropped filter or cursor would answer
// a wider list, or page 1, as if that had been asked for.
import qs from 'qs';
import { badParameter, type AppError } from '../domain/errors.ts';
import { QUERY_ARRAY_LIMIT } from './validation.ts';

export const MAX_QUERY_PARAMETERS = 1000;
const OPTIONS = { depth: 5, arrayLimit: QUERY_ARRAY_LIMIT, parameterLimit: MAX_QUERY_PARAMETERS, allowPrototypes: false } as const;
/** Set, in place of the parameters, on the query of a request that sent too many: the first one beyond. */
const BEYOND = Symbol('first query parameter beyond the limit');

/** A parameter name as sent: percent-decoded, `+` read as a space (as it stands when not decodable). */
function decodedName(piece: string): string {
  const name = piece.split('=')[0]!.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** Whether a parameter name in `text` holds `__proto__`, which qs drops however it is configured. */
export function namesPrototype(text: string): boolean {
  return (text.includes('proto') || text.includes('%')) && text.split('&').some((piece) => decodedName(piece).includes('__proto__'));
}

/** The first parameter beyond `limit` in `text` (qs's count: the pieces between `&`), or undefined. */
export function parameterBeyond(text: string, limit: number): string | undefined {
  // Each parameter but the last takes two characters at least (one and its `&`).
  if (text.length < 2 * limit + 1) return undefined;
  const pieces = text.split('&', limit + 1);
  if (pieces.length <= limit) return undefined;
  return decodedName(pieces[limit]!);
}

export function parseQuery(text: string): Record<string, unknown> {
  const beyond = parameterBeyond(text, MAX_QUERY_PARAMETERS);
  if (beyond !== undefined) return { [BEYOND]: beyond };
  return qs.parse(text, OPTIONS) as Record<string, unknown>;
}

/** The 400 for a query string that held too many parameters, naming the first one left over; else undefined. */
export function queryLimitError(query: unknown): AppError | undefined {
  const beyond = (query as { [BEYOND]?: string } | undefined)?.[BEYOND];
  if (beyond === undefined) return undefined;
  return badParameter(beyond, `a query string holds at most ${MAX_QUERY_PARAMETERS} parameters; "${beyond}" is the ${MAX_QUERY_PARAMETERS + 1}st — send fewer`);
}
