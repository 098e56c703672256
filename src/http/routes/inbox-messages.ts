// /v0/inbox_messages: list (pointers; full messages when include[] asks for related objects), retrieve
// (include[] addresses, attachments, conversation), drafts (create, update with lock_version, delete), draft
// attachments; and the Tycho extension POST /v0/tycho/inbox_messages/{id}/send. List filters in every
// spelling the SDKs have used: `inbox_id[eq]`, `conversation_id[eq]`, `filter[…][eq]`, `inbox[]`, `conversation[]`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  conversationsByIds,
  createDraft,
  deleteDraft,
  getMessage,
  inboxListName,
  listMessages,
  sendDraft,
  updateDraft,
  type Attachment,
  type Message,
} from '../../domain/inbox-messages.ts';
import { addAttachment, attachmentsByMessage, removeAttachment } from '../../domain/message-attachments.ts';
import { invalidAt } from '../../domain/errors.ts';
import { ListOf, PageQuery, doc, errorResponses, NoContent, EXTENSIONS_TAG } from '../schemas/common.ts';
import {
  AttachmentWire,
  CreateDraftBody,
  MessageWire,
  UpdateDraftBody,
  renderAttachment,
  renderMessage,
} from '../schemas/inbox-messages.ts';
import { idFilters, Include, includesOf, legacyFilterHook } from '../list-query.ts';
import { readAttachmentSource } from '../uploads.ts';
import { withDownloadUrls } from './downloads.ts';
import { contentSink } from '../../domain/files.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });
const INCLUDES = ['addresses', 'attachments', 'conversation'] as const;

const FILTERS = idFilters({ inbox_id: { legacyList: 'inbox' }, conversation_id: { legacyList: 'conversation' } });

const ListQuery = Type.Object({ ...PageQuery.properties, ...FILTERS.properties, include: Include(INCLUDES) });

const docs = {
  listInboxMessages: doc('Inboxes', 'List inbox messages',
    'Messages of the organization\'s inboxes in creation order, whole, as retrieve shows them with the same `include[]` (`addresses`, `attachments`, `conversation`). Filter by inbox and conversation.'),
  createDraftMessage: doc('Inboxes', 'Create a draft message',
    'Creates a draft in a conversation (a new one when no conversation is given).'),
  retrieveInboxMessage: doc('Inboxes', 'Retrieve an inbox message',
    'One message by id; `include[]` adds its `addresses`, `attachments` and `conversation`.'),
  updateDraftMessage: doc('Inboxes', 'Update a draft message',
    'Changes a draft\'s recipients, subject or body. Sent messages cannot change (422).'),
  deleteDraftMessage: doc('Inboxes', 'Delete a draft message',
    'Deletes a draft and its attachments. Sent messages cannot be deleted (422).'),
  attachFileDraft: doc('Inboxes', 'Attach a file to a draft',
    'Uploads one file as `multipart/form-data` (part `file`) and attaches it to the draft.'),
  removeAttachment: doc('Inboxes', 'Remove an attachment',
    'Removes an attachment from a draft.'),
  markDraftAsSent: doc(EXTENSIONS_TAG, 'Mark a draft as sent',
    'Tycho sends no email: this turns a draft into a sent message, as the hosted service does when it delivers it, so clients can test what follows.'),
};

