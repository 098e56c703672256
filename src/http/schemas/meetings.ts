// Wire shapes of meetings, organizers and attendees (reference §5.16), the PATCH body, and the body of Tycho's
// create-or-update extension (`POST /v0/tycho/meetings`).
import { Type, type Static } from 'typebox';
import { durationSeconds, type MatchedParticipant, type MeetingView } from '../../domain/meetings.ts';
import { CollectionPointer, Timestamp, TranscriptWire } from './common.ts';
import { NoteWire, renderNote } from './notes.ts';

const ItemPointer = Type.Object({ id: Type.String(), type: Type.Literal('item'), collection: CollectionPointer });
const NullableString = Type.Union([Type.String(), Type.Null()], { errorMessage: 'must be a string or null' });
const Person = Type.Object({ email: Type.String(), name: Type.Optional(NullableString) });
const TagPointer = Type.Object({ id: Type.String(), type: Type.Optional(Type.String()) });

export const SaveMeetingBody = Type.Object(
  {
    i_cal_uid: Type.String(),
    provider_id: Type.Optional(Type.String()),
    title: Type.Optional(NullableString),
    description: Type.Optional(NullableString),
    location: Type.Optional(NullableString),
    start_at: Type.String({ description: 'ISO 8601 date and time with a zone' }),
    end_at: Type.String({ description: 'ISO 8601 date and time with a zone' }),
    time_zone: Type.Optional(Type.String({ description: 'IANA time zone (default UTC)' })),
    provider_uri: Type.Optional(NullableString),
    organizer: Type.Optional(Type.Union([Person, Type.Null()], { errorMessage: 'must be {"email": …, "name": …} or null' })),
    attendees: Type.Optional(Type.Array(Person)),
    tags: Type.Optional(Type.Array(TagPointer)),
  },
  {
    examples: [
      {
        i_cal_uid: '7kqmv2c1tq@google.com',
        title: 'Renewal call',
        start_at: '2025-02-17T16:00:00+01:00',
        end_at: '2025-02-17T16:30:00+01:00',
        time_zone: 'Europe/Berlin',
        organizer: { email: 'sam@tycho.example.com', name: 'Sam' },
        attendees: [{ email: 'ada@acme.com', name: 'Ada Lovelace' }],
      },
    ],
  },
);

export const UpdateMeetingBody = Type.Object(
  {
    recording: Type.Optional(Type.Object({ content_type: Type.String(), provider_id: Type.String(), url: Type.String() })),
    transcript: Type.Optional(
      Type.Object({
        provider: Type.String(),
        provider_id: Type.String(),
        cues: Type.Array(Type.Object({ from: Type.Number(), to: Type.Number(), text: Type.String(), speaker: Type.Optional(NullableString) })),
      }),
    ),
    tags: Type.Optional(Type.Array(TagPointer)),
  },
  {
    examples: [
      {
        recording: { content_type: 'video/mp4', provider_id: 'rec_8812', url: 'https://recordings.example.com/rec_8812.mp4' },
        transcript: { provider: 'zoom', provider_id: 'tr_8812', cues: [{ from: 0, to: 4.2, text: 'Thanks for joining.', speaker: 'Sam' }] },
      },
    ],
  },
);

const participantProperties = {
  id: Type.String(),
  email: Type.String(),
  person: Type.Optional(ItemPointer),
  organization: Type.Optional(ItemPointer),
};
const OrganizerWire = Type.Object({ ...participantProperties, type: Type.Literal('meeting_organizer') });
const AttendeeWire = Type.Object({ ...participantProperties, type: Type.Literal('meeting_attendee') });

export const MeetingWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('meeting'),
    i_cal_uid: Type.String(),
    provider_id: Type.String(),
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    location: Type.Optional(Type.String()),
    start_at: Timestamp,
    end_at: Timestamp,
    duration: Type.Integer({ description: 'seconds' }),
    time_zone: Type.String(),
    provider_uri: Type.Optional(Type.String()),
    recording_url: Type.Optional(Type.String()),
    tags: Type.Array(Type.Object({ id: Type.String(), type: Type.Literal('tag'), name: Type.String(), color: Type.String() })),
    organizer: Type.Optional(OrganizerWire),
    attendees: Type.Optional(Type.Array(AttendeeWire)),
    note: Type.Optional(Type.Union([NoteWire, Type.Null()])),
    summary: Type.Optional(Type.Null()),
    transcript: Type.Optional(Type.Union([TranscriptWire, Type.Null()])),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5eJr3TmWq9Kbfxs',
        type: 'meeting',
        i_cal_uid: '7kqmv2c1tq@google.com',
        provider_id: '7kqmv2c1tq@google.com',
        title: 'Renewal call',
        start_at: '2025-02-17T15:00:00.000Z',
        end_at: '2025-02-17T15:30:00.000Z',
        duration: 1800,
        time_zone: 'Europe/Berlin',
        tags: [],
        attendees: [{ id: '1CLJt2v5f3Nc8YxPd2Lgwt', type: 'meeting_attendee', email: 'ada@acme.com', person: { id: '1CLJt2v5NVwRc8nCqWZPnr', type: 'item', collection: { id: '1CLJt2v5Mc4yT9pXs2Rbdk', type: 'collection', ref: 'people' } } }],
        created_at: '2025-02-17T16:00:00.000Z',
        updated_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

export const MEETING_INCLUDES = ['organizer', 'attendees', 'transcript', 'note', 'summary'] as const;

function participant<T extends 'meeting_organizer' | 'meeting_attendee'>(p: MatchedParticipant, type: T) {
  return {
    id: p.id,
    type,
    email: p.email,
    ...(p.person ? { person: p.person } : {}),
    ...(p.organization ? { organization: p.organization } : {}),
  };
}

export function renderMeeting(m: MeetingView, include: ReadonlySet<string> = new Set()): Static<typeof MeetingWire> {
  const out: Static<typeof MeetingWire> = {
    id: m.id,
    type: 'meeting',
    i_cal_uid: m.iCalUid,
    provider_id: m.providerId,
    start_at: m.startAt,
    end_at: m.endAt,
    duration: durationSeconds(m),
    time_zone: m.timeZone,
    tags: m.tags.map((t) => ({ id: t.id, type: 'tag' as const, name: t.name, color: t.color })),
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
  if (m.title !== null) out.title = m.title;
  if (m.description !== null) out.description = m.description;
  if (m.location !== null) out.location = m.location;
  if (m.providerUri !== null) out.provider_uri = m.providerUri;
  if (m.recording) out.recording_url = m.recording.url;
  if (include.has('organizer')) {
    const organizer = m.matched.find((p) => p.role === 'organizer');
    if (organizer) out.organizer = participant(organizer, 'meeting_organizer');
  }
  if (include.has('attendees')) out.attendees = m.matched.filter((p) => p.role === 'attendee').map((p) => participant(p, 'meeting_attendee'));
  if (include.has('note')) out.note = m.note ? renderNote(m.note) : null;
  // Tycho writes no summaries: asked for, it is null.
  if (include.has('summary')) out.summary = null;
  if (include.has('transcript')) {
    out.transcript = m.transcript && {
      cues: m.transcript.cues.map((cue) => {
        const attendee = cue.speaker === null ? undefined : m.matched.find((p) => p.name !== null && p.name.toLowerCase() === cue.speaker!.toLowerCase());
        return {
          from: cue.from,
          to: cue.to,
          text: cue.text,
          speaker: { ...(attendee ? { attendee_id: attendee.id } : {}), ...(cue.speaker !== null ? { label: cue.speaker } : {}) },
        };
      }),
    };
  }
  return out;
}
