// Telephone numbers: strictly E.164 ("+14155552671"), checked against the numbering plan by libphonenumber.
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { asIs, describeJson, ValueProblem, type ValueType } from './value-type.ts';

export const telephone: ValueType = {
  parse(data) {
    const number = typeof data === 'string' && /^\+[1-9]\d{1,14}$/.test(data) ? parsePhoneNumberFromString(data) : undefined;
    // Possible (right length for its country) rather than valid: test and fictional ranges stay usable.
    if (!number || number.number !== data || !number.isPossible()) {
      throw new ValueProblem(
        `must be a telephone number in E.164 format: "+", country code and number, no spaces or punctuation (e.g. "+14155552671"); got ${describeJson(data)}`,
      );
    }
    return number.number;
  },
  render: asIs,
};
