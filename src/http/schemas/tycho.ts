// Wire shapes of the stand-in toolkit (Tycho extensions): sandboxes, snapshots, the organization clock and the
// request journal.
import { Type, type Static, type TSchema } from 'typebox';
import type { Sandbox } from '../../domain/sandboxes.ts';
import type { Organization } from '../../domain/organizations.ts';
import type { Snapshot } from '../../domain/snapshots.ts';
import type { ClockState } from '../../domain/org-clock.ts';
import type { JournalEntry } from '../../domain/ports/toolkit-store.ts';
import { ErrorEnvelope, listExamples, Timestamp } from './common.ts';

export const TOOLKIT_TAGS = ['Tycho extensions'];

/** The documentation every toolkit route carries, with the errors it can answer. */
export function toolkitSchema<S extends Record<string, unknown>>(summary: string, description: string, errors: number[], schema: S) {
  const response = { ...((schema as { response?: Record<number, TSchema> }).response ?? {}) };
  for (const status of [401, 403, ...errors]) response[status] = ErrorEnvelope;
  return { summary, description, tags: TOOLKIT_TAGS, ...schema, response };
}

const Name = Type.String({ minLength: 1, maxLength: 100 });

export const CreateSandboxBody = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'the organization name (default: sandbox-<id>); must be unused' })),
    snapshot: Type.Optional(Type.String({ description: 'a snapshot to clone; without it the sandbox starts empty' })),
    organization_id: Type.Optional(Type.String({ description: "the snapshot's organization: the admin key's own (the default) or one of its sandboxes" })),
  },
  { examples: [{ name: 'checkout-tests', snapshot: 'seeded' }] },
);

export const SandboxWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('tycho_sandbox'),
    name: Type.String(),
    snapshot: Type.Union([Type.String(), Type.Null()]),
    api_key: Type.Optional(Type.String({ description: 'read-write key of the sandbox; only in the answer to its creation' })),
    created_at: Timestamp,
  },
  { examples: [{ id: '1CLJt2v5mRc8HwXp4Tbkfz', type: 'tycho_sandbox', name: 'checkout-tests', snapshot: 'seeded', api_key: 'tycho_3kTq9vXb2NcR7mWd5YhL8pZs4GfJ6aQe', created_at: '2025-02-17T16:00:00.000Z' }] },
);

export function renderSandbox(sandbox: Sandbox): Static<typeof SandboxWire> {
  return { ...renderSandboxOrg(sandbox.organization), ...(sandbox.apiKey ? { api_key: sandbox.apiKey } : {}) };
}

export function renderSandboxOrg(org: Organization): Static<typeof SandboxWire> {
  return { id: org.id, type: 'tycho_sandbox', name: org.name, snapshot: org.snapshotName ?? null, created_at: org.createdAt };
}

export const SnapshotBody = Type.Object(
  { name: Name },
  { examples: [{ name: 'seeded' }] },
);

export const SnapshotWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('tycho_snapshot'),
    name: Type.String(),
    organization_id: Type.String(),
    rows: Type.Integer({ description: 'rows saved, over every table' }),
    created_at: Timestamp,
  },
  { examples: [{ id: '1CLJt2v5n8Wd3KsYq7Rcgt', type: 'tycho_snapshot', name: 'seeded', organization_id: '1CLJt2v5K2gT7vQa5Xe3Lm', rows: 1284, created_at: '2025-02-17T16:00:00.000Z' }] },
);

export function renderSnapshot(s: Snapshot): Static<typeof SnapshotWire> {
  return { id: s.id, type: 'tycho_snapshot', name: s.name, organization_id: s.orgId, rows: s.rows, created_at: s.createdAt };
}

/** A plain list: an organization has few sandboxes' worth of snapshots, and sandboxes are listed by admins. */
export const PlainList = <T extends TSchema>(item: T) => Type.Object({ type: Type.Literal('list'), data: Type.Array(item) }, listExamples(item));

export const ClockWire = Type.Object(
  {
    type: Type.Literal('tycho_clock'),
    now: Timestamp,
    frozen: Type.Boolean(),
    controlled: Type.Boolean({ description: 'false: the organization follows the system clock' }),
    offset_ms: Type.Number({ description: 'milliseconds ahead of the system clock (behind when negative)' }),
  },
  { examples: [{ type: 'tycho_clock', now: '2030-01-01T09:00:00.000Z', frozen: true, controlled: true, offset_ms: 153705600000 }] },
);

