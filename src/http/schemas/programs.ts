// Wire shapes of programs, program templates and program messages (reference §5.10), and the bodies of the
// Tycho extension that creates and updates programs and templates.
import { Type, type Static } from 'typebox';
import { PROGRAM_STATUSES, PROGRAM_TRIGGERS, type Program, type ProgramMetrics, type ProgramTemplate } from '../../domain/programs.ts';
import { DELIVERY_EVENTS, type ProgramMessage } from '../../domain/program-messages.ts';
import { CollectionPointer, collectionPointer, EXAMPLE_STAMPS, Timestamp } from './common.ts';

const enumOf = (values: readonly string[], what: string) => Type.Union(values.map((v) => Type.Literal(v)), { errorMessage: `must be one of ${values.join(', ')} (${what})` });
const NullableString = Type.Union([Type.String(), Type.Null()], { errorMessage: 'must be a string or null' });

const MetricsWire = Type.Object({
  sent: Type.Integer(), opened: Type.Integer(), clicked: Type.Integer(), bounced: Type.Integer(),
  complained: Type.Integer(), failed: Type.Integer(), shielded: Type.Integer(), unsubscribed: Type.Integer(),
});

const programProperties = {
  id: Type.String(),
  type: Type.Literal('program'),
  display_name: Type.Optional(Type.String()),
  status: Type.String(),
  trigger: Type.String(),
  track_opens: Type.Boolean(),
  track_clicks: Type.Boolean(),
  scheduled_at: Type.Optional(Timestamp),
  activity_metrics: Type.Optional(MetricsWire),
  created_at: Timestamp,
  updated_at: Timestamp,
};

