// /v0/inbox_conversations: list (pointers; full conversations when include[] asks for related objects) and
// retrieve. Filters in every spelling the SDKs have used: `inbox_id[eq]`, `filter[inbox_id][eq]`,
// `filter[conversation_id][eq]`, `inbox[]`; includes `inbox`, `messages`, `messages.addresses`, and the older
// `addresses` and `tags`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  getConversation,
  inboxListName,
  listConversations,
  messagesByConversation,
  participants,
  type Conversation,
} from '../../domain/inbox-messages.ts';
import { allTagsets, availableIn } from '../../domain/tagsets.ts';
import { inboxesByIds } from '../../domain/inboxes.ts';
import type { Store } from '../../domain/ports/store.ts';
import { ListOf, PageQuery, doc } from '../schemas/common.ts';
import { ConversationWire, renderConversation, renderMessage } from '../schemas/inbox-messages.ts';
import { renderInbox } from '../schemas/inboxes.ts';
import { idFilters, Include, includesOf, legacyFilterHook } from '../list-query.ts';
import type { RouteDeps } from '../route-deps.ts';

/** `tags` is always present; `addresses` (participants) is what the oldest SDKs ask for. */
const INCLUDES = ['inbox', 'messages', 'messages.addresses', 'addresses', 'tags'] as const;

const FILTERS = idFilters({ inbox_id: { legacyList: 'inbox' }, conversation_id: {} });

const ListQuery = Type.Object({ ...PageQuery.properties, ...FILTERS.properties, include: Include(INCLUDES) });

/** The conversations as objects, with what `include` asks for (read once for all of them). */
async function renderConversations(store: Store, orgId: string, conversations: Conversation[], include: ReadonlySet<string>) {
  const wantsMessages = include.has('messages') || include.has('messages.addresses') || include.has('addresses');
  const messages = wantsMessages ? await messagesByConversation(store, orgId, conversations.map((c) => c.id)) : undefined;
  const inboxes = new Map<string, unknown>();
  if (include.has('inbox')) {
    const tagsets = await allTagsets(store, orgId);
    const found = await inboxesByIds(store, orgId, conversations.map((c) => c.inboxId));
    for (const inbox of found) inboxes.set(inbox.id, renderInbox(inbox, availableIn(tagsets, inbox.id)));
  }
  return conversations.map((c) => {
    const own = messages?.get(c.id) ?? [];
    return renderConversation(c, {
      ...(include.has('inbox') ? { inbox: inboxes.get(c.inboxId) } : {}),
      ...(include.has('messages') || include.has('messages.addresses')
        ? { messages: own.map((m) => renderMessage(m, { addresses: include.has('messages.addresses') })) }
        : {}),
      ...(include.has('addresses') ? { addresses: participants(own) } : {}),
    });
  });
}

const docs = {
  listInboxConversations: doc('Inboxes', 'List inbox conversations',
    'Conversations of the organization\'s inboxes in creation order, whole, as retrieve shows them with the same `include[]` (`inbox`, `messages`, `messages.addresses`, `addresses`, `tags`). Filter by `inbox_id[eq]` (or `inbox[]`) and `conversation_id[eq]`.'),
  retrieveInboxConversation: doc('Inboxes', 'Retrieve an inbox conversation',
    'One conversation by id; `include[]` adds its `inbox`, `messages` and `messages.addresses` (older SDKs: `addresses`, everyone its messages were from or to, and `tags`, always present).'),
};

export const conversationRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing }) => {
  app.get(
    '/inbox_conversations',
    {
      preValidation: legacyFilterHook,
      schema: { ...docs.listInboxConversations, querystring: ListQuery, response: { 200: ListOf(ConversationWire) } },
    },
    async (req) => {
      const { orgId } = req.principal;
      const { after, before, limit } = req.query;
      const include = includesOf(req.query.include) ?? new Set<string>();
      const filters = FILTERS.read(req.query);
      const where = { inboxIds: filters.inbox_id, conversationIds: filters.conversation_id };
      const list = inboxListName('inbox_conversations', where);
      const page = await listConversations(store, orgId, where, listing.page(req, { after, before, limit }, list));
      // Whole conversations, a superset of the newest API's pointers: the TypeScript, Python and Go SDKs type
      // list elements as whole conversations (reading a pointer's subject fails or comes back empty).
      const rendered = await renderConversations(store, orgId, page.rows, include);
      return listing.envelope(req, list, { ...page, rows: rendered }, (c) => c);
    },
  );

  app.get(
    '/inbox_conversations/:id',
    {
      schema: {
        ...docs.retrieveInboxConversation,
        params: Type.Object({ id: Type.String() }),
        querystring: Type.Object({ include: Include(INCLUDES) }),
        response: { 200: ConversationWire },
      },
    },
    async (req) => {
      const { orgId } = req.principal;
      const include = includesOf(req.query.include) ?? new Set<string>();
      const conversation = await getConversation(store, orgId, req.params.id);
      const [out] = await renderConversations(store, orgId, [conversation], include);
      return out!;
    },
  );
};
