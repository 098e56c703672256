// /v0/forms: list, create (with its backing collection), retrieve, update, delete (the collection stays).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { createForm, deleteForm, getForm, listForms, updateForm, type FormView } from '../../domain/forms.ts';
import { errorResponses, ListOf, NoContent, PageQuery } from '../schemas/common.ts';
import { CreateFormBody, FormWire, renderForm, UpdateFormBody } from '../schemas/forms.ts';
import type { RouteDeps } from '../route-deps.ts';
import { originOf } from '../plugins/request-context.ts';

const Params = Type.Object({ id: Type.String() });
const TAGS = ['Forms'];

/** The absolute URL of a form's public page on this server. */
export const formPageUrl = (request: FastifyRequest, formId: string): string => `${originOf(request)}/tycho/forms/${formId}`;

export const formRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  const render = (req: FastifyRequest) => (view: FormView) => renderForm(view, formPageUrl(req, view.form.id));

  app.get(
    '/forms',
    {
      schema: { summary: 'List forms', description: 'Forms of the organization, oldest first, each with its collection.', tags: TAGS, querystring: PageQuery, response: { 200: ListOf(FormWire), ...errorResponses(400) } },
    },
    async (req) => listing.envelope(req, 'forms', await listForms(store, req.principal.orgId, listing.page(req, req.query, 'forms')), render(req)),
  );

  app.post(
    '/forms',
    {
      schema: {
        summary: 'Create a form',
        description: 'Creates a form and its collection (`Form: <name>`, ref `form_<lower-cased id>`, kind form) with default fields; `redirect_url` is a Liquid template.',
        tags: TAGS,
        body: CreateFormBody,
        response: { 201: FormWire, ...errorResponses(400, 422) },
      },
    },
    async (req, reply) => reply.code(201).send(render(req)(await createForm(store, req.principal.orgId, req.body, clock))),
  );

  app.get(
    '/forms/:id',
    { schema: { summary: 'Retrieve a form', description: 'One form with its collection.', tags: TAGS, params: Params, response: { 200: FormWire, ...errorResponses(404) } } },
    async (req) => render(req)(await getForm(store, req.principal.orgId, req.params.id)),
  );

  app.patch(
    '/forms/:id',
    {
      schema: {
        summary: 'Update a form',
        description: 'Changes the given properties; `redirect_url: null` clears the redirect. A new name renames the collection (its ref stays).',
        tags: TAGS,
        params: Params,
        body: UpdateFormBody,
        response: { 200: FormWire, ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => render(req)(await updateForm(store, req.principal.orgId, req.params.id, req.body, clock)),
  );

  app.delete(
    '/forms/:id',
    { schema: { summary: 'Delete a form', description: 'Deletes the form; its collection and submitted items are kept.', tags: TAGS, params: Params, response: { 204: NoContent } } },
    async (req, reply) => {
      await deleteForm(store, req.principal.orgId, req.params.id);
      return reply.code(204).send();
    },
  );
};
