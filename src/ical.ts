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
    const start = event.startDate;
    const end = component.hasProperty('dtend') || component.hasProperty('duration') ? event.endDate : start;
    // The TZID the file gave DTSTART, else the zone ical.js resolved (`UTC` for times ending in Z).
    const tzid = component.getFirstProperty('dtstart')?.getParameter('tzid');
    const given = typeof tzid === 'string' ? tzid : start.zone?.tzid;
    const input: MeetingInput = {
      i_cal_uid: event.uid,
      start_at: start.toJSDate().toISOString(),
      end_at: end.toJSDate().toISOString(),
      time_zone: isZone(given) ? given : 'UTC',
    };
    if (event.summary) input.title = event.summary;
    if (event.description) input.description = event.description;
    if (event.location) input.location = event.location;
    const url = component.getFirstPropertyValue('url');
    if (typeof url === 'string' && url.trim() !== '') input.provider_uri = url.trim();
    const organizer = person(component.getFirstProperty('organizer'));
    if (organizer) input.organizer = organizer;
    input.attendees = event.attendees.map(person).filter((p): p is PersonInput => p !== undefined);
    events.push(input);
  }
  return { events, skipped };
}
