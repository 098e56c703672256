// Wire shapes of the activity feed (reference §7.2–7.3) and its query parameters, in the newest spelling
// and the older `filter[…]` one.
import { Type, type Static } from 'typebox';
import { ACTIVITY_TYPES, documentedConstituents, type Activity } from '../../domain/activity.ts';
import { filterGroup, operators } from '../list-query.ts';
import { PageQuery, Timestamp } from './common.ts';
import { PER_TYPE_PROPERTIES, webhookPayload } from '../../domain/webhook-events.ts';

const ActivityType = Type.Union(ACTIVITY_TYPES.map((t) => Type.Literal(t)), { errorMessage: `must be an activity type such as activity/item_created` });
const Relation = Type.Union([Type.Literal('actor'), Type.Literal('object'), Type.Literal('target')], { errorMessage: 'must be actor, object or target' });
const eq = <T extends Parameters<typeof Type.Optional>[0]>(name: string, schema: T) => operators(name, { eq: Type.Optional(schema) });
// Times are read by the domain (parseInstant), which names the accepted shapes when one is refused.
const Window = operators('occurred_at', { gte: Type.Optional(Type.String()), lte: Type.Optional(Type.String()) });
/** Both spellings take a list of types too (`type[in][]`, `filter[type][in][]`). */
const Types = operators('type', { eq: Type.Optional(ActivityType), in: Type.Optional(Type.Array(ActivityType)) });

export const ActivityListQuery = Type.Object({
  ...PageQuery.properties,
  type: Types,
  occurred_at: Window,
  // Checked against the entity types by the domain (which also knows their aliases).
  constituent_entity_type: eq('constituent_entity_type', Type.String({ minLength: 1 })),
  constituent_entity_id: eq('constituent_entity_id', Type.String({ minLength: 1 })),
  constituent_relation: eq('constituent_relation', Relation),
  filter: filterGroup({ type: Types, occurred_at: Window, item_id: eq('item_id', Type.String({ minLength: 1 })) }),
});

/**
 * Beside `constituents`, the per-type pointers of reference §7.5 (`item`, `note`, `related_items`…), as
 * webhooks carry them: the Python and Go SDKs read activities only through them.
 */
const PerType = Object.fromEntries(
  PER_TYPE_PROPERTIES.map((name) => [name, Type.Optional(Type.Unknown({ description: 'a pointer (array for related_items), or null; present for the activity types that have it (reference §7.5)' }))]),
);

export const ActivityWire = Type.Object(
  {
    id: Type.String(),
    type: Type.String(),
    occurred_at: Timestamp,
    ...PerType,
    constituents: Type.Array(
      Type.Object({
        type: Type.Literal('constituent'),
        relation: Type.String(),
        entity: Type.Record(Type.String(), Type.Unknown()),
      }),
    ),
  },
  {
    examples: [
      {
        id: '1CLJt2v5XhGb3PdYq8Rcvm',
        type: 'activity/item_created',
        occurred_at: '2025-02-17T16:00:00.000Z',
        constituents: [
          {
            type: 'constituent',
            relation: 'object',
            entity: { id: '1CLJt2v5NVwRc8nCqWZPnr', type: 'item', collection: { id: '1CLJt2v5L9yv2kFJKqB4ad', type: 'collection', ref: 'organizations' } },
          },
        ],
        item: { id: '1CLJt2v5NVwRc8nCqWZPnr', type: 'item', collection: { id: '1CLJt2v5L9yv2kFJKqB4ad', type: 'collection', ref: 'organizations' } },
      },
    ],
  },
);

export function renderActivity(activity: Activity): Static<typeof ActivityWire> {
  // id, type and occurred_at come with the per-type shape, as webhooks carry them.
  const payload = webhookPayload(activity) as { id: string; type: string; occurred_at: string; related_items?: unknown[] };
  return { ...payload, ...olderPointers(payload), constituents: documentedConstituents(activity.constituents) };
}

/**
 * The pointers an older per-type shape had, kept in the feed for the SDKs typed against it (the TypeScript,
 * Python and Go SDKs read `note_created`'s one `related_item`, which became `related_items` in March 2026).
 * Webhooks carry the newest shape alone.
 */
const olderPointers = (payload: { related_items?: unknown[] }) => (payload.related_items ? { related_item: payload.related_items[0] ?? null } : {});
