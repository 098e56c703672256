// /v0/collections/{collection_id}/items: create, retrieve, update (strategy headers), delete, upsert.
// Lists and search live in item-search.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createItem, deleteItem, findItem, updateItem, upsertItem } from '../../domain/item-writes.ts';
import { loadSchema } from '../../domain/collection-schema.ts';
import {
  CollectionParams,
  ItemParams,
  ItemValuesBody,
  ItemWire,
  StrategyHeaders,
  UpsertBody,
  renderItem,
  strategiesOf,
} from '../schemas/items.ts';
import type { RouteDeps } from '../route-deps.ts';

export const itemRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, clock }) => {
  app.post(
    '/collections/:collection_id/items',
    { schema: { params: CollectionParams, body: ItemValuesBody, response: { 201: ItemWire } } },
    async (req, reply) => {
      const { item, schema } = await createItem(store, req.principal, req.params.collection_id, req.body, clock);
      return reply.code(201).send(renderItem(item, schema));
    },
  );

  app.get('/collections/:collection_id/items/:id', { schema: { params: ItemParams, response: { 200: ItemWire } } }, async (req) => {
    const schema = await loadSchema(store, req.principal.orgId, req.params.collection_id);
    return renderItem(await findItem(store, schema, req.params.id), schema);
  });

  app.patch(
    '/collections/:collection_id/items/:id',
    { schema: { params: ItemParams, headers: StrategyHeaders, body: ItemValuesBody, response: { 200: ItemWire } } },
    async (req) => {
      const { collection_id, id } = req.params;
      const { item, schema } = await updateItem(store, req.principal, collection_id, id, req.body, strategiesOf(req.headers), clock);
      return renderItem(item, schema);
    },
  );

  app.delete('/collections/:collection_id/items/:id', { schema: { params: ItemParams } }, async (req, reply) => {
    await deleteItem(store, req.principal, req.params.collection_id, req.params.id);
    return reply.code(204).send();
  });

  app.post(
    '/collections/:collection_id/items/upsert',
    { schema: { params: CollectionParams, headers: StrategyHeaders, body: UpsertBody, response: { 200: ItemWire, 201: ItemWire } } },
    async (req, reply) => {
      const result = await upsertItem(store, req.principal, req.params.collection_id, req.body, strategiesOf(req.headers), clock);
      return reply.code(result.created ? 201 : 200).send(renderItem(result.item, result.schema));
    },
  );
};
