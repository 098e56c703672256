// /v0/collections/{collection_id}/items: list, search, create, retrieve, update (strategy headers), delete,
// upsert, merge.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { prepareQuery, runQuery, type ItemPage } from '../../domain/item-reads.ts';
import { ListOf, PageQuery } from '../schemas/common.ts';
import { createItem, deleteItem, findItem, updateItem, upsertItem } from '../../domain/item-writes.ts';
import { mergeItems } from '../../domain/item-merge.ts';
import { fieldByKey, loadSchema, type CollectionSchema } from '../../domain/collection-schema.ts';
import { AppError } from '../../domain/errors.ts';
import {
  CollectionParams,
  ItemParams,
  ItemValuesBody,
  ItemListQuery,
  ItemWire,
  MergeBody,
  SearchBody,
  SearchResult,
  StrategyHeaders,
  UpsertBody,
  renderItem,
  strategiesOf,
} from '../schemas/items.ts';
import type { RouteDeps } from '../route-deps.ts';

/** The field ids the list's `include[]` names (ids or refs); an unknown one → 422 naming include[], as sort[] does. */
function selectedFields(schema: CollectionSchema, include: string[]): Set<string> {
  return new Set(
    include.map((key) => {
      const field = fieldByKey(schema, key);
      if (!field) throw new AppError('validation_failed', `include[] takes field ids or refs; ${schema.collection.ref} has no field "${key}"`, { parameter: 'include[]' });
      return field.id;
    }),
  );
}

export const itemRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  const listName = (collectionId: string, signature: string) => `items/${collectionId}/${signature}`;

  app.get(
    '/collections/:collection_id/items',
    { schema: { params: CollectionParams, querystring: ItemListQuery, response: { 200: ListOf(ItemWire) } } },
    async (req) => {
      const { sort, include, ...pageQuery } = req.query;
      const prepared = await prepareQuery(store, req.principal.orgId, req.params.collection_id, { sort: sort ?? [] }, () => ({ parameter: 'sort[]' }));
      const only = include === undefined ? undefined : selectedFields(prepared.schema, include);
      const list = listName(prepared.schema.collection.id, prepared.orderSignature);
      const result = await runQuery(store, req.principal.orgId, prepared, listing.page(req, pageQuery, list));
      return listing.envelope(req, list, result.page, (item) => renderItem(item, result.schema, only));
    },
  );

  app.post(
    '/collections/:collection_id/items/search',
    {
      config: { access: 'read' },
      schema: { params: CollectionParams, querystring: PageQuery, body: SearchBody, response: { 200: ListOf(SearchResult) } },
      // The body is optional: no body searches everything.
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req) => {
      const prepared = await prepareQuery(store, req.principal.orgId, req.params.collection_id, req.body, (i) => ({ pointer: `/sort/${i}` }));
      const list = listName(prepared.schema.collection.id, prepared.orderSignature);
      const result: ItemPage = await runQuery(store, req.principal.orgId, prepared, listing.page(req, req.query, list));
      return listing.envelope(req, list, result.page, (item) => ({
        type: 'search_result' as const,
        data: renderItem(item, result.schema, result.include),
      }));
    },
  );

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

  app.post(
    '/collections/:collection_id/items/merge',
    { schema: { params: CollectionParams, body: MergeBody, response: { 200: ItemWire } } },
    async (req) => {
      const { item, schema } = await mergeItems(store, req.principal, req.params.collection_id, req.body, clock);
      return renderItem(item, schema);
    },
  );
};
