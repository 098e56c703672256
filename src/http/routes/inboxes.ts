// /v0/inboxes: list and retrieve (inboxes are created with `tycho inboxes create`); `include[]=tagsets` (or
// the older `tagset`, which also adds `tagset`: schemas/inboxes.ts) shows the inbox's tagsets whole.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getInbox, listInboxes } from '../../domain/inboxes.ts';
import { allTagsets, availableIn } from '../../domain/tagsets.ts';
import { ListOf, PageQuery, doc } from '../schemas/common.ts';
import { INBOX_INCLUDES, InboxWire, inboxIncludes, renderInbox } from '../schemas/inboxes.ts';
import { Include } from '../list-query.ts';
import type { RouteDeps } from '../route-deps.ts';

const IncludeTagsets = Include(INBOX_INCLUDES);

const docs = {
  listInboxes: doc('Inboxes', 'List inboxes',
    'The organization\'s inboxes (created with `tycho inboxes create`); `include[]=tagsets` shows their tagsets whole. Older SDKs\' `include[]=tagset` does too, and adds `tagset`: the first of them whole, or null.'),
  retrieveInbox: doc('Inboxes', 'Retrieve an inbox',
    'One inbox by id; `include[]=tagsets` shows its tagsets whole. Older SDKs\' `include[]=tagset` does too, and adds `tagset`: the first of them whole, or null.'),
};

export const inboxRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing }) => {
  app.get(
    '/inboxes',
    { schema: { ...docs.listInboxes, querystring: Type.Object({ ...PageQuery.properties, include: IncludeTagsets }), response: { 200: ListOf(InboxWire) } } },
    async (req) => {
      const { include, ...pageQuery } = req.query;
      const asked = inboxIncludes(include);
      const page = await listInboxes(store, req.principal.orgId, listing.page(req, pageQuery, 'inboxes'));
      const tagsets = await allTagsets(store, req.principal.orgId);
      return listing.envelope(req, 'inboxes', page, (inbox) => renderInbox(inbox, availableIn(tagsets, inbox.id), asked));
    },
  );

  app.get(
    '/inboxes/:id',
    { schema: { ...docs.retrieveInbox, params: Type.Object({ id: Type.String() }), querystring: Type.Object({ include: IncludeTagsets }), response: { 200: InboxWire } } },
    async (req) => {
      const asked = inboxIncludes(req.query.include);
      const inbox = await getInbox(store, req.principal.orgId, req.params.id);
      return renderInbox(inbox, availableIn(await allTagsets(store, req.principal.orgId), inbox.id), asked);
    },
  );
};
