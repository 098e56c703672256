// /v0/collections/{collection_id}/fields: create, retrieve, update, delete.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createField, deleteField, getField, updateField } from '../../domain/collection-fields.ts';
import { CreateFieldBody, FieldParams, FieldWire, UpdateFieldBody, renderField } from '../schemas/fields.ts';
import type { RouteDeps } from '../route-deps.ts';
import { doc, errorResponses, NoContent } from '../schemas/common.ts';

const docs = {
  createField: doc('Fields', 'Create a field',
    'Adds a field of one of the 20 field types to a collection. `type`-specific settings: options (choice), funnel (stage), allowed collections and relation type (relation), default unit (monetary).'),
  retrieveField: doc('Fields', 'Retrieve a field',
    'One field of a collection by id or ref.'),
  updateField: doc('Fields', 'Update a field',
    'Changes a field\'s name, description, cardinality, required/unique flags, default values or type-specific settings; `type` must be sent and equal the field\'s, which never changes. Its ref never changes.'),
  deleteField: doc('Fields', 'Delete a field',
    'Deletes a custom field and its values from every item. System fields cannot be deleted.'),
};

export const fieldRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, clock }) => {
  const CollectionParams = Type.Object({ collection_id: Type.String() });

  app.post(
    '/collections/:collection_id/fields',
    { schema: { ...docs.createField, params: CollectionParams, body: CreateFieldBody, response: { 201: FieldWire } } },
    async (req, reply) => {
      const view = await createField(store, req.principal.orgId, req.params.collection_id, req.body, clock);
      return reply.code(201).send(renderField(view));
    },
  );

  app.get('/collections/:collection_id/fields/:id', { schema: { ...docs.retrieveField, params: FieldParams, response: { 200: FieldWire } } }, async (req) =>
    renderField(await getField(store, req.principal.orgId, req.params.collection_id, req.params.id)),
  );

  app.patch(
    '/collections/:collection_id/fields/:id',
    { schema: { ...docs.updateField, params: FieldParams, body: UpdateFieldBody, response: { 200: FieldWire } } },
    async (req) => renderField(await updateField(store, req.principal.orgId, req.params.collection_id, req.params.id, req.body, clock)),
  );

  app.delete('/collections/:collection_id/fields/:id', { schema: { ...docs.deleteField, params: FieldParams, response: { 204: NoContent, ...errorResponses(422) } } }, async (req, reply) => {
    await deleteField(store, req.principal.orgId, req.params.collection_id, req.params.id);
    return reply.code(204).send();
  });
};
