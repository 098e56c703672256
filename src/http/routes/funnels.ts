// /v0/funnels: list, create, retrieve, update (steps replace), delete (refused while a stage field uses it).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createFunnel, deleteFunnel, getFunnel, listFunnels, updateFunnel } from '../../domain/funnels.ts';
import { ListOf, PageQuery } from '../schemas/common.ts';
import { FunnelWire, renderFunnel } from '../schemas/fields.ts';
import { CreateFunnelBody, FunnelParams, UpdateFunnelBody } from '../schemas/funnels.ts';
import type { RouteDeps } from '../route-deps.ts';

export const funnelRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get('/funnels', { schema: { querystring: PageQuery, response: { 200: ListOf(FunnelWire) } } }, async (req) => {
    const page = await listFunnels(store, req.principal.orgId, listing.page(req, req.query, 'funnels'));
    return listing.envelope(req, 'funnels', page, renderFunnel);
  });

  app.post('/funnels', { schema: { body: CreateFunnelBody, response: { 201: FunnelWire } } }, async (req, reply) =>
    reply.code(201).send(renderFunnel(await createFunnel(store, req.principal.orgId, req.body, clock))),
  );

  app.get('/funnels/:id', { schema: { params: FunnelParams, response: { 200: FunnelWire } } }, async (req) =>
    renderFunnel(await getFunnel(store, req.principal.orgId, req.params.id)),
  );

  app.patch('/funnels/:id', { schema: { params: FunnelParams, body: UpdateFunnelBody, response: { 200: FunnelWire } } }, async (req) =>
    renderFunnel(await updateFunnel(store, req.principal.orgId, req.params.id, req.body, clock)),
  );

  app.delete('/funnels/:id', { schema: { params: FunnelParams } }, async (req, reply) => {
    await deleteFunnel(store, req.principal.orgId, req.params.id);
    return reply.code(204).send();
  });
};
