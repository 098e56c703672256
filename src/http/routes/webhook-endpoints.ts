// /v0/webhook_endpoints (reference §5.18): list, create (the only answer with the secret), retrieve, update,
// delete; plus Tycho's extensions on one endpoint: its recent delivery attempts and re-sending an event.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, updateEndpoint } from '../../domain/webhook-endpoints.ts';
import { listAttempts, resendEvent } from '../../domain/webhook-delivery.ts';
import { ErrorEnvelope, ListOf, NoContent, PageQuery } from '../schemas/common.ts';
import {
  AttemptWire,
  CreateEndpointBody,
  DeliveryWire,
  EndpointWire,
  ResendBody,
  UpdateEndpointBody,
  renderAttempt,
  renderDelivery,
  renderEndpoint,
} from '../schemas/webhooks.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });
const TAGS = ['Webhook endpoints'];
const EXTENSION = ['Tycho extensions'];

export const webhookEndpointRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock, webhookUrls }) => {
  app.get(
    '/webhook_endpoints',
    {
      schema: {
        summary: 'List webhook endpoints',
        description: 'The organization\'s webhook endpoints in creation order, without their secrets.',
        tags: TAGS,
        querystring: PageQuery,
        response: { 200: ListOf(EndpointWire), 400: ErrorEnvelope },
      },
    },
    async (req) =>
      listing.envelope(req, 'webhook_endpoints', await listEndpoints(store, req.principal.orgId, listing.page(req, req.query, 'webhook_endpoints')), (e) => renderEndpoint(e)),
  );

  app.post(
    '/webhook_endpoints',
    {
      schema: {
        summary: 'Create a webhook endpoint',
        description: 'Creates an endpoint; the answer is the only one that shows its signing `secret` (`whsec_…`).',
        tags: TAGS,
        body: CreateEndpointBody,
        response: { 201: EndpointWire, 422: ErrorEnvelope },
      },
    },
    async (req, reply) => reply.code(201).send(renderEndpoint(await createEndpoint(store, req.principal.orgId, req.body, webhookUrls, clock), true)),
  );

  app.get(
    '/webhook_endpoints/:id',
    { schema: { summary: 'Retrieve a webhook endpoint', description: 'One endpoint, without its secret.', tags: TAGS, params: Params, response: { 200: EndpointWire, 404: ErrorEnvelope } } },
    async (req) => renderEndpoint(await getEndpoint(store, req.principal.orgId, req.params.id)),
  );

  app.patch(
    '/webhook_endpoints/:id',
    {
      schema: {
        summary: 'Update a webhook endpoint',
        description: 'Changes the URL, the status or the subscriptions (which are replaced as a whole).',
        tags: TAGS,
        params: Params,
        body: UpdateEndpointBody,
        response: { 200: EndpointWire, 404: ErrorEnvelope, 422: ErrorEnvelope },
      },
    },
    async (req) => renderEndpoint(await updateEndpoint(store, req.principal.orgId, req.params.id, req.body, webhookUrls, clock)),
  );

  app.delete(
    '/webhook_endpoints/:id',
    { schema: { summary: 'Delete a webhook endpoint', description: 'Deletes the endpoint with its pending deliveries.', tags: TAGS, params: Params, response: { 204: NoContent } } },
    async (req, reply) => {
      await deleteEndpoint(store, req.principal.orgId, req.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/tycho/webhook_endpoints/:id/attempts',
    {
      schema: {
        summary: "List an endpoint's delivery attempts",
        description: 'Tycho extension: every attempt to deliver to the endpoint in the last 30 days (older ones are deleted), newest first, with its status code, latency, error and the start of the answer.',
        tags: EXTENSION,
        params: Params,
        querystring: PageQuery,
        response: { 200: ListOf(AttemptWire), 400: ErrorEnvelope, 404: ErrorEnvelope },
      },
    },
    async (req) => {
      const list = `webhook_attempts:${req.params.id}`;
      const page = await listAttempts(store, req.principal.orgId, req.params.id, listing.page(req, req.query, list));
      return listing.envelope(req, list, page, renderAttempt);
    },
  );

  app.post(
    '/tycho/webhook_endpoints/:id/deliveries',
    {
      schema: {
        summary: 'Send an event to an endpoint again',
        description:
          'Tycho extension: queues the event for the endpoint as soon as possible with a fresh retry schedule, whether it was delivered, failed or never sent there. The `webhook-id` stays the same.',
        tags: EXTENSION,
        params: Params,
        body: ResendBody,
        response: { 202: DeliveryWire, 404: ErrorEnvelope, 422: ErrorEnvelope },
      },
    },
    async (req, reply) => reply.code(202).send(renderDelivery(await resendEvent(store, req.principal.orgId, req.params.id, req.body.event_id))),
  );
};
