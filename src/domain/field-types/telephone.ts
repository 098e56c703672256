// Telephone numbers: strictly E.164 ("+14155552671"), checked against the numbering plan by libphonenumber.
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { asIs, describeJson, ValueProblem, type ValueType } from './value-type.ts';

export const telephone: ValueType = {
  parse(data) {
    // Trimmed like the other one-line values; inside, nothing but the digits.
    const text = typeof data === 'string' ? data.trim() : data;
    const number = typeof text === 'string' && /^\+[1-9]\d{1,14}$/.test(text) ? parsePhoneNumberFromString(text) : undefined;
    // Possible (right length for its country) rather than valid: test and fictional ranges stay usable.
    if (!number || number.number !== text || !number.isPossible()) {
      throw new ValueProblem(
        `must be a telephone number in E.164 format: "+", country code and number, no spaces or punctuation (e.g. "+14155552671"); got ${describeJson(data)}`,
      );
    }
    return number.number;
  },
  render: asIs,
};
