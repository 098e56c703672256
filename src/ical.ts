// Reading an iCalendar (.ics) file into meeting inputs, for `tycho meetings import`. Parsing is ical.js's; this
// module only picks each event's properties. One meeting per event UID: a recurring event becomes one meeting
// (its first occurrence), its modified occurrences (RECURRENCE-ID) and cancelled events are skipped.
import ICAL from 'ical.js';
import type { MeetingInput, PersonInput } from './domain/meetings.ts';

export interface CalendarEvents {
  events: MeetingInput[];
  /** Events left out, each with why. */
  skipped: string[];
}

export class CalendarError extends Error {}

const isZone = (zone: string | undefined): zone is string => {
  if (!zone) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

/** How far `zone`'s clocks are ahead of UTC at the instant `utc` (milliseconds since the epoch), in milliseconds. */
function offsetAt(utc: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(utc);
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - (utc - (utc % 1000));
}

/**
 * The UTC instant of an iCalendar time. A time in UTC or in a zone the file defines (VTIMEZONE) converts as
 * ical.js does; a TZID the file does not define but that names an IANA zone (RFC 7809 lets files leave those
 * out) converts with that zone; a floating time or a date is taken as UTC. Never the importing machine's
 * zone, which ical.js falls back to for everything it cannot place.
 */
function instant(time: ICAL.Time, tzid: string | undefined): string {
  if (time.zone !== ICAL.Timezone.localTimezone) return time.toJSDate().toISOString();
  const wall = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  if (!isZone(tzid)) return new Date(wall).toISOString();
  // The offsets a day either side (no zone changes twice in two days); the one in force at the instant it
  // gives is right. Where both are (a wall time that happens twice) or neither is (one a change skips), RFC
  // 5545 §3.3.5 takes the offset before the change: the first occurrence, or the time just after the gap.
  const [before, after] = [offsetAt(wall - DAY, tzid), offsetAt(wall + DAY, tzid)];
  const holding = [before, after].filter((offset) => offsetAt(wall - offset, tzid) === offset);
  return new Date(wall - (holding.length === 1 ? holding[0]! : before)).toISOString();
}

const DAY = 24 * 60 * 60 * 1000;

/** `mailto:Ada@Example.com` → `Ada@Example.com`; anything that is not an address → undefined. */
function address(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const email = value.replace(/^mailto:/i, '').trim();
  return email.includes('@') ? email : undefined;
}

function person(property: ICAL.Property | null): PersonInput | undefined {
  const email = property ? address(property.getFirstValue()) : undefined;
  if (!property || !email) return undefined;
  const name = property.getParameter('cn');
  return { email, ...(typeof name === 'string' && name.trim() !== '' ? { name: name.trim() } : {}) };
}

export function readCalendar(text: string): CalendarEvents {
  let root: ICAL.Component;
  try {
    root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  } catch (error) {
    throw new CalendarError(`not an iCalendar file: ${(error as Error).message}`);
  }
  // Times given in a zone the file defines convert with that definition.
  for (const zone of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  const events: MeetingInput[] = [];
  const skipped: string[] = [];
  for (const [n, component] of root.getAllSubcomponents('vevent').entries()) {
    const event = new ICAL.Event(component);
    const label = `event ${n + 1}${event.uid ? ` (${event.uid})` : ''}`;
    if (!event.uid) {
      skipped.push(`${label}: it has no UID`);
      continue;
    }
    if (event.isRecurrenceException()) {
      skipped.push(`${label}: a modified occurrence of a recurring event (RECURRENCE-ID)`);
      continue;
    }
    if (String(component.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED') {
      skipped.push(`${label}: it is cancelled`);
      continue;
    }
    if (!component.hasProperty('dtstart')) {
      skipped.push(`${label}: it has no DTSTART`);
      continue;
    }
    // ical.js ends an event without DTEND or DURATION as RFC 5545 says: a date a day later, a time at its start.
    const [start, end] = [event.startDate, event.endDate];
    // The TZID the file gave each time, else the zone ical.js resolved (`UTC` for times ending in Z).
    const tzidOf = (name: string) => {
      const tzid = component.getFirstProperty(name)?.getParameter('tzid');
      return typeof tzid === 'string' ? tzid : undefined;
    };
    const given = tzidOf('dtstart') ?? start.zone?.tzid;
    const input: MeetingInput = {
      i_cal_uid: event.uid,
      start_at: instant(start, tzidOf('dtstart')),
      end_at: instant(end, tzidOf('dtend') ?? tzidOf('dtstart')),
      time_zone: isZone(given) ? given : 'UTC',
    };
    // An event is the meeting's whole state: what it leaves out is cleared on a meeting imported before.
    input.title = event.summary || null;
    input.description = event.description || null;
    input.location = event.location || null;
    const url = component.getFirstPropertyValue('url');
    input.provider_uri = typeof url === 'string' && url.trim() !== '' ? url.trim() : null;
    input.organizer = person(component.getFirstProperty('organizer')) ?? null;
    input.attendees = event.attendees.map(person).filter((p): p is PersonInput => p !== undefined);
    events.push(input);
  }
  return { events, skipped };
}
