// Email addresses given outside item values (meeting participants, program recipients, unsubscribes): checked
// like `value/email` data, with the error at the address's pointer.
import { invalidAt } from './errors.ts';
import { parseValue, ValueProblem } from './field-types/index.ts';

/** A stand-in email field: such addresses are checked like email values. */
const EMAIL_FIELD = {
  id: 'address', orgId: '', collectionId: '', ref: 'email', name: 'Email', description: null, type: 'field/email' as const,
  cardinality: 'one' as const, required: false, unique: false, readonly: false, kind: 'system' as const, config: {}, defaultValues: [],
  createdAt: '', updatedAt: '',
};

/** The address with its domain lower-cased; a 422 at `pointer` when `value` is not one. */
export function emailAt(value: unknown, pointer: string): string {
  try {
    return parseValue({ type: 'value/email', data: value }, { field: EMAIL_FIELD }) as string;
  } catch (error) {
    if (error instanceof ValueProblem) throw invalidAt(pointer, `email ${error.detail}`);
    throw error;
  }
}

/** The whole address lower-cased: the form lists of addresses (unsubscribes) compare and keep. */
export const normalisedEmail = (value: unknown, pointer: string): string => emailAt(value, pointer).toLowerCase();
