// /v0/tagsets: list, create, retrieve, update (tags replace), delete.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createTagset, deleteTagset, getTagset, listTagsets, updateTagset } from '../../domain/tagsets.ts';
import { ListOf, PageQuery, doc, NoContent } from '../schemas/common.ts';
import { CreateTagsetBody, TagsetWire, UpdateTagsetBody, renderTagset } from '../schemas/tagsets.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });

const docs = {
  listTagsets: doc('Tagsets', 'List tagsets',
    'Tagsets with their tags, in creation order.'),
  createTagset: doc('Tagsets', 'Create a tagset',
    'Creates a tagset with its tags, available on inboxes, calls or meetings.'),
  retrieveTagset: doc('Tagsets', 'Retrieve a tagset',
    'One tagset by id.'),
  updateTagset: doc('Tagsets', 'Update a tagset',
    'Renames a tagset, changes its description or associations, or replaces its tags (tags sent with their id keep it).'),
  deleteTagset: doc('Tagsets', 'Delete a tagset',
    'Deletes a tagset and removes its tags from everything tagged.'),
};

export const tagsetRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get('/tagsets', { schema: { ...docs.listTagsets, querystring: PageQuery, response: { 200: ListOf(TagsetWire) } } }, async (req) =>
    listing.envelope(req, 'tagsets', await listTagsets(store, req.principal.orgId, listing.page(req, req.query, 'tagsets')), renderTagset),
  );

  app.post('/tagsets', { schema: { ...docs.createTagset, body: CreateTagsetBody, response: { 201: TagsetWire } } }, async (req, reply) =>
    reply.code(201).send(renderTagset(await createTagset(store, req.principal.orgId, req.body, clock))),
  );

  app.get('/tagsets/:id', { schema: { ...docs.retrieveTagset, params: Params, response: { 200: TagsetWire } } }, async (req) =>
    renderTagset(await getTagset(store, req.principal.orgId, req.params.id)),
  );

  app.patch('/tagsets/:id', { schema: { ...docs.updateTagset, params: Params, body: UpdateTagsetBody, response: { 200: TagsetWire } } }, async (req) =>
    renderTagset(await updateTagset(store, req.principal.orgId, req.params.id, req.body, clock)),
  );

  app.delete('/tagsets/:id', { schema: { ...docs.deleteTagset, params: Params, response: { 204: NoContent } } }, async (req, reply) => {
    await deleteTagset(store, req.principal.orgId, req.params.id);
    return reply.code(204).send();
  });
};
