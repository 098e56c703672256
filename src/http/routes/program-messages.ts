// POST /v0/program_messages: accept a message (202); it is sent asynchronously. Tycho extensions: the
// message's delivery (`GET /v0/tycho/program_messages/{id}`), delivery events reported for it
// (`POST /v0/tycho/program_messages/{id}/events`), and the local outbox (`GET /v0/tycho/outbox`), where
// messages go when no SMTP server is configured.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { acceptProgramMessage, getProgramMessage, listOutbox, recipientCollection, reportDeliveryEvent } from '../../domain/program-messages.ts';
import { errorResponses, ListOf, PageQuery } from '../schemas/common.ts';
import { CreateProgramMessageBody, DeliveryEventBody, DeliveryWire, ProgramMessageWire, renderDelivery, renderProgramMessage } from '../schemas/programs.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });
const EXTENSION = ['Tycho extensions'];

export const programMessageRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.post(
    '/program_messages',
    {
      schema: {
        summary: 'Send a program message',
        description:
          'Queues a message of an API-triggered, published program to `person.email` (matched or created in People), rendered with `custom_variables` and the person\'s values. Sending is asynchronous; outcomes are `activity/program_message_*` activities.',
        tags: ['Programs'],
        body: CreateProgramMessageBody,
        // 404: the template named does not exist.
        response: { 202: ProgramMessageWire, ...errorResponses(400, 404, 422) },
      },
    },
    async (req, reply) => {
      const { message, template } = await acceptProgramMessage(store, req.principal, req.body, clock);
      return reply.code(202).send(renderProgramMessage(message, template));
    },
  );

  app.get(
    '/tycho/program_messages/:id',
    {
      schema: {
        summary: 'Delivery of a program message (Tycho extension)',
        description: 'Where a program message stands (queued, sending, sent, failed, shielded, with the reason), what was sent, and its delivery events.',
        tags: EXTENSION,
        params: Params,
        response: { 200: DeliveryWire, ...errorResponses(404) },
      },
    },
    async (req) => {
      const { message } = await getProgramMessage(store, req.principal.orgId, req.params.id);
      return renderDelivery(message, await recipientCollection(store, req.principal.orgId));
    },
  );

  app.post(
    '/tycho/program_messages/:id/events',
    {
      schema: {
        summary: 'Report a delivery event (Tycho extension)',
        description:
          'Reports that a sent message was opened, clicked, bounced, complained about or unsubscribed from: records the activity, counts in the program\'s activity_metrics, and puts the address on the unsubscribe list for `unsubscribed`.',
        tags: EXTENSION,
        params: Params,
        body: DeliveryEventBody,
        response: { 200: DeliveryWire, ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => {
      const message = await reportDeliveryEvent(store, req.principal.orgId, req.params.id, req.body, clock);
      return renderDelivery(message, await recipientCollection(store, req.principal.orgId));
    },
  );

  app.get(
    '/tycho/outbox',
    {
      schema: {
        summary: 'Local outbox (Tycho extension)',
        description: 'Program messages delivered to the local outbox (when no SMTP_URL is configured), oldest first, with what was sent.',
        tags: EXTENSION,
        querystring: PageQuery,
        response: { 200: ListOf(DeliveryWire), ...errorResponses(400) },
      },
    },
    async (req) => {
      const page = await listOutbox(store, req.principal.orgId, listing.page(req, req.query, 'outbox'));
      const people = await recipientCollection(store, req.principal.orgId);
      return listing.envelope(req, 'outbox', page, (m) => renderDelivery(m, people));
    },
  );
};
