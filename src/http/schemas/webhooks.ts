// Wire shapes of webhook endpoints (reference §5.18) and of Tycho's webhook extensions: attempts, re-sent
// deliveries and the event feed.
import { Type, type Static } from 'typebox';
import { ACTIVITY_TYPES } from '../../domain/activity.ts';
import { ENDPOINT_STATUSES, type WebhookEndpoint } from '../../domain/webhook-endpoints.ts';
import type { WebhookAttempt } from '../../domain/webhook-delivery.ts';
import { DUE_AT_ONCE, type WebhookDelivery } from '../../domain/webhook-outbox.ts';
import { messageId, type WebhookEvent } from '../../domain/webhook-events.ts';
import { Timestamp } from './common.ts';

const Status = Type.Union(ENDPOINT_STATUSES.map((s) => Type.Literal(s)), { errorMessage: `must be one of: ${ENDPOINT_STATUSES.join(', ')}` });
const EventType = Type.String({ description: `one of the activity types: ${ACTIVITY_TYPES.join(', ')}` });
const NullableString = Type.Union([Type.String(), Type.Null()]);

export const CreateEndpointBody = Type.Object(
  {
    url: Type.String({ description: 'HTTPS URL of the receiver (plain HTTP only on loopback, unless the operator allows it)' }),
    status: Type.Optional(Status),
    subscriptions: Type.Optional(Type.Array(Type.Object({ event_type: EventType }))),
  },
  { examples: [{ url: 'https://hooks.acme.com/tycho', subscriptions: [{ event_type: 'activity/item_created' }, { event_type: 'activity/note_created' }] }] },
);

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Type.String()),
    status: Type.Optional(Status),
    subscriptions: Type.Optional(Type.Array(Type.Object({ event_type: EventType, id: Type.Optional(Type.String()) }), { description: 'replaces the set' })),
  },
  { examples: [{ status: 'disabled' }] },
);

export const EndpointWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('webhook_endpoint'),
    url: Type.String(),
    status: Type.String(),
    subscriptions: Type.Array(Type.Object({ id: Type.String(), type: Type.Literal('webhook_subscription'), event_type: Type.String() })),
    secret: Type.Optional(Type.String({ description: '`whsec_` + base64 of the signing key; only in the create response' })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5pCk4RzXm8Vdfhs',
        type: 'webhook_endpoint',
        url: 'https://hooks.acme.com/tycho',
        status: 'enabled',
        subscriptions: [{ id: '1CLJt2v5pTw9LbYq3Ncgjx', type: 'webhook_subscription', event_type: 'activity/item_created' }],
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        created_at: '2025-02-17T16:00:00.000Z',
        updated_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

export function renderEndpoint(e: WebhookEndpoint, withSecret = false): Static<typeof EndpointWire> {
  return {
    id: e.id,
    type: 'webhook_endpoint',
    url: e.url,
    status: e.status,
    subscriptions: e.subscriptions.map((s) => ({ id: s.id, type: 'webhook_subscription', event_type: s.eventType })),
    ...(withSecret ? { secret: e.secret } : {}),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

export const AttemptWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('webhook_attempt'),
    delivery_id: Type.String(),
    event_id: Type.String({ description: 'the `webhook-id` sent (`msg_…`)' }),
    event_type: Type.String(),
    attempted_at: Timestamp,
    status_code: Type.Union([Type.Integer(), Type.Null()], { description: "the receiver's status; null when no answer came" }),
    latency_ms: Type.Integer(),
    error: NullableString,
    response_excerpt: NullableString,
  },
  {
    examples: [
      {
        id: '1CLJt2v5q8Xf2NtWr6Kbmz',
        type: 'webhook_attempt',
        delivery_id: '1CLJt2v5qMb7TcZs4Hdjpw',
        event_id: 'msg_1CLJt2v5XhGb3PdYq8Rcvm',
        event_type: 'activity/item_created',
        attempted_at: '2025-02-17T16:00:01.000Z',
        status_code: 500,
        latency_ms: 76,
        error: 'the receiver answered 500',
        response_excerpt: 'not now',
      },
    ],
  },
);

export const renderAttempt = (a: WebhookAttempt): Static<typeof AttemptWire> => ({
  id: a.id,
  type: 'webhook_attempt',
  delivery_id: a.deliveryId,
  event_id: messageId(a.activityId),
  event_type: a.eventType,
  attempted_at: a.attemptedAt,
  status_code: a.statusCode,
  latency_ms: a.latencyMs,
  error: a.error,
  response_excerpt: a.responseExcerpt,
});

export const ResendBody = Type.Object(
  { event_id: Type.String({ description: 'the event to send again: its `msg_…` id (or the activity id)' }) },
  { examples: [{ event_id: 'msg_1CLJt2v5XhGb3PdYq8Rcvm' }] },
);

export const DeliveryWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('webhook_delivery'),
    endpoint_id: Type.String(),
    event_id: Type.String(),
    status: Type.String({ description: 'pending, succeeded or failed' }),
    attempts: Type.Integer(),
    next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'when a pending delivery is tried next; null: as soon as possible' }),
  },
  { examples: [{ id: '1CLJt2v5qMb7TcZs4Hdjpw', type: 'webhook_delivery', endpoint_id: '1CLJt2v5pCk4RzXm8Vdfhs', event_id: 'msg_1CLJt2v5XhGb3PdYq8Rcvm', status: 'pending', attempts: 0, next_attempt_at: null }] },
);

export const renderDelivery = (d: WebhookDelivery): Static<typeof DeliveryWire> => ({
  id: d.id,
  type: 'webhook_delivery',
  endpoint_id: d.endpointId,
  event_id: messageId(d.activityId),
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: d.nextAttemptAt === DUE_AT_ONCE ? null : d.nextAttemptAt,
});

export const EventWire = Type.Object(
  {
    id: Type.String({ description: 'the `webhook-id` (`msg_…`) the webhooks of this event carry' }),
    type: Type.Literal('webhook_event'),
    event_type: Type.String(),
    payload: Type.Record(Type.String(), Type.Unknown(), { description: 'the webhook body (reference §7.5 per-type activity object)' }),
  },
  {
    examples: [
      {
        id: 'msg_1CLJt2v5XhGb3PdYq8Rcvm',
        type: 'webhook_event',
        event_type: 'activity/item_created',
        payload: { id: '1CLJt2v5XhGb3PdYq8Rcvm', type: 'activity/item_created', occurred_at: '2025-02-17T16:00:00.000Z', item: { id: '1CLJt2v5NVwRc8nCqWZPnr', type: 'item', collection: { id: '1CLJt2v5L9yv2kFJKqB4ad', type: 'collection', ref: 'organizations' } } },
      },
    ],
  },
);

export const renderEvent = (e: WebhookEvent): Static<typeof EventWire> => ({ id: e.messageId, type: 'webhook_event', event_type: e.eventType, payload: e.payload });
