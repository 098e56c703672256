// /v0/calls: log a call, upsert one by provider call id, list, retrieve; `include[]` ∈ transcript, note, summary.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callExtras, createCall, getCall, listCalls, upsertCall } from '../../domain/calls.ts';
import { ListOf, PageQuery, doc } from '../schemas/common.ts';
import { CALL_INCLUDES, CallBody, CallWire, renderCall } from '../schemas/calls.ts';
import { Include, includesOf } from '../list-query.ts';
import type { RouteDeps } from '../route-deps.ts';

const IncludeCall = Include(CALL_INCLUDES);

const docs = {
  listCalls: doc('Calls', 'List calls',
    'Calls in creation order; `include[]` adds `transcript`, `note` (the newest note on the call) and `summary`.'),
  logCall: doc('Calls', 'Log a call',
    'Records a call with its participants (matched to people, and their organizations, by phone number), recordings, transcript and tags.'),
  createUpdateCall: doc('Calls', 'Create or update a call',
    'Creates the call, or updates the one with the same provider id: 201 when created, 200 when updated.'),
  retrieveCall: doc('Calls', 'Retrieve a call',
    'One call by id; `include[]` adds `transcript`, `note` (the newest note on the call) and `summary`.'),
};

export const callRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get(
    '/calls',
    { schema: { ...docs.listCalls, querystring: Type.Object({ ...PageQuery.properties, include: IncludeCall }), response: { 200: ListOf(CallWire) } } },
    async (req) => {
      const { include, ...pageQuery } = req.query;
      const wanted = includesOf(include) ?? new Set<string>();
      const orgId = req.principal.orgId;
      const page = await listCalls(store, orgId, listing.page(req, pageQuery, 'calls'));
      const extras = new Map(await Promise.all(page.rows.map(async (call) => [call.id, await callExtras(store, orgId, call, wanted)] as const)));
      return listing.envelope(req, 'calls', page, (call) => renderCall(call, wanted, extras.get(call.id)));
    },
  );

  app.post('/calls', { schema: { ...docs.logCall, body: CallBody, response: { 201: CallWire } } }, async (req, reply) =>
    reply.code(201).send(renderCall(await createCall(store, req.principal, req.body, clock))),
  );

  app.post('/calls/upsert', { schema: { ...docs.createUpdateCall, body: CallBody, response: { 200: CallWire, 201: CallWire } } }, async (req, reply) => {
    const { call, created } = await upsertCall(store, req.principal, req.body, clock);
    return reply.code(created ? 201 : 200).send(renderCall(call));
  });

  app.get(
    '/calls/:id',
    { schema: { ...docs.retrieveCall, params: Type.Object({ id: Type.String() }), querystring: Type.Object({ include: IncludeCall }), response: { 200: CallWire } } },
    async (req) => {
      const wanted = includesOf(req.query.include) ?? new Set<string>();
      const call = await getCall(store, req.principal.orgId, req.params.id);
      return renderCall(call, wanted, await callExtras(store, req.principal.orgId, call, wanted));
    },
  );
};
