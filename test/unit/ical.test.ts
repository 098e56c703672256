// readCalendar's times: never read in the importing machine's zone. This file runs in a zone of its own
// (America/Los_Angeles, set before any time is read) so that a time read as local would come out shifted.
process.env.TZ = 'America/Los_Angeles';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readCalendar } from '../../src/ical.ts';

const calendar = (...event: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Tycho tests//EN', 'BEGIN:VEVENT', 'UID:e1@calendar.test', 'DTSTAMP:20250101T000000Z', ...event, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

const times = (...event: string[]) => {
  const { events, skipped } = readCalendar(calendar(...event));
  assert.deepEqual(skipped, []);
  assert.equal(events.length, 1);
  const { start_at, end_at, time_zone } = events[0]!;
  return { start_at, end_at, time_zone };
};

describe('readCalendar: event times', () => {
  it('a TZID the file defines no VTIMEZONE for converts with the IANA zone it names, in winter and in summer', () => {
    assert.deepEqual(times('DTSTART;TZID=America/New_York:20250217T100000', 'DTEND;TZID=America/New_York:20250217T110000'), {
      start_at: '2025-02-17T15:00:00.000Z',
      end_at: '2025-02-17T16:00:00.000Z',
      time_zone: 'America/New_York',
    });
    assert.deepEqual(times('DTSTART;TZID="Europe/Berlin":20250717T100000', 'DURATION:PT30M'), {
      start_at: '2025-07-17T08:00:00.000Z',
      end_at: '2025-07-17T08:30:00.000Z',
      time_zone: 'Europe/Berlin',
    });
  });

  it('DTEND in another zone than DTSTART converts with its own', () => {
    const t = times('DTSTART;TZID=Europe/London:20250310T090000', 'DTEND;TZID=Asia/Tokyo:20250310T190000');
    assert.deepEqual([t.start_at, t.end_at], ['2025-03-10T09:00:00.000Z', '2025-03-10T10:00:00.000Z']);
  });

  it('a wall time skipped by a DST change lands after it; one that happens twice takes the first', () => {
    // 02:30 on 2025-03-09 does not exist in New York (02:00 EST → 03:00 EDT).
    assert.equal(times('DTSTART;TZID=America/New_York:20250309T023000').start_at, '2025-03-09T07:30:00.000Z');
    // 01:30 on 2025-11-02 happens twice (EDT, then EST).
    assert.equal(times('DTSTART;TZID=America/New_York:20251102T013000').start_at, '2025-11-02T05:30:00.000Z');
  });

  it('a floating time is read as UTC', () => {
    assert.deepEqual(times('DTSTART:20250218T100000', 'DTEND:20250218T103000'), {
      start_at: '2025-02-18T10:00:00.000Z',
      end_at: '2025-02-18T10:30:00.000Z',
      time_zone: 'UTC',
    });
  });

  it('an all-day event starts at midnight UTC and, without DTEND or DURATION, lasts one day (RFC 5545 §3.6.1)', () => {
    assert.deepEqual(times('DTSTART;VALUE=DATE:20250310'), { start_at: '2025-03-10T00:00:00.000Z', end_at: '2025-03-11T00:00:00.000Z', time_zone: 'UTC' });
    assert.equal(times('DTSTART;VALUE=DATE:20250310', 'DTEND;VALUE=DATE:20250313').end_at, '2025-03-13T00:00:00.000Z');
  });

  it('a time without DTEND or DURATION ends when it starts; UTC times are as given', () => {
    assert.deepEqual(times('DTSTART:20250218T100000Z'), { start_at: '2025-02-18T10:00:00.000Z', end_at: '2025-02-18T10:00:00.000Z', time_zone: 'UTC' });
  });

  it('an unknown TZID without a VTIMEZONE is read as UTC, and the zone given as UTC', () => {
    assert.deepEqual(times('DTSTART;TZID=Mars/Olympus:20250218T100000'), { start_at: '2025-02-18T10:00:00.000Z', end_at: '2025-02-18T10:00:00.000Z', time_zone: 'UTC' });
  });
});
