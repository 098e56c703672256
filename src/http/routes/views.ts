// /v0/views/{id} and /v0/views/{id}/items (reference §5.4), and the Tycho extension
// POST /v0/tycho/collections/{collection_id}/views that saves a view with a filter and a sort.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createView, getView, prepareViewQuery, viewItems } from '../../domain/views.ts';
import { getCollection } from '../../domain/collections.ts';
import { includesOf } from '../list-query.ts';
import { ListOf, doc, errorResponses, EXTENSIONS_TAG } from '../schemas/common.ts';
import { CollectionParams, ItemWire } from '../schemas/items.ts';
import { servedJson } from '../../domain/item-wire.ts';
import { sendJson } from '../pagination.ts';
import { CreateViewBody, ViewItemsQuery, ViewParams, ViewQuery, ViewWire, renderView } from '../schemas/views.ts';
import type { RouteDeps } from '../route-deps.ts';

const docs = {
  retrieveView: doc('Views', 'Retrieve a view',
    'One saved view of a collection (its name and kind; the saved filter and sort are not shown); `include[]=collection` adds the collection with its fields.'),
  listItemsView: doc('Views', 'List the items of a view',
    'Items in the view\'s saved filter and sort, paginated like item lists.'),
  createView: doc(EXTENSIONS_TAG, 'Create a view',
    'Views are made in the hosted web app; this creates one with a saved filter and sort so clients can read it.'),
};

export const viewRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get('/views/:id', { schema: { ...docs.retrieveView, params: ViewParams, querystring: ViewQuery, response: { 200: ViewWire } } }, async (req) => {
    const view = await getView(store, req.principal.orgId, req.params.id);
    const withCollection = includesOf(req.query.include)?.has('collection');
    return renderView(view, withCollection ? await getCollection(store, req.principal.orgId, view.collectionId) : undefined);
  });

  app.get('/views/:id/items', { schema: { ...docs.listItemsView, params: ViewParams, querystring: ViewItemsQuery, response: { 200: ListOf(ItemWire), ...errorResponses(422) } } }, async (req, reply) => {
    const { view, prepared } = await prepareViewQuery(store, req.principal.orgId, req.params.id);
    const list = `views/${view.id}/${prepared.orderSignature}`;
    const result = await viewItems(store, req.principal.orgId, prepared, listing.page(req, req.query, list));
    return sendJson(reply, listing.envelopeJson(req, list, result.page, (item) => servedJson(item, result.schema)));
  });

  app.post(
    '/tycho/collections/:collection_id/views',
    { schema: { ...docs.createView, params: CollectionParams, body: CreateViewBody, response: { 201: ViewWire } } },
    async (req, reply) => {
      const view = await createView(store, req.principal, req.params.collection_id, req.body, clock);
      return reply.code(201).send(renderView(view));
    },
  );
};
