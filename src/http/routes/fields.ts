// /v0/collections/{collection_id}/fields: create, retrieve, update, delete.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createField, deleteField, getField, updateField } from '../../domain/collection-fields.ts';
import { CreateFieldBody, FieldParams, FieldWire, UpdateFieldBody, renderField } from '../schemas/fields.ts';
import type { RouteDeps } from '../route-deps.ts';

export const fieldRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, clock }) => {
  const CollectionParams = Type.Object({ collection_id: Type.String() });

  app.post(
    '/collections/:collection_id/fields',
    { schema: { params: CollectionParams, body: CreateFieldBody, response: { 201: FieldWire } } },
    async (req, reply) => {
      const view = await createField(store, req.principal.orgId, req.params.collection_id, req.body, clock);
      return reply.code(201).send(renderField(view));
    },
  );

  app.get('/collections/:collection_id/fields/:id', { schema: { params: FieldParams, response: { 200: FieldWire } } }, async (req) =>
    renderField(await getField(store, req.principal.orgId, req.params.collection_id, req.params.id)),
  );

  app.patch(
    '/collections/:collection_id/fields/:id',
    { schema: { params: FieldParams, body: UpdateFieldBody, response: { 200: FieldWire } } },
    async (req) => renderField(await updateField(store, req.principal.orgId, req.params.collection_id, req.params.id, req.body, clock)),
  );

  app.delete('/collections/:collection_id/fields/:id', { schema: { params: FieldParams } }, async (req, reply) => {
    await deleteField(store, req.principal.orgId, req.params.collection_id, req.params.id);
    return reply.code(204).send();
  });
};