export function renderClock(c: ClockState): Static<typeof ClockWire> {
  return { type: 'tycho_clock', now: c.now, frozen: c.frozen, controlled: c.controlled, offset_ms: c.offsetMs };
}

export const FreezeBody = Type.Object(
  { at: Type.Optional(Type.String({ description: 'the instant to freeze at (default: now on this clock)' })) },
  { examples: [{ at: '2030-01-01T09:00:00.000Z' }] },
);
export const SetBody = Type.Object(
  {
    to: Type.String({ description: 'ISO 8601 date-time' }),
    frozen: Type.Optional(Type.Boolean({ description: 'freeze at `to` (default: keep the clock frozen or running as it is)' })),
  },
  { examples: [{ to: '2030-01-01T09:00:00.000Z', frozen: true }] },
);
const Amount = Type.Integer({ minimum: 0 });
export const AdvanceBody = Type.Object(
  {
    milliseconds: Type.Optional(Amount),
    seconds: Type.Optional(Amount),
    minutes: Type.Optional(Amount),
    hours: Type.Optional(Amount),
    days: Type.Optional(Amount),
  },
  { examples: [{ days: 30, hours: 2 }] },
);

export function advanceMilliseconds(body: Static<typeof AdvanceBody>): number {
  return (body.milliseconds ?? 0) + 1000 * ((body.seconds ?? 0) + 60 * ((body.minutes ?? 0) + 60 * ((body.hours ?? 0) + 24 * (body.days ?? 0))));
}

/** As timestamps are stored (UTC, Z), so they compare as text. */
const DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?Z$';

export const JournalQueryString = Type.Object({
  path: Type.Optional(Type.String({ description: 'exact path, such as /v0/notes' })),
  path_prefix: Type.Optional(Type.String({ description: 'paths starting with this' })),
  method: Type.Optional(Type.Union(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => Type.Literal(m)), { errorMessage: 'must be GET, HEAD, POST, PUT, PATCH or DELETE' })),
  status: Type.Optional(Type.String({ pattern: '^[1-5](\\d\\d|xx)$', errorMessage: 'must be a status (201) or a class (4xx)' })),
  since: Type.Optional(Type.String({ pattern: DATE_TIME, errorMessage: 'must be an ISO 8601 UTC date-time such as 2030-01-01T09:00:00.000Z' })),
  until: Type.Optional(Type.String({ pattern: DATE_TIME, errorMessage: 'must be an ISO 8601 UTC date-time such as 2030-01-01T09:00:00.000Z' })),
  before: Type.Optional(Type.String({ description: 'entries older than this entry id (the next page)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, errorMessage: 'must be an integer from 1 to 1000' })),
});

export const JournalEntryWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('tycho_request'),
    request_id: Type.String(),
    method: Type.String(),
    path: Type.String(),
    query: Type.String(),
    status: Type.Integer(),
    latency_ms: Type.Number(),
    request_headers: Type.Record(Type.String(), Type.String()),
    request_body: Type.Union([Type.String(), Type.Null()]),
    response_body: Type.Union([Type.String(), Type.Null()]),
    occurred_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5nYh6MtZb2Xdkqw',
        type: 'tycho_request',
        request_id: 'req-8f2c1d',
        method: 'POST',
        path: '/v0/notes',
        query: '',
        status: 201,
        latency_ms: 4.2,
        request_headers: { 'content-type': 'application/json', 'user-agent': 'moonbase-ruby/1.4.0' },
        request_body: '{"body":{"markdown":"Called about the **renewal**."}}',
        response_body: '{"id":"1CLJt2v5Qw3bXkUo9TeGm7","type":"note"}',
        occurred_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

export function renderJournalEntry(e: JournalEntry): Static<typeof JournalEntryWire> {
  return {
    id: e.id,
    type: 'tycho_request',
    request_id: e.requestId,
    method: e.method,
    path: e.path,
    query: e.query,
    status: e.status,
    latency_ms: e.latencyMs,
    request_headers: e.requestHeaders,
    request_body: e.requestBody,
    response_body: e.responseBody,
    occurred_at: e.occurredAt,
  };
}
