// /v0/collections/{collection_id}/items: list, search, create, retrieve, update (strategy headers), delete,
// upsert, merge.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { prepareQueryFor, serveItem, servePage, type PreparedQuery } from '../../domain/item-reads.ts';
import { servedJson } from '../../domain/item-wire.ts';
import { sendJson } from '../pagination.ts';
import { ListOf, PageQuery, doc, errorResponses, NoContent } from '../schemas/common.ts';
import { createItem, deleteItem, updateItem, upsertItem } from '../../domain/item-writes.ts';
import { mergeItems } from '../../domain/item-merge.ts';
import { fieldByKey, type CollectionSchema } from '../../domain/collection-schema.ts';
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

const docs = {
  listItems: doc('Items', 'List items',
    'Items of a collection in creation order, or in the order of `sort[]` (field refs, `-` for descending). `include[]` limits the values returned.'),
  searchItems: doc('Items', 'Search items',
    'Items of a collection matching a filter (see the `Filter` schema), in the order of `sort`. Reads only: read-only keys may search.'),
  createItem: doc('Items', 'Create an item',
    'Creates an item from values by field ref or id, each in the value wrapper (`Value`). Required fields must have a value; default values fill the rest.'),
  retrieveItem: doc('Items', 'Retrieve an item',
    'One item by id with all its values.'),
  updateItem: doc('Items', 'Update an item',
    'Changes the values sent and leaves the others. The `update-one-strategy` and `update-many-strategy` headers decide whether sent values replace, preserve or (for `many` fields) merge with the current ones.'),
  deleteItem: doc('Items', 'Delete an item',
    'Deletes an item; relations and associations pointing at it go with it.'),
  createUpdateItem: doc('Items', 'Create or update an item',
    'Finds the item whose values of the `identifiers` fields match (any one of them) and updates it with `values` following the strategy headers, or creates it: 201 when created, 200 when updated.'),
  mergeTwoItems: doc('Items', 'Merge two items',
    'Merges `source` into `destination`: values the destination lacks are copied, links move, and the source is deleted. Answers the merged destination.'),
};

export const itemRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  /**
   * Cursors are scoped to the list: the collection, its order and a search's filter (as parsed: filters that
   * only differ in spelling, a field's ref for its id, share their pages).
   */
  const listName = ({ schema, orderSignature, query }: PreparedQuery) =>
    `items/${schema.collection.id}/${orderSignature}${query.filter ? `/${JSON.stringify(query.filter)}` : ''}`;

  app.get(
    '/collections/:collection_id/items',
    // 422: a sort or include[] naming no field of the collection.
    { schema: { ...docs.listItems, params: CollectionParams, querystring: ItemListQuery, response: { 200: ListOf(ItemWire), ...errorResponses(422) } } },
    async (req, reply) => {
      const { sort, include, ...pageQuery } = req.query;
      const { orgId } = req.principal;
      const result = await servePage(
        store,
        orgId,
        req.params.collection_id,
        async (schema) => {
          const prepared = await prepareQueryFor(store, orgId, schema, { sort: sort ?? [] }, () => ({ parameter: 'sort[]' }));
          if (include !== undefined) prepared.include = selectedFields(schema, include);
          return prepared;
        },
        (prepared) => listing.page(req, pageQuery, listName(prepared)),
      );
      const json = listing.envelopeJson(req, listName(result.prepared), result.page, (item) => servedJson(item, result.schema, result.include));
      return sendJson(reply, json);
    },
  );

  app.post(
    '/collections/:collection_id/items/search',
    {
      config: { access: 'read' },
      schema: { ...docs.searchItems, params: CollectionParams, querystring: PageQuery, body: SearchBody, response: { 200: ListOf(SearchResult) } },
      // The body is optional: no body searches everything.
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req, reply) => {
      const { orgId } = req.principal;
      const result = await servePage(
        store,
        orgId,
        req.params.collection_id,
        (schema) => prepareQueryFor(store, orgId, schema, req.body, (i) => ({ pointer: `/sort/${i}` })),
        (prepared) => listing.page(req, req.query, listName(prepared)),
      );
      const json = listing.envelopeJson(req, listName(result.prepared), result.page, (item) => `{"type":"search_result","data":${servedJson(item, result.schema, result.include)}}`);
      return sendJson(reply, json);
    },
  );

  app.post(
    '/collections/:collection_id/items',
    { schema: { ...docs.createItem, params: CollectionParams, body: ItemValuesBody, response: { 201: ItemWire } } },
    async (req, reply) => {
      const { json } = await createItem(store, req.principal, req.params.collection_id, req.body, clock);
      return sendJson(reply, json, 201);
    },
  );

  app.get('/collections/:collection_id/items/:id', { schema: { ...docs.retrieveItem, params: ItemParams, response: { 200: ItemWire } } }, async (req, reply) => {
    const { schema, item } = await serveItem(store, req.principal.orgId, req.params.collection_id, req.params.id);
    return sendJson(reply, servedJson(item, schema));
  });

  app.patch(
    '/collections/:collection_id/items/:id',
    { schema: { ...docs.updateItem, params: ItemParams, headers: StrategyHeaders, body: ItemValuesBody, response: { 200: ItemWire } } },
    async (req, reply) => {
      const { collection_id, id } = req.params;
      const { json } = await updateItem(store, req.principal, collection_id, id, req.body, strategiesOf(req.headers), clock);
      return sendJson(reply, json);
    },
  );

  app.delete('/collections/:collection_id/items/:id', { schema: { ...docs.deleteItem, params: ItemParams, response: { 204: NoContent } } }, async (req, reply) => {
    await deleteItem(store, req.principal, req.params.collection_id, req.params.id);
    return reply.code(204).send();
  });

  app.post(
    '/collections/:collection_id/items/upsert',
    { schema: { ...docs.createUpdateItem, params: CollectionParams, headers: StrategyHeaders, body: UpsertBody, response: { 200: ItemWire, 201: ItemWire } } },
    async (req, reply) => {
      const result = await upsertItem(store, req.principal, req.params.collection_id, req.body, strategiesOf(req.headers), clock);
      return sendJson(reply, result.json, result.created ? 201 : 200);
    },
  );

  app.post(
    '/collections/:collection_id/items/merge',
    { schema: { ...docs.mergeTwoItems, params: CollectionParams, body: MergeBody, response: { 200: ItemWire } } },
    async (req, reply) => {
      const { json } = await mergeItems(store, req.principal, req.params.collection_id, req.body, clock);
      return sendJson(reply, json);
    },
  );
};