export const messageRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const { store, listing, clock, blobs } = deps;
  const attachmentsOut = (req: FastifyRequest, attachments: Attachment[]) => withDownloadUrls(req, deps)(attachments, renderAttachment);

  /** The messages as objects, with what `include` asks for (read once for all of them). */
  const renderMessages = async (req: FastifyRequest, messages: Message[], include: ReadonlySet<string>) => {
    const { orgId } = req.principal;
    const attachments = include.has('attachments') ? await attachmentsByMessage(store, orgId, messages.map((m) => m.id)) : undefined;
    const conversations = include.has('conversation')
      ? await conversationsByIds(store, orgId, messages.map((m) => m.conversationId))
      : undefined;
    return Promise.all(
      messages.map(async (m) => {
        const conversation = conversations?.get(m.conversationId);
        return renderMessage(m, {
          addresses: include.has('addresses'),
          ...(attachments ? { attachments: await attachmentsOut(req, attachments.get(m.id) ?? []) } : {}),
          ...(conversation ? { conversation } : {}),
        });
      }),
    );
  };

  app.get(
    '/inbox_messages',
    { preValidation: legacyFilterHook, schema: { ...docs.listInboxMessages, querystring: ListQuery, response: { 200: ListOf(MessageWire) } } },
    async (req) => {
      const { after, before, limit } = req.query;
      const include = includesOf(req.query.include) ?? new Set<string>();
      const filters = FILTERS.read(req.query);
      const where = { inboxIds: filters.inbox_id, conversationIds: filters.conversation_id };
      // Named as before (inbox_messages/<inbox>/<conversation>), so cursors of earlier versions stay valid.
      const list = inboxListName('inbox_messages', { ...where, conversationIds: where.conversationIds ?? [] });
      const page = await listMessages(store, req.principal.orgId, where, listing.page(req, { after, before, limit }, list));
      // Whole messages, a superset of the newest API's pointers: the TypeScript, Python and Go SDKs type list
      // elements as whole messages (reading a pointer's body fails or comes back empty).
      return listing.envelope(req, list, { ...page, rows: await renderMessages(req, page.rows, include) }, (m) => m);
    },
  );

  app.post('/inbox_messages', { schema: { ...docs.createDraftMessage, body: CreateDraftBody, response: { 201: MessageWire } } }, async (req, reply) => {
    const message = await createDraft(store, req.principal, req.body, clock);
    return reply.code(201).send(renderMessage(message, { addresses: true }));
  });

  app.get(
    '/inbox_messages/:id',
    { schema: { ...docs.retrieveInboxMessage, params: Params, querystring: Type.Object({ include: Include(INCLUDES) }), response: { 200: MessageWire } } },
    async (req) => {
      const include = includesOf(req.query.include) ?? new Set<string>();
      const [out] = await renderMessages(req, [await getMessage(store, req.principal.orgId, req.params.id)], include);
      return out!;
    },
  );

  app.patch('/inbox_messages/:id', { schema: { ...docs.updateDraftMessage, params: Params, body: UpdateDraftBody, response: { 200: MessageWire } } }, async (req) =>
    renderMessage(await updateDraft(store, req.principal.orgId, req.params.id, req.body), { addresses: true }),
  );

  app.delete('/inbox_messages/:id', { schema: { ...docs.deleteDraftMessage, params: Params, response: { 204: NoContent } } }, async (req, reply) => {
    await deleteDraft(store, blobs, req.principal.orgId, req.params.id, clock);
    return reply.code(204).send();
  });

  app.post(
    '/inbox_messages/:id/attachments',
    { schema: { ...docs.attachFileDraft, params: Params, consumes: ['multipart/form-data', 'application/json'], response: { 201: AttachmentWire } } },
    async (req, reply) => {
      const { orgId } = req.principal;
      // Multipart with a `file` part, or JSON / multipart naming an existing file by `file_id`.
      let source: Awaited<ReturnType<typeof readAttachmentSource>>;
      if (req.isMultipart()) {
        source = await readAttachmentSource(req, contentSink(blobs, orgId, 'attachment'));
      } else {
        const fileId = (req.body as { file_id?: unknown } | undefined)?.file_id;
        if (typeof fileId !== 'string') throw invalidAt('/file_id', 'send a multipart "file" part, or file_id naming a file uploaded with POST /v0/files');
        source = { fileId };
      }
      const attachment = await addAttachment(store, blobs, orgId, req.params.id, source, clock);
      const [out] = await attachmentsOut(req, [attachment]);
      return reply.code(201).send(out!);
    },
  );

  app.delete(
    '/inbox_messages/:message_id/attachments/:id',
    { schema: { ...docs.removeAttachment, params: Type.Object({ message_id: Type.String(), id: Type.String() }), response: { 204: NoContent } } },
    async (req, reply) => {
      await removeAttachment(store, blobs, req.principal.orgId, req.params.message_id, req.params.id);
      return reply.code(204).send();
    },
  );

  app.post('/tycho/inbox_messages/:id/send', { schema: { ...docs.markDraftAsSent, params: Params, response: { 200: MessageWire, ...errorResponses(422) } } }, async (req) =>
    renderMessage(await sendDraft(store, req.principal, req.params.id, clock), { addresses: true }),
  );
};
