// Meetings (reference §5.16): calendar events, found by their iCalendar UID. The hosted service fills them from
// calendar sync; Tycho creates and updates them through its extension (`POST /v0/tycho/meetings`, and
// `tycho meetings import FILE.ics`, both upserts by UID). The API adds a recording, a transcript and tags.
// Organizer and attendees are matched to people (by email) and organizations (by the email's domain); the
// matches and the tags are links. `activity/meeting_scheduled` is recorded on creation, `activity/meeting_held`
// once the meeting's end has passed by the server's clock: when a meeting ended when saved, lazily when meetings
// are read (those shown, and a bounded batch of the organization's others), and by the periodic sweep `serve`
// runs (recordMeetingsHeld). A conditional update of `held_at` decides who records it, so it is recorded
// once, whatever the number of readers and processes.
import { checkRecording, cueText, type Cue as GenericCue, type Recording as GenericRecording } from './recordings.ts';
import { invalidAt, orNotFound, propertyAt } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, systemClock, type Clock } from './clock.ts';
import { constituent, recordActivity, type Constituent } from './activity.ts';
import { loadSchema } from './collection-schema.ts';
import { emailAt } from './emails.ts';
import { parseDateTime } from './field-types/dates.ts';
import { checkTagPointers, type Tag } from './tagsets.ts';
import { firstHolders, linkedTags, ORGANIZATION, participantMatches, PERSON, TAG, tagTarget } from './participants.ts';
import { recordLock } from './locks.ts';
import type { ItemAssociation } from './associations.ts';
import { newestNoteOn, type Note } from './notes.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';
import { longerThan } from './characters.ts';

export interface Participant {
  id: string;
  role: 'organizer' | 'attendee';
  email: string;
  name: string | null;
}

export type Recording = GenericRecording<'video/mp4'>;

/** A transcript cue of a meeting: its speaker is the name the transcript's provider gave, if any. */
export type Cue = GenericCue<string | null>;

export interface Transcript {
  provider: string;
  providerId: string;
  cues: Cue[];
}

export interface Meeting {
  id: string;
  orgId: string;
  iCalUid: string;
  providerId: string;
  title: string | null;
  description: string | null;
  location: string | null;
  startAt: string;
  endAt: string;
  timeZone: string;
  providerUri: string | null;
  /** The organizer first (when there is one), then the attendees, in the order given. */
  participants: Participant[];
  recording: Recording | null;
  transcript: Transcript | null;
  /** When `activity/meeting_held` was recorded; null until then. */
  heldAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A participant with what their email matched. */
export interface MatchedParticipant extends Participant {
  person?: ItemAssociation;
  organization?: ItemAssociation;
}

/** A meeting as the API shows it: with its tags and matched participants, and the newest note when asked. */
export interface MeetingView extends Meeting {
  tags: Tag[];
  matched: MatchedParticipant[];
  note?: Note | null;
}

export interface PersonInput {
  email: string;
  name?: string | null;
}

export interface MeetingInput {
  i_cal_uid: string;
  provider_id?: string;
  title?: string | null;
  description?: string | null;
  location?: string | null;
  start_at: string;
  end_at: string;
  time_zone?: string;
  provider_uri?: string | null;
  organizer?: PersonInput | null;
  attendees?: PersonInput[];
  tags?: { id: string; type?: string }[];
}

export interface MeetingPatch {
  recording?: { content_type: string; provider_id: string; url: string };
  transcript?: { provider: string; provider_id: string; cues: { from: number; to: number; text: string; speaker?: string | null }[] };
  tags?: { id: string; type?: string }[];
}

/** The entity type of a meeting's participants in links (their roles are in participants.ts). */
const PARTICIPANT = 'meeting_attendee';

const TEXT_MAX = 65_536;

/** Each attendee is matched with two index lookups; a bound keeps one save cheap. */
const MAX_ATTENDEES = 1000;

function text(value: string | null | undefined, pointer: string, max = TEXT_MAX): string | null {
  if (value === undefined || value === null) return null;
  const trimmed = value.trim();
  if (longerThan(trimmed, max)) throw invalidAt(pointer, `${propertyAt(pointer)} must be at most ${max} characters`);
  return trimmed === '' ? null : trimmed;
}

/** A property of an update: what was sent (`parse`d), or, when it was not sent, what is stored (null on a creation). */
function sentOr(sent: unknown, stored: string | null | undefined, parse: () => string | null): string | null {
  return sent === undefined ? (stored ?? null) : parse();
}

function required(value: string, pointer: string, what: string, max = 1024): string {
  const trimmed = value.trim();
  if (trimmed === '') throw invalidAt(pointer, `${what} must not be blank`);
  if (longerThan(trimmed, max)) throw invalidAt(pointer, `${what} must be at most ${max} characters`);
  return trimmed;
}

function instant(value: string, pointer: string): string {
  const parsed = parseDateTime(value);
  if (parsed === null) throw invalidAt(pointer, `${propertyAt(pointer)} must be an ISO 8601 date and time with a zone (e.g. "2025-02-17T16:00:00Z"), got ${JSON.stringify(value)}`);
  return parsed;
}

export function checkTimeZone(zone: string, pointer = '/time_zone'): string {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw invalidAt(pointer, `${propertyAt(pointer)} must be an IANA time zone such as "Europe/Berlin" or "UTC", got ${JSON.stringify(zone)}`);
  }
}

