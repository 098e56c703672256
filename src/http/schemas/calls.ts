// Wire shapes of calls (reference §5.14) and the create / upsert body (one shape for both).
import { Type, type Static } from 'typebox';
import { CALL_DIRECTIONS, CALL_PROVIDERS, PARTICIPANT_ROLES, type Call, type CallExtras } from '../../domain/calls.ts';
import { CollectionPointer, Timestamp, TranscriptWire } from './common.ts';
import { NoteWire, renderNote } from './notes.ts';

const OneOf = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)), { errorMessage: `must be one of: ${values.join(', ')}` });
const NullableTime = Type.Union([Type.String(), Type.Null()], { errorMessage: 'must be an ISO 8601 date and time with a zone, or null' });

const ItemPointer = Type.Object({ id: Type.String(), type: Type.Literal('item'), collection: CollectionPointer });

const CueInput = Type.Object({
  from: Type.Number({ minimum: 0 }),
  to: Type.Number({ minimum: 0 }),
  text: Type.String(),
  speaker: Type.String({ description: 'E.164 phone of the speaker' }),
});

export const CallBody = Type.Object(
  {
    direction: OneOf(CALL_DIRECTIONS),
    participants: Type.Array(Type.Object({ phone: Type.String({ description: 'E.164' }), role: OneOf(PARTICIPANT_ROLES) })),
    provider: OneOf(CALL_PROVIDERS),
    provider_id: Type.String(),
    provider_status: Type.String(),
    start_at: Type.String(),
    answered_at: Type.Optional(NullableTime),
    end_at: Type.Optional(NullableTime),
    provider_metadata: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { errorMessage: 'must be an object or null' })),
    recordings: Type.Optional(Type.Array(Type.Object({ content_type: Type.String(), provider_id: Type.String(), url: Type.String() }))),
    transcript: Type.Optional(Type.Union([Type.Object({ cues: Type.Array(CueInput) }), Type.Null()], { errorMessage: 'must be {"cues": […]} or null' })),
    tags: Type.Optional(Type.Array(Type.Object({ type: Type.String(), id: Type.String() }))),
  },
  {
    examples: [
      {
        direction: 'incoming',
        participants: [{ phone: '+14155550100', role: 'caller' }, { phone: '+14155550199', role: 'callee' }],
        provider: 'openphone',
        provider_id: 'AC3f9b2e',
        provider_status: 'completed',
        start_at: '2025-02-17T16:00:00Z',
        answered_at: '2025-02-17T16:00:05Z',
        end_at: '2025-02-17T16:07:30Z',
        transcript: { cues: [{ from: 0, to: 3.5, text: 'Hello, this is Ada.', speaker: '+14155550100' }] },
      },
    ],
  },
);

export const CALL_INCLUDES = ['transcript', 'note', 'summary'] as const;

export const CallWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('call'),
    direction: Type.String(),
    participants: Type.Array(
      Type.Object({
        id: Type.String(),
        type: Type.Literal('call_participant'),
        phone: Type.String(),
        role: Type.String(),
        person: Type.Optional(ItemPointer),
        organization: Type.Optional(ItemPointer),
      }),
    ),
    provider: Type.String(),
    provider_id: Type.String(),
    provider_status: Type.String(),
    provider_metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
    start_at: Timestamp,
    answered_at: Type.Optional(Timestamp),
    end_at: Type.Optional(Timestamp),
    tags: Type.Array(Type.Object({ id: Type.String(), type: Type.Literal('tag'), name: Type.String(), color: Type.String() })),
    note: Type.Optional(Type.Union([NoteWire, Type.Null()])),
    summary: Type.Optional(Type.Union([NoteWire, Type.Null()])),
    transcript: Type.Optional(Type.Union([TranscriptWire, Type.Null()])),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5gKs6VnXr4Ecjmp',
        type: 'call',
        direction: 'incoming',
        participants: [
          { id: '1CLJt2v5gYd2QwMt7Hbkrn', type: 'call_participant', phone: '+14155550100', role: 'caller', person: { id: '1CLJt2v5NVwRc8nCqWZPnr', type: 'item', collection: { id: '1CLJt2v5Mc4yT9pXs2Rbdk', type: 'collection', ref: 'people' } } },
          { id: '1CLJt2v5gmTb8ZcLx3Kdqs', type: 'call_participant', phone: '+14155550199', role: 'callee' },
        ],
        provider: 'openphone',
        provider_id: 'AC3f9b2e',
        provider_status: 'completed',
        start_at: '2025-02-17T16:00:00.000Z',
        answered_at: '2025-02-17T16:00:05.000Z',
        end_at: '2025-02-17T16:07:30.000Z',
        tags: [],
        created_at: '2025-02-17T16:00:00.000Z',
        updated_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

/**
 * The call; `include` adds `transcript` (null without one), `note` and `summary` (from `extras`). Without
 * them those keys are absent. A cue's speaker is labelled with its phone and, when a participant has that
 * phone, points at the participant (`attendee_id`).
 */
export function renderCall(call: Call, include: ReadonlySet<string> = new Set(), extras: CallExtras = {}): Static<typeof CallWire> {
  const out: Static<typeof CallWire> = {
    id: call.id,
    type: 'call',
    direction: call.direction,
    participants: call.participants.map((p) => ({
      id: p.id,
      type: 'call_participant',
      phone: p.phone,
      role: p.role,
      ...(p.person ? { person: p.person } : {}),
      ...(p.organization ? { organization: p.organization } : {}),
    })),
    provider: call.provider,
    provider_id: call.providerId,
    provider_status: call.providerStatus,
    start_at: call.startAt,
    tags: call.tags.map((t) => ({ id: t.id, type: 'tag', name: t.name, color: t.color })),
    created_at: call.createdAt,
    updated_at: call.updatedAt,
  };
  if (call.providerMetadata !== null) out.provider_metadata = call.providerMetadata;
  if (call.answeredAt !== null) out.answered_at = call.answeredAt;
  if (call.endAt !== null) out.end_at = call.endAt;
  if (include.has('transcript')) {
    out.transcript =
      call.transcript === null
        ? null
        : {
            cues: call.transcript.cues.map((c) => {
              const participant = call.participants.find((p) => p.phone === c.speaker);
              return { from: c.from, to: c.to, text: c.text, speaker: { ...(participant ? { attendee_id: participant.id } : {}), label: c.speaker } };
            }),
          };
  }
  if (include.has('note')) out.note = extras.note ? renderNote(extras.note) : null;
  if (include.has('summary')) out.summary = extras.summary ? renderNote(extras.summary) : null;
  return out;
}
