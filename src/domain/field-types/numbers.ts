// Numeric and boolean values: integers, floats, percentages (in percentage points), money in minor units.
import { asIs, describeJson, ValueProblem, type ValueType } from './value-type.ts';
import { isCurrencyCode } from '../currencies.ts';

/**
 * A whole number that JSON clients (doubles) read exactly. `problem` words the refusal around the range, which
 * is named only for a whole number outside it, so it is not told it is not whole.
 */
function wholeNumber(data: unknown, problem: (range: string) => string): number {
  if (typeof data === 'number' && Number.isSafeInteger(data)) return data;
  const range = typeof data === 'number' && Number.isInteger(data) ? ` from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}` : '';
  throw new ValueProblem(`${problem(range)}, got ${describeJson(data)}`);
}

export const integer: ValueType = {
  parse: (data) => wholeNumber(data, (range) => `must be a whole number${range} (e.g. 42)`),
  render: asIs,
};

const finite = (label: string): ValueType => ({
  parse(data) {
    if (typeof data !== 'number' || !Number.isFinite(data)) {
      throw new ValueProblem(`must be ${label}, got ${describeJson(data)}`);
    }
    return data;
  },
  render: asIs,
});

export const float = finite('a number (e.g. 3.14)');
export const percentage = finite('a number of percentage points (50.5 means 50.5 %)');

export const boolean: ValueType = {
  parse(data) {
    if (typeof data !== 'boolean') throw new ValueProblem(`must be true or false, got ${describeJson(data)}`);
    return data;
  },
  render: asIs,
};

export const monetary: ValueType = {
  parse(data, { field }) {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new ValueProblem(`must be an object {"currency": "USD", "in_minor_units": 1000}, got ${describeJson(data)}`);
    }
    const { currency = field.config.defaultUnit, in_minor_units: amount } = data as Record<string, unknown>;
    if (typeof currency !== 'string' || !isCurrencyCode(currency)) {
      throw new ValueProblem(`currency must be an ISO 4217 code such as "USD", got ${describeJson(currency)}`);
    }
    return { currency, in_minor_units: wholeNumber(amount, (range) => `in_minor_units must be a whole number of minor units${range} (10.00 USD is 1000)`) };
  },
  render: asIs,
};
