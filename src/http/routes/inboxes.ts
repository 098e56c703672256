// /v0/inboxes: list and retrieve (inboxes are created with `tycho inboxes create`); `include[]=tagsets` (or
// the older `tagset`) shows the inbox's tagsets whole.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getInbox, listInboxes } from '../../domain/inboxes.ts';
import { allTagsets, availableIn } from '../../domain/tagsets.ts';
import { ListOf, PageQuery, doc } from '../schemas/common.ts';
import { INBOX_INCLUDES, InboxWire, renderInbox } from '../schemas/inboxes.ts';
import { Include, includesOf } from '../list-query.ts';
import type { RouteDeps } from '../route-deps.ts';

const IncludeTagsets = Include(INBOX_INCLUDES);

const docs = {
  listInboxes: doc('Inboxes', 'List inboxes',
    'The organization\'s inboxes (created with `tycho inboxes create`); `include[]=tagsets` (older SDKs: `tagset`) shows their tagsets whole.'),
  retrieveInbox: doc('Inboxes', 'Retrieve an inbox',
    'One inbox by id; `include[]=tagsets` (older SDKs: `tagset`) shows its tagsets whole.'),
};

export const inboxRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing }) => {
  app.get(
    '/inboxes',
    { schema: { ...docs.listInboxes, querystring: Type.Object({ ...PageQuery.properties, include: IncludeTagsets }), response: { 200: ListOf(InboxWire) } } },
    async (req) => {
      const { include, ...pageQuery } = req.query;
      const fullTagsets = includesOf(include) !== undefined;
      const page = await listInboxes(store, req.principal.orgId, listing.page(req, pageQuery, 'inboxes'));
      const tagsets = await allTagsets(store, req.principal.orgId);
      return listing.envelope(req, 'inboxes', page, (inbox) => renderInbox(inbox, availableIn(tagsets, inbox.id), { fullTagsets }));
    },
  );

  app.get(
    '/inboxes/:id',
    { schema: { ...docs.retrieveInbox, params: Type.Object({ id: Type.String() }), querystring: Type.Object({ include: IncludeTagsets }), response: { 200: InboxWire } } },
    async (req) => {
      const fullTagsets = includesOf(req.query.include) !== undefined;
      const inbox = await getInbox(store, req.principal.orgId, req.params.id);
      return renderInbox(inbox, availableIn(await allTagsets(store, req.principal.orgId), inbox.id), { fullTagsets });
    },
  );
};