/** The participants of `input`, keeping the ids of those `current` already has (same role and email). */
function participantsOf(input: MeetingInput, current: Participant[]): Participant[] {
  if ((input.attendees?.length ?? 0) > MAX_ATTENDEES) throw invalidAt('/attendees', `a meeting has at most ${MAX_ATTENDEES} attendees`);
  const wanted: Omit<Participant, 'id'>[] = [];
  // An organizer or attendee list not sent stays as it was; `null` (organizer) and `[]` clear.
  const kept = (role: Participant['role']) => current.filter((c) => c.role === role).map(({ role, email, name }) => ({ role, email, name }));
  if (input.organizer === undefined) wanted.push(...kept('organizer'));
  else if (input.organizer) wanted.push({ role: 'organizer', email: emailAt(input.organizer.email, '/organizer/email'), name: text(input.organizer.name, '/organizer/name', 1024) });
  if (input.attendees === undefined) wanted.push(...kept('attendee'));
  for (const [i, a] of (input.attendees ?? []).entries()) {
    const address = emailAt(a.email, `/attendees/${i}/email`);
    if (wanted.some((w) => w.role === 'attendee' && w.email.toLowerCase() === address.toLowerCase())) continue;
    wanted.push({ role: 'attendee', email: address, name: text(a.name, `/attendees/${i}/name`, 1024) });
  }
  const unused = [...current];
  return wanted.map((w) => {
    const at = unused.findIndex((c) => c.role === w.role && c.email.toLowerCase() === w.email.toLowerCase());
    const id = at >= 0 ? unused.splice(at, 1)[0]!.id : newId();
    return { id, ...w };
  });
}

/** Links each participant to the person holding their email and the organization holding its domain. */
async function linkMatches(store: Store, orgId: string, participants: Participant[], previous: Participant[]): Promise<void> {
  for (const p of previous) if (!participants.some((q) => q.id === p.id)) await store.links.deleteEntity(orgId, PARTICIPANT, p.id);
  const people = await loadSchema(store, orgId, 'people');
  const organizations = await loadSchema(store, orgId, 'organizations');
  const emailField = people.byRef.get('email');
  const domainField = organizations.byRef.get('domain');
  const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);
  const personOf = await firstHolders(store, orgId, emailField, participants.map((p) => p.email));
  const organizationOf = await firstHolders(store, orgId, domainField, participants.map((p) => domainOf(p.email)));
  const matches = new Map(participants.map((p) => [p.id, { person: personOf(p.email), organization: organizationOf(domainOf(p.email)) }]));
  // Held shared until the write commits: a matched item cannot be deleted (dropping its links) in between.
  const ids = [...new Set([...matches.values()].flatMap((m) => [m.person, m.organization].filter((id): id is string => id !== undefined)))];
  const live = new Set((await store.items.findMany(orgId, ids, 'shared')).map((i) => i.id));
  for (const p of participants) {
    const m = matches.get(p.id)!;
    await store.links.replace(orgId, PARTICIPANT, p.id, PERSON, m.person && live.has(m.person) ? [{ type: 'item', id: m.person }] : []);
    await store.links.replace(orgId, PARTICIPANT, p.id, ORGANIZATION, m.organization && live.has(m.organization) ? [{ type: 'item', id: m.organization }] : []);
  }
}

/** The person items among the participants' matches: the actors of the meeting's activities. */
async function participantItems(store: Store, orgId: string, meeting: Meeting): Promise<Constituent[]> {
  const [view] = await withDetails(store, orgId, [meeting]);
  const seen = new Set<string>();
  const actors: Constituent[] = [];
  for (const p of view!.matched) {
    if (p.person && !seen.has(p.person.id)) {
      seen.add(p.person.id);
      actors.push(constituent('actor', { ...p.person }));
    }
  }
  return actors;
}

export interface SavedMeeting {
  meeting: MeetingView;
  created: boolean;
}

