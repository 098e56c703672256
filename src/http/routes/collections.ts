// /v0/collections: list and retrieve (with fields; views with include[]=views on retrieve), create, update.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createCollection, getCollection, listCollections, updateCollection } from '../../domain/collections.ts';
import { IdOrRefParams, ListOf, PageQuery, doc } from '../schemas/common.ts';
import { CollectionWire, CreateCollectionBody, UpdateCollectionBody, renderCollection } from '../schemas/collections.ts';
import type { RouteDeps } from '../route-deps.ts';
import { Type } from 'typebox';
import { Include, includesOf } from '../list-query.ts';
import { viewsOfCollection } from '../../domain/views.ts';
import { renderViewSummary } from '../schemas/view-wire.ts';

const RetrieveQuery = Type.Object({ include: Include(['views']) });

const docs = {
  listCollections: doc('Collections', 'List collections',
    'The collections of the organization (system collections first), each with its fields.'),
  createCollection: doc('Collections', 'Create a collection',
    'Creates a custom collection; its ref is derived from the name. It starts with the system fields.'),
  retrieveCollection: doc('Collections', 'Retrieve a collection',
    'One collection by id or ref, with its fields; `include[]=views` adds its views.'),
  updateCollection: doc('Collections', 'Update a collection',
    'Renames a collection or changes its description. The ref never changes.'),
};

export const collectionRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get('/collections', { schema: { ...docs.listCollections, querystring: PageQuery, response: { 200: ListOf(CollectionWire) } } }, async (req) => {
    const page = await listCollections(store, req.principal.orgId, listing.page(req, req.query, 'collections'));
    return listing.envelope(req, 'collections', page, renderCollection);
  });

  app.post('/collections', { schema: { ...docs.createCollection, body: CreateCollectionBody, response: { 201: CollectionWire } } }, async (req, reply) => {
    const created = await createCollection(store, req.principal.orgId, req.body, clock);
    return reply.code(201).send(renderCollection(created));
  });

  app.get('/collections/:id', { schema: { ...docs.retrieveCollection, params: IdOrRefParams, querystring: RetrieveQuery, response: { 200: CollectionWire } } }, async (req) => {
    const found = await getCollection(store, req.principal.orgId, req.params.id);
    if (!includesOf(req.query.include)?.has('views')) return renderCollection(found);
    const views = await viewsOfCollection(store, req.principal.orgId, found.collection, clock);
    return { ...renderCollection(found), views: views.map(renderViewSummary) };
  });

  app.patch(
    '/collections/:id',
    { schema: { ...docs.updateCollection, params: IdOrRefParams, body: UpdateCollectionBody, response: { 200: CollectionWire } } },
    async (req) => renderCollection(await updateCollection(store, req.principal.orgId, req.params.id, req.body, clock)),
  );
};
