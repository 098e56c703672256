// Email addresses given outside item values (meeting participants, program recipients, unsubscribes): checked
// like `value/email` data, with the error at the address's pointer. The detail names the property and shows a
// plain address, since these bodies take the address itself, not a `{type, data}` value.
import { invalidAt, propertyAt } from './errors.ts';
import { ValueProblem } from './field-types/index.ts';
import { describeJson } from './field-types/value-type.ts';
import { email } from './field-types/text.ts';

/** The name a detail gives the property at `pointer`: `/person/email` → `person.email`. */

/** The address with its domain lower-cased; a 422 at `pointer` when `value` is not one. */
export function emailAt(value: unknown, pointer: string): string {
  // Checked here, as the value check's own message for these speaks of clearing a field.
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalidAt(pointer, `${propertyAt(pointer)} must be an email address such as "jane@example.com", got ${describeJson(value)}`);
  }
  try {
    // An email's checks do not depend on a field's settings.
    return email.parse(value, undefined as never) as string;
  } catch (error) {
    if (error instanceof ValueProblem) throw invalidAt(pointer, `${propertyAt(pointer)} ${error.detail}`);
    throw error;
  }
}

/** The whole address lower-cased: the form lists of addresses (unsubscribes) compare and keep. */
export const normalisedEmail = (value: unknown, pointer: string): string => emailAt(value, pointer).toLowerCase();
