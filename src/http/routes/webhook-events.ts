// /v0/tycho/events: Tycho's pollable event feed — the events webhooks carry, with the same ids and bodies, in
// recording order, so a consumer that was down can catch up with a cursor instead of webhooks.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ACTIVITY_TYPES } from '../../domain/activity.ts';
import { listEvents } from '../../domain/webhook-events.ts';
import { ErrorEnvelope, ListOf, PageQuery } from '../schemas/common.ts';
import { EventWire, renderEvent } from '../schemas/webhooks.ts';
import type { RouteDeps } from '../route-deps.ts';
import { operators } from '../list-query.ts';

const EventType = Type.Union(ACTIVITY_TYPES.map((t) => Type.Literal(t)), { errorMessage: `must be one of: ${ACTIVITY_TYPES.join(', ')}` });

const EventsQuery = Type.Object({
  ...PageQuery.properties,
  event_type: operators('event_type', { eq: Type.Optional(EventType), in: Type.Optional(Type.Array(EventType)) }),
});

export const webhookEventRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing }) => {
  app.get(
    '/tycho/events',
    {
      schema: {
        summary: 'Poll the event feed',
        description:
          'Tycho extension: the events webhooks carry (id = `webhook-id`, payload = webhook body), oldest first in recording order; follow `meta.cursors.next` (the `after` cursor) to catch up. Reading forward, every page has `next`, the last one too (an empty page, the cursor it was asked with): keep it and poll with it later. `event_type[eq]` or `event_type[in][]` narrow it.',
        tags: ['Tycho extensions'],
        querystring: EventsQuery,
        response: { 200: ListOf(EventWire), 400: ErrorEnvelope },
      },
    },
    async (req) => {
      const { after, before, limit, event_type } = req.query;
      const types = event_type?.eq === undefined ? event_type?.in : (event_type.in ?? [event_type.eq]).filter((t) => t === event_type.eq);
      // The cursor belongs to the feed as filtered.
      const list = types === undefined ? 'events' : `events?types=${[...types].sort().join(',')}`;
      const page = listing.page(req, { after, before, limit }, list);
      const found = await listEvents(store, req.principal.orgId, types, page);
      // A poller goes on from where the feed ends, later: reading forward, the last page names that place too
      // (an empty one, the place it was asked from), unlike a list's last page.
      const end = found.rows.length > 0 ? found.end : page.after;
      return listing.envelope(req, list, before === undefined && end ? { ...found, hasNext: true, end } : found, renderEvent);
    },
  );
};
