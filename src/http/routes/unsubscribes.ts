// /v0/unsubscribes: list, add (200, also when already listed), remove by URL-encoded address (404 unknown).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { addUnsubscribe, listUnsubscribes, removeUnsubscribe } from '../../domain/unsubscribes.ts';
import { errorResponses, ListOf, NoContent, PageQuery } from '../schemas/common.ts';
import { CreateUnsubscribeBody, renderUnsubscribe, UnsubscribeWire } from '../schemas/unsubscribes.ts';
import type { RouteDeps } from '../route-deps.ts';

const TAGS = ['Unsubscribes'];

export const unsubscribeRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get(
    '/unsubscribes',
    {
      schema: {
        summary: 'List unsubscribes',
        description: 'Addresses program messages are not sent to, in the order they were added.',
        tags: TAGS,
        querystring: PageQuery,
        response: { 200: ListOf(UnsubscribeWire), ...errorResponses(400) },
      },
    },
    async (req) =>
      listing.envelope(req, 'unsubscribes', await listUnsubscribes(store, req.principal.orgId, listing.page(req, req.query, 'unsubscribes')), renderUnsubscribe),
  );

  app.post(
    '/unsubscribes',
    {
      schema: {
        summary: 'Add an unsubscribe',
        description: 'Puts an address (lower-cased) on the unsubscribe list; adding a listed address answers its entry.',
        tags: TAGS,
        body: CreateUnsubscribeBody,
        response: { 200: UnsubscribeWire, ...errorResponses(400, 422) },
      },
    },
    async (req) => renderUnsubscribe(await addUnsubscribe(store, req.principal.orgId, req.body.email, clock)),
  );

  app.delete(
    '/unsubscribes/:email',
    {
      schema: {
        summary: 'Remove an unsubscribe',
        description: 'Takes the address (URL-encoded in the path) off the unsubscribe list.',
        tags: TAGS,
        params: Type.Object({ email: Type.String() }),
        response: { 204: NoContent },
      },
    },
    async (req, reply) => {
      await removeUnsubscribe(store, req.principal.orgId, req.params.email);
      return reply.code(204).send();
    },
  );
};
