// /v0/inbox_conversations: list (pointers; filter by inbox) and retrieve (include[] inbox, messages).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getConversation } from '../../domain/inbox-messages.ts';
import { getInbox } from '../../domain/inboxes.ts';
import { allTagsets, availableIn } from '../../domain/tagsets.ts';
import { badParameter } from '../../domain/errors.ts';
import { ListOf, PageQuery } from '../schemas/common.ts';
import { ConversationWire, Pointer, renderConversation, renderMessage } from '../schemas/inbox-messages.ts';
import { renderInbox } from '../schemas/inboxes.ts';
import type { RouteDeps } from '../route-deps.ts';

const Eq = Type.Optional(Type.Object({ eq: Type.Optional(Type.String()) }));
const INCLUDES = ['inbox', 'messages', 'messages.addresses'];

export const conversationRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing }) => {
  app.get(
    '/inbox_conversations',
    {
      schema: {
        querystring: Type.Object({ ...PageQuery.properties, inbox_id: Eq, filter: Type.Optional(Type.Object({ inbox_id: Eq })) }),
        response: { 200: ListOf(Pointer('inbox_conversation')) },
      },
    },
    async (req) => {
      const { after, before, limit, inbox_id, filter } = req.query;
      const inboxId = inbox_id?.eq ?? filter?.inbox_id?.eq;
      const list = `inbox_conversations/${inboxId ?? ''}`;
      const page = await store.conversations.list(req.principal.orgId, listing.page(req, { after, before, limit }, list), inboxId ? { inbox_id: inboxId } : {});
      return listing.envelope(req, list, page, (c) => ({ id: c.id, type: 'inbox_conversation' as const }));
    },
  );

  app.get(
    '/inbox_conversations/:id',
    {
      schema: {
        params: Type.Object({ id: Type.String() }),
        querystring: Type.Object({ include: Type.Optional(Type.Array(Type.String())) }),
        response: { 200: ConversationWire },
      },
    },
    async (req) => {
      const { orgId } = req.principal;
      const include = req.query.include ?? [];
      const unknown = include.find((i) => !INCLUDES.includes(i));
      if (unknown) throw badParameter('include[]', `include[] takes ${INCLUDES.join(', ')}; got "${unknown}"`);
      const conversation = await getConversation(store, orgId, req.params.id);
      const out = renderConversation(conversation);
      if (include.includes('inbox')) {
        const inbox = await getInbox(store, orgId, conversation.inboxId);
        out.inbox = renderInbox(inbox, availableIn(await allTagsets(store, orgId), inbox.id));
      }
      if (include.includes('messages') || include.includes('messages.addresses')) {
        const messages = (await store.messages.list(orgId, { limit: 100 }, { conversation_id: conversation.id })).rows;
        out.messages = messages.map((m) => renderMessage(m, { addresses: include.includes('messages.addresses') }));
      }
      return out;
    },
  );
};
