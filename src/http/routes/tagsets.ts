// /v0/tagsets: list, create, retrieve, update (tags replace), delete.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createTagset, deleteTagset, getTagset, listTagsets, updateTagset } from '../../domain/tagsets.ts';
import { ListOf, PageQuery } from '../schemas/common.ts';
import { CreateTagsetBody, TagsetWire, UpdateTagsetBody, renderTagset } from '../schemas/tagsets.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });

export const tagsetRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get('/tagsets', { schema: { querystring: PageQuery, response: { 200: ListOf(TagsetWire) } } }, async (req) =>
    listing.envelope(req, 'tagsets', await listTagsets(store, req.principal.orgId, listing.page(req, req.query, 'tagsets')), renderTagset),
  );

  app.post('/tagsets', { schema: { body: CreateTagsetBody, response: { 201: TagsetWire } } }, async (req, reply) =>
    reply.code(201).send(renderTagset(await createTagset(store, req.principal.orgId, req.body, clock))),
  );

  app.get('/tagsets/:id', { schema: { params: Params, response: { 200: TagsetWire } } }, async (req) =>
    renderTagset(await getTagset(store, req.principal.orgId, req.params.id)),
  );

  app.patch('/tagsets/:id', { schema: { params: Params, body: UpdateTagsetBody, response: { 200: TagsetWire } } }, async (req) =>
    renderTagset(await updateTagset(store, req.principal.orgId, req.params.id, req.body, clock)),
  );

  app.delete('/tagsets/:id', { schema: { params: Params } }, async (req, reply) => {
    await deleteTagset(store, req.principal.orgId, req.params.id);
    return reply.code(204).send();
  });
};
