// /v0/funnels: list, create, retrieve, update (steps replace), delete (refused while a stage field uses it).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createFunnel, deleteFunnel, getFunnel, listFunnels, updateFunnel } from '../../domain/funnels.ts';
import { ListOf, PageQuery, doc, errorResponses, NoContent } from '../schemas/common.ts';
import { FunnelWire, renderFunnel } from '../schemas/fields.ts';
import { CreateFunnelBody, FunnelParams, UpdateFunnelBody } from '../schemas/funnels.ts';
import type { RouteDeps } from '../route-deps.ts';

const docs = {
  listFunnels: doc('Funnels', 'List funnels',
    'Funnels with their steps, in creation order.'),
  createFunnel: doc('Funnels', 'Create a funnel',
    'Creates a funnel with its ordered steps (`active`, `success` or `failure`).'),
  retrieveFunnel: doc('Funnels', 'Retrieve a funnel',
    'One funnel by id, with its steps.'),
  updateFunnel: doc('Funnels', 'Update a funnel',
    'Renames a funnel or replaces its steps (steps keep their ids when sent with them).'),
  deleteFunnel: doc('Funnels', 'Delete a funnel',
    'Deletes a funnel that no stage field uses.'),
};

export const funnelRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get('/funnels', { schema: { ...docs.listFunnels, querystring: PageQuery, response: { 200: ListOf(FunnelWire) } } }, async (req) => {
    const page = await listFunnels(store, req.principal.orgId, listing.page(req, req.query, 'funnels'));
    return listing.envelope(req, 'funnels', page, renderFunnel);
  });

  app.post('/funnels', { schema: { ...docs.createFunnel, body: CreateFunnelBody, response: { 201: FunnelWire } } }, async (req, reply) =>
    reply.code(201).send(renderFunnel(await createFunnel(store, req.principal.orgId, req.body, clock))),
  );

  app.get('/funnels/:id', { schema: { ...docs.retrieveFunnel, params: FunnelParams, response: { 200: FunnelWire } } }, async (req) =>
    renderFunnel(await getFunnel(store, req.principal.orgId, req.params.id)),
  );

  app.patch('/funnels/:id', { schema: { ...docs.updateFunnel, params: FunnelParams, body: UpdateFunnelBody, response: { 200: FunnelWire } } }, async (req) =>
    renderFunnel(await updateFunnel(store, req.principal.orgId, req.params.id, req.body, clock)),
  );

  app.delete('/funnels/:id', { schema: { ...docs.deleteFunnel, params: FunnelParams, response: { 204: NoContent, ...errorResponses(422) } } }, async (req, reply) => {
    await deleteFunnel(store, req.principal.orgId, req.params.id);
    return reply.code(204).send();
  });
};
