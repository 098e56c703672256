// /v0/activities: the feed, newest first, with type, time and constituent filters (also in the older
// `filter[…]` spelling, and as the printed Ruby hash some Ruby SDK releases sent); and one activity.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getActivity, listActivities } from '../../domain/activity.ts';
import { ListOf, doc, errorResponses } from '../schemas/common.ts';
import { ActivityListQuery, ActivityWire, renderActivity } from '../schemas/activities.ts';
import { legacyFilterHook } from '../list-query.ts';
import type { RouteDeps } from '../route-deps.ts';

const docs = {
  listActivities: doc('Activities', 'List activities',
    'The activity feed of the organization, newest first: item creations and merges, notes, files, calls, meetings, form submissions, inbox messages and program messages. Filter by `type[eq]`/`type[in][]`, time (`occurred_at[gte|lte]`) and an entity involved (`constituent_entity_type[eq]`, `constituent_entity_id[eq]`, `constituent_relation[eq]`); the older `filter[…]` spellings work too.'),
  retrieveActivity: doc('Activities', 'Retrieve an activity',
    'One activity by id.'),
};

export const activityRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing }) => {
  app.get('/activities', { preValidation: legacyFilterHook, schema: { ...docs.listActivities, querystring: ActivityListQuery, response: { 200: ListOf(ActivityWire), ...errorResponses(422) } } }, async (req) => {
    const { after, before, limit, ...filters } = req.query;
    const page = listing.page(req, { after, before, limit }, 'activities');
    return listing.envelope(req, 'activities', await listActivities(store, req.principal.orgId, filters, page), renderActivity);
  });

  app.get('/activities/:id', { schema: { ...docs.retrieveActivity, params: Type.Object({ id: Type.String() }), response: { 200: ActivityWire } } }, async (req) =>
    renderActivity(await getActivity(store, req.principal.orgId, req.params.id)),
  );
};