/**
 * Creates the meeting with this `i_cal_uid`, or updates the one that has it: every property the input gives
 * replaces the stored one (`null` clears it), a property it leaves out stays as it was. A creation records
 * `activity/meeting_scheduled`.
 */
export async function saveMeeting(store: Store, orgId: string, input: MeetingInput, clock: Clock = systemClock): Promise<SavedMeeting> {
  const uid = required(input.i_cal_uid, '/i_cal_uid', 'i_cal_uid');
  const startAt = instant(input.start_at, '/start_at');
  const endAt = instant(input.end_at, '/end_at');
  if (endAt < startAt) throw invalidAt('/end_at', 'end_at must not be before start_at');
  const timeZone = input.time_zone === undefined ? undefined : checkTimeZone(input.time_zone);
  const saved = await store.transaction(async (tx) => {
    // Racing saves of one UID wait for each other; the unique index is the last word.
    await tx.lock([recordLock('meeting_uid', `${orgId}:${uid}`)]);
    const found = await tx.meetings.findBy(orgId, { iCalUid: uid });
    if (found) await tx.lock([recordLock('meeting', found.id)]);
    const current = found ? await tx.meetings.find(orgId, found.id) : undefined;
    const now = timestamp(clock);
    const participants = participantsOf(input, current?.participants ?? []);
    const meeting: Meeting = {
      id: current?.id ?? newId(),
      orgId,
      iCalUid: uid,
      providerId: input.provider_id !== undefined ? required(input.provider_id, '/provider_id', 'provider_id') : (current?.providerId ?? uid),
      title: sentOr(input.title, current?.title, () => text(input.title, '/title', 1024)),
      description: sentOr(input.description, current?.description, () => text(input.description, '/description')),
      location: sentOr(input.location, current?.location, () => text(input.location, '/location', 1024)),
      startAt,
      endAt,
      timeZone: timeZone ?? current?.timeZone ?? 'UTC',
      providerUri: sentOr(input.provider_uri, current?.providerUri, () => text(input.provider_uri, '/provider_uri', 8192)),
      participants,
      recording: current?.recording ?? null,
      transcript: current?.transcript ?? null,
      heldAt: current?.heldAt ?? null,
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    if (current) await tx.meetings.update(meeting);
    else await tx.meetings.insert(meeting);
    await linkMatches(tx, orgId, participants, current?.participants ?? []);
    if (input.tags !== undefined) await tx.links.replace(orgId, 'meeting', meeting.id, TAG, (await checkTagPointers(tx, orgId, 'meetings', input.tags)).map(tagTarget));
    if (!current) {
      await recordActivity(tx, orgId, 'activity/meeting_scheduled', now, [
        ...(await participantItems(tx, orgId, meeting)),
        constituent('object', { id: meeting.id, type: 'meeting' }),
      ]);
    }
    const [view] = await withDetails(tx, orgId, [meeting]);
    return { meeting: view!, created: !current };
  });
  // A meeting saved with its end already past is held, too.
  if (await recordHeld(store, saved.meeting, timestamp(clock))) saved.meeting.heldAt = timestamp(clock);
  return saved;
}

/** How many ended meetings one read records `meeting_held` for, besides those it shows; the sweep does the rest. */
const HELD_BATCH = 100;

/** Records `meeting_held` for `meeting` if its end has passed and nobody has; true when this call recorded it. */
async function recordHeld(store: Store, meeting: Meeting, now: string): Promise<boolean> {
  if (meeting.heldAt !== null || meeting.endAt > now) return false;
  return store.transaction(async (tx) => {
    // Claimed by a conditional update in the transaction that records it: one caller wins, in any process.
    if (!(await tx.meetings.claimHeld(meeting.orgId, meeting.id, now))) return false;
    const current = (await tx.meetings.find(meeting.orgId, meeting.id)) ?? meeting;
    await recordActivity(tx, meeting.orgId, 'activity/meeting_held', current.endAt, [
      ...(await participantItems(tx, meeting.orgId, current)),
      constituent('object', { id: meeting.id, type: 'meeting' }),
    ]);
    return true;
  });
}

/**
 * Records `activity/meeting_held` (at the meeting's end) for every meeting whose end has passed by `clock`
 * and that has none yet — of one organization, or of all of them — a batch at a time, at most `limit`. Each
 * is claimed by a conditional update of `held_at` in the transaction that records the activity, so
 * concurrent callers, in this process or another, record it once. Returns how many it recorded.
 */
export async function recordMeetingsHeld(store: Store, clock: Clock = systemClock, orgId?: string, limit = Infinity): Promise<number> {
  const now = timestamp(clock);
  let recorded = 0;
  let seen = 0;
  while (seen < limit) {
    const due = await store.meetings.dueHeld(now, Math.min(HELD_BATCH, limit - seen), orgId);
    seen += due.length;
    for (const meeting of due) if (await recordHeld(store, meeting, now)) recorded++;
    if (due.length < HELD_BATCH) break;
  }
  return recorded;
}

/**
 * What a read does first: `meeting_held` for the meetings it is about to show and for one batch of the
 * organization's other ended meetings (so a read costs a bounded amount; the sweep in `serve` does the rest).
 */
async function recordHeldOnRead(store: Store, orgId: string, shown: Meeting[], clock?: Clock): Promise<void> {
  const now = timestamp(clock);
  for (const meeting of shown) {
    if (await recordHeld(store, meeting, now)) meeting.heldAt = now;
  }
  await recordMeetingsHeld(store, clock, orgId, HELD_BATCH);
}

export async function getMeeting(store: Store, orgId: string, id: string, options: { note?: boolean } = {}, clock?: Clock): Promise<MeetingView> {
  const meeting = await orNotFound(store.meetings.find(orgId, id));
  await recordHeldOnRead(store, orgId, [meeting], clock);
  const [view] = await withDetails(store, orgId, [meeting]);
  if (options.note) view!.note = await newestNoteOn(store, orgId, { type: 'meeting', id });
  return view!;
}

export async function listMeetings(store: Store, orgId: string, where: { iCalUids?: string[] }, page: PageRequest, clock?: Clock): Promise<Page<MeetingView>> {
  const found = await store.meetings.list(orgId, page, where.iCalUids !== undefined ? { iCalUid: where.iCalUids } : {});
  await recordHeldOnRead(store, orgId, found.rows, clock);
  return { ...found, rows: await withDetails(store, orgId, found.rows) };
}

/** Adds a recording (only `video/mp4`), a transcript, and/or replaces the tags. */
export async function updateMeeting(store: Store, orgId: string, id: string, patch: MeetingPatch, clock: Clock = systemClock): Promise<MeetingView> {
  const recording = patch.recording ? checkRecording(patch.recording, '/recording', 'video/mp4') : undefined;
  const view = await store.transaction(async (tx) => {
    await tx.lock([recordLock('meeting', id)]);
    const current = await orNotFound(tx.meetings.find(orgId, id));
    const next: Meeting = { ...current, updatedAt: timestamp(clock) };
    if (recording) next.recording = recording;
    if (patch.transcript) {
      const t = patch.transcript;
      next.transcript = {
        provider: required(t.provider, '/transcript/provider', 'provider'),
        providerId: required(t.provider_id, '/transcript/provider_id', 'provider_id'),
        cues: t.cues.map((cue, i) => {
          if (!(cue.from >= 0)) throw invalidAt(`/transcript/cues/${i}/from`, 'a cue starts at `from` seconds from the start of the meeting, 0 or more');
          if (!(cue.to >= cue.from)) throw invalidAt(`/transcript/cues/${i}/to`, 'a cue runs from `from` to `to` seconds, with from ≤ to');
          return { from: cue.from, to: cue.to, text: cueText(cue.text, `/transcript/cues/${i}/text`), speaker: text(cue.speaker, `/transcript/cues/${i}/speaker`, 1024) };
        }),
      };
    }
    await tx.meetings.update(next);
    if (patch.tags !== undefined) await tx.links.replace(orgId, 'meeting', id, TAG, (await checkTagPointers(tx, orgId, 'meetings', patch.tags)).map(tagTarget));
    const [out] = await withDetails(tx, orgId, [next]);
    return out!;
  });
  await recordHeldOnRead(store, orgId, [view], clock);
  return view;
}

/** The meetings of the organization among `ids` (unknown ids are absent). */
export async function meetingsByIds(store: Store, orgId: string, ids: string[]): Promise<Meeting[]> {
  return store.meetings.findMany(orgId, [...new Set(ids)]);
}

/** The meetings with their tags and matched participants: a fixed number of queries for a whole page. */
async function withDetails(store: Store, orgId: string, meetings: Meeting[]): Promise<MeetingView[]> {
  const matches = await participantMatches(store, orgId, PARTICIPANT, meetings.flatMap((m) => m.participants.map((p) => p.id)));
  const tags = await linkedTags(store, orgId, 'meeting', meetings.map((m) => m.id));
  return meetings.map((m) => ({ ...m, tags: tags.get(m.id) ?? [], matched: m.participants.map((p): MatchedParticipant => ({ ...p, ...matches(p.id) })) }));
}

export function durationSeconds(m: Meeting): number {
  return Math.round((Date.parse(m.endAt) - Date.parse(m.startAt)) / 1000);
}