const templateProperties = {
  id: Type.String(),
  type: Type.Literal('program_template'),
  subject: Type.String(),
  body: Type.Object({ markdown: Type.String() }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

const programExample = { id: '1CLJt2v5hPw4RkZc8Ndgtv', type: 'program', display_name: 'Renewal reminders', status: 'published', trigger: 'api', track_opens: true, track_clicks: false, ...EXAMPLE_STAMPS };
const templateExample = { id: '1CLJt2v5j6Xd9LsVq2Mfhw', type: 'program_template', subject: 'Your plan renews soon', body: { markdown: 'Hello {{ person.name }}, your plan renews on **1 March**.' }, ...EXAMPLE_STAMPS };

export const ProgramTemplateWire = Type.Object(
  { ...templateProperties, program: Type.Optional(Type.Object(programProperties)) },
  { examples: [{ ...templateExample, program: programExample }] },
);
export const ProgramWire = Type.Object(
  { ...programProperties, program_template: Type.Optional(Type.Object(templateProperties)) },
  { examples: [{ ...programExample, program_template: templateExample }] },
);

export const PROGRAM_INCLUDES = ['activity_metrics', 'program_template'] as const;
export const TEMPLATE_INCLUDES = ['program'] as const;

export function renderProgram(program: Program, extras: { metrics?: ProgramMetrics; template?: ProgramTemplate | undefined } = {}): Static<typeof ProgramWire> {
  const out: Static<typeof ProgramWire> = {
    id: program.id,
    type: 'program',
    status: program.status,
    trigger: program.trigger,
    track_opens: program.trackOpens,
    track_clicks: program.trackClicks,
    created_at: program.createdAt,
    updated_at: program.updatedAt,
  };
  if (program.displayName !== null) out.display_name = program.displayName;
  if (program.scheduledAt !== null) out.scheduled_at = program.scheduledAt;
  if (extras.metrics) out.activity_metrics = extras.metrics;
  if (extras.template) out.program_template = renderTemplateOnly(extras.template);
  return out;
}

function renderTemplateOnly(template: ProgramTemplate): Static<typeof ProgramTemplateWire> {
  return {
    id: template.id,
    type: 'program_template',
    subject: template.subject,
    body: { markdown: template.body },
    created_at: template.createdAt,
    updated_at: template.updatedAt,
  };
}

export function renderProgramTemplate(template: ProgramTemplate, program?: Program): Static<typeof ProgramTemplateWire> {
  const out = renderTemplateOnly(template);
  if (program) out.program = renderProgram(program);
  return out;
}

export const ProgramMessageWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('program_message'),
    program_template: ProgramTemplateWire,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { examples: [{ id: '1CLJt2v5jTb3KwYm6Rcfsx', type: 'program_message', program_template: templateExample, ...EXAMPLE_STAMPS }] },
);

export const CreateProgramMessageBody = Type.Object(
  {
    person: Type.Object({ email: Type.String() }),
    program_template_id: Type.String(),
    custom_variables: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { examples: [{ person: { email: 'ada@acme.com' }, program_template_id: '1CLJt2v5j6Xd9LsVq2Mfhw', custom_variables: { renewal_date: '1 March' } }] },
);

export function renderProgramMessage(message: ProgramMessage, template: ProgramTemplate): Static<typeof ProgramMessageWire> {
  return { id: message.id, type: 'program_message', program_template: renderTemplateOnly(template), created_at: message.createdAt, updated_at: message.updatedAt };
}

const programBody = {
  display_name: Type.Optional(NullableString),
  status: Type.Optional(enumOf(PROGRAM_STATUSES, 'the program status')),
  trigger: Type.Optional(enumOf(PROGRAM_TRIGGERS, 'how messages are started')),
  track_opens: Type.Optional(Type.Boolean()),
  track_clicks: Type.Optional(Type.Boolean()),
  scheduled_at: Type.Optional(NullableString),
};

export const CreateProgramBody = Type.Object(programBody, { examples: [{ display_name: 'Renewal reminders', status: 'published', trigger: 'api', track_opens: true }] });
export const UpdateProgramBody = Type.Object(programBody, { examples: [{ status: 'paused' }] });

const Markdown = Type.Object({ markdown: Type.String() });
export const CreateTemplateBody = Type.Object(
  { program_id: Type.String(), subject: Type.String(), body: Markdown },
  { examples: [{ program_id: '1CLJt2v5hPw4RkZc8Ndgtv', subject: 'Your plan renews soon', body: { markdown: 'Hello {{ person.name }}, your plan renews on **1 March**.' } }] },
);
export const UpdateTemplateBody = Type.Object(
  { subject: Type.Optional(Type.String()), body: Type.Optional(Markdown) },
  { examples: [{ subject: 'Your plan renews on 1 March' }] },
);

/** A program message as the extension shows it: where it stands, and what was sent. */
export const DeliveryWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('program_message_delivery'),
    program_message_id: Type.String(),
    program_id: Type.String(),
    program_template_id: Type.String(),
    recipient: Type.Object({ id: Type.String(), type: Type.Literal('item'), collection: CollectionPointer }),
    status: Type.String(),
    reason_code: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
    attempts: Type.Integer(),
    transport: Type.Optional(Type.String()),
    from: Type.Optional(Type.String()),
    to: Type.String(),
    subject: Type.Optional(Type.String()),
    body: Type.Optional(Type.String()),
    sent_at: Type.Optional(Timestamp),
    events: Type.Record(Type.String(), Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5jTb3KwYm6Rcfsx',
        type: 'program_message_delivery',
        program_message_id: '1CLJt2v5jTb3KwYm6Rcfsx',
        program_id: '1CLJt2v5hPw4RkZc8Ndgtv',
        program_template_id: '1CLJt2v5j6Xd9LsVq2Mfhw',
        recipient: { id: '1CLJt2v5NVwRc8nCqWZPnr', type: 'item', collection: { id: '1CLJt2v5Mc4yT9pXs2Rbdk', type: 'collection', ref: 'people' } },
        status: 'sent',
        attempts: 1,
        transport: 'smtp',
        from: 'hello@tycho.example.com',
        to: 'ada@acme.com',
        subject: 'Your plan renews soon',
        body: 'Hello Ada, your plan renews on **1 March**.',
        sent_at: '2025-02-17T16:00:01.000Z',
        events: { opened: '2025-02-17T16:20:00.000Z' },
        ...EXAMPLE_STAMPS,
      },
    ],
  },
);

/** `people`: the collection recipients are items of (`recipientCollection`). */
export function renderDelivery(m: ProgramMessage, people: { id: string; ref: string }): Static<typeof DeliveryWire> {
  const out: Static<typeof DeliveryWire> = {
    id: m.id,
    type: 'program_message_delivery',
    program_message_id: m.id,
    program_id: m.programId,
    program_template_id: m.templateId,
    recipient: { id: m.recipientId, type: 'item', collection: collectionPointer(people) },
    status: m.status,
    attempts: m.attempts,
    to: m.email,
    events: m.events,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
  if (m.reasonCode !== null) out.reason_code = m.reasonCode;
  if (m.error !== null) out.error = m.error;
  if (m.transport !== null) out.transport = m.transport;
  if (m.sender !== null) out.from = m.sender;
  if (m.subject !== null) out.subject = m.subject;
  if (m.body !== null) out.body = m.body;
  if (m.sentAt !== null) out.sent_at = m.sentAt;
  return out;
}

export const DeliveryEventBody = Type.Object({ type: enumOf(DELIVERY_EVENTS, 'the delivery event') }, { examples: [{ type: 'opened' }] });
