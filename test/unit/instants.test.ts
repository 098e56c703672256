// parseInstant: the time shapes bodies and query parameters accept (ISO 8601, Ruby's Time#to_s, numeric offsets
// with and without a colon; in a query, a `+` decoded to a space), how finer-than-millisecond times round, and
// what is refused.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseInstant, type Rounding } from '../../src/domain/instants.ts';

const parseQueryTime = (text: string, rounding?: Rounding) => parseInstant(text, { query: true, ...(rounding ? { rounding } : {}) });

describe('parseInstant', () => {
  it('reads every accepted shape as the same UTC instant', () => {
    const cases: [string, string][] = [
      // ISO 8601
      ['2025-01-01T00:00:00Z', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01t00:00:00z', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01T00:00Z', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01T01:00:00+01:00', '2025-01-01T00:00:00.000Z'],
      ['2024-12-31T19:00:00-05:00', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01T05:30:00+05:30', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01T01:00:00+01', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01T00:00:00.5Z', '2025-01-01T00:00:00.500Z'],
      ['2025-01-01T00:00:00,25Z', '2025-01-01T00:00:00.250Z'],
      // Offsets without a colon
      ['2025-01-01T00:00:00+0000', '2025-01-01T00:00:00.000Z'],
      ['2024-12-31T19:00:00-0500', '2025-01-01T00:00:00.000Z'],
      // Ruby's Time#to_s (and Time#inspect with a fraction)
      ['2025-01-01 00:00:00 UTC', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01 00:00:00 +0000', '2025-01-01T00:00:00.000Z'],
      ['2024-12-31 19:00:00 -0500', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01 09:00:00 +0900', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01 00:00:00.123456789 UTC', '2025-01-01T00:00:00.123Z'],
      ['2025-01-01 00:00:00 GMT', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01 00:00:00Z', '2025-01-01T00:00:00.000Z'],
      // A `+` sent unencoded decodes to a space
      ['2025-01-01T01:00:00 01:00', '2025-01-01T00:00:00.000Z'],
      ['2025-01-01 01:00:00  0100', '2025-01-01T00:00:00.000Z'],
      // Surrounding blanks are ignored
      [' 2025-01-01T00:00:00Z ', '2025-01-01T00:00:00.000Z'],
      // Day and year boundaries
      ['2024-02-29 23:30:00 -0100', '2024-03-01T00:30:00.000Z'],
      ['2025-01-01T00:30:00+01:00', '2024-12-31T23:30:00.000Z'],
      ['0099-06-01T00:00:00Z', '0099-06-01T00:00:00.000Z'],
    ];
    for (const [text, expected] of cases) assert.equal(parseQueryTime(text), expected, JSON.stringify(text));
  });

  it('reads the same shapes in a body, where a space is never a sign and blanks are not trimmed', () => {
    // What the Ruby SDK writes for a Time in a JSON body (Time#to_s), and ISO 8601.
    assert.equal(parseInstant('2025-01-01 00:00:00 UTC'), '2025-01-01T00:00:00.000Z');
    assert.equal(parseInstant('2024-12-31 19:00:00 -0500'), '2025-01-01T00:00:00.000Z');
    assert.equal(parseInstant('2025-01-01 09:00:00 +0900'), '2025-01-01T00:00:00.000Z');
    assert.equal(parseInstant('2025-01-01T01:00:00+01:00'), '2025-01-01T00:00:00.000Z');
    for (const text of ['2025-01-01T01:00:00 01:00', '2025-01-01 01:00:00  0100', ' 2025-01-01T00:00:00Z ', '2025-01-01T00:00:00Z\n']) {
      assert.equal(parseInstant(text), null, JSON.stringify(text));
      assert.notEqual(parseQueryTime(text), null, JSON.stringify(text));
    }
  });

  it('rounds a finer time down for an upper bound and up for a lower bound', () => {
    const cases: [string, Rounding, string][] = [
      ['2025-01-01T00:00:00.1234Z', 'floor', '2025-01-01T00:00:00.123Z'],
      ['2025-01-01T00:00:00.1234Z', 'ceil', '2025-01-01T00:00:00.124Z'],
      ['2025-01-01T00:00:00.123Z', 'ceil', '2025-01-01T00:00:00.123Z'],
      ['2025-01-01T00:00:00.123000Z', 'ceil', '2025-01-01T00:00:00.123Z'],
      ['2025-01-01 23:59:59.9999 UTC', 'ceil', '2025-01-02T00:00:00.000Z'],
      ['2025-01-01 23:59:59.9999 UTC', 'floor', '2025-01-01T23:59:59.999Z'],
    ];
    for (const [text, rounding, expected] of cases) assert.equal(parseQueryTime(text, rounding), expected, `${text} ${rounding}`);
  });

  it('refuses text that names no instant', () => {
    const refused = [
      '',
      'yesterday',
      '1735689600',
      '2025-01-01',
      '2025-01-01T00:00:00',
      '2025-01-01 00:00:00',
      '2025-01-01T00:00:00 EST',
      '2025-01-01T00:00:00+1',
      '2025-01-01T00:00:00+24:00',
      '2025-01-01T00:00:00+01:60',
      '2025-13-01T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2025-04-31T00:00:00Z',
      '2025-01-00T00:00:00Z',
      '2025-01-01T24:00:00Z',
      '2025-01-01T00:60:00Z',
      '2025-01-01T00:00:60Z',
      '2025-01-01T00:00:00.Z',
      '2025-01-01T00:00:00.1234567890Z',
      '25-01-01T00:00:00Z',
      '2025/01/01 00:00:00 UTC',
      '2025-01-01T00:00:00ZZ',
      '0000-01-01T00:30:00+01:00',
    ];
    for (const text of refused) assert.equal(parseQueryTime(text), null, JSON.stringify(text));
  });
});
