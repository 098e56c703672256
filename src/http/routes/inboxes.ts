// /v0/inboxes: list and retrieve (inboxes are created with `tycho inboxes create`).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getInbox, listInboxes } from '../../domain/inboxes.ts';
import { allTagsets, availableIn } from '../../domain/tagsets.ts';
import { ListOf, PageQuery } from '../schemas/common.ts';
import { InboxWire, renderInbox } from '../schemas/inboxes.ts';
import type { RouteDeps } from '../route-deps.ts';

export const inboxRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing }) => {
  app.get('/inboxes', { schema: { querystring: PageQuery, response: { 200: ListOf(InboxWire) } } }, async (req) => {
    const page = await listInboxes(store, req.principal.orgId, listing.page(req, req.query, 'inboxes'));
    const tagsets = await allTagsets(store, req.principal.orgId);
    return listing.envelope(req, 'inboxes', page, (inbox) => renderInbox(inbox, availableIn(tagsets, inbox.id)));
  });

  app.get('/inboxes/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: InboxWire } } }, async (req) => {
    const inbox = await getInbox(store, req.principal.orgId, req.params.id);
    return renderInbox(inbox, availableIn(await allTagsets(store, req.principal.orgId), inbox.id));
  });
};
