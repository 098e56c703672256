// Numeric and boolean values: integers, floats, percentages (in percentage points), money in minor units.
import { asIs, describeJson, ValueProblem, type ValueType } from './value-type.ts';
import { isCurrencyCode } from '../currencies.ts';

export const integer: ValueType = {
  parse(data) {
    if (typeof data !== 'number' || !Number.isSafeInteger(data)) {
      throw new ValueProblem(`must be a whole number (e.g. 42), got ${describeJson(data)}`);
    }
    return data;
  },
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
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) {
      throw new ValueProblem(`in_minor_units must be a whole number of minor units (10.00 USD is 1000), got ${describeJson(amount)}`);
    }
    return { currency, in_minor_units: amount };
  },
  render: asIs,
};
