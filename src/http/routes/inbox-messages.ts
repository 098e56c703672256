// /v0/inbox_messages: list (pointers), retrieve (include[] addresses, attachments, conversation), drafts
// (create, update with lock_version, delete), draft attachments; and the Tycho extension
// POST /v0/tycho/inbox_messages/{id}/send.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { createDraft, deleteDraft, getConversation, getMessage, sendDraft, updateDraft, type Attachment } from '../../domain/inbox-messages.ts';
import { addAttachment, listAttachments, removeAttachment } from '../../domain/message-attachments.ts';
import { badParameter, invalidAt } from '../../domain/errors.ts';
import { ListOf, PageQuery } from '../schemas/common.ts';
import { AttachmentWire, CreateDraftBody, MessageWire, Pointer, UpdateDraftBody, renderAttachment, renderMessage } from '../schemas/inbox-messages.ts';
import { readUpload } from '../uploads.ts';
import { downloadUrl } from './downloads.ts';
import type { RouteDeps } from '../route-deps.ts';

const Eq = Type.Optional(Type.Object({ eq: Type.Optional(Type.String()) }));
const Params = Type.Object({ id: Type.String() });
const INCLUDES = ['addresses', 'attachments', 'conversation'];

export const messageRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock, blobs, downloads }) => {
  const attachmentOut = (req: FastifyRequest) => (a: Attachment) => renderAttachment(a, downloadUrl(req, downloads, clock, a.orgId, a.id));

  app.get(
    '/inbox_messages',
    {
      schema: {
        querystring: Type.Object({
          ...PageQuery.properties,
          inbox_id: Eq,
          conversation_id: Eq,
          filter: Type.Optional(Type.Object({ inbox_id: Eq, conversation_id: Eq })),
        }),
        response: { 200: ListOf(Pointer('email_message')) },
      },
    },
    async (req) => {
      const { after, before, limit, inbox_id, conversation_id, filter } = req.query;
      const where: Record<string, string> = {};
      const inboxId = inbox_id?.eq ?? filter?.inbox_id?.eq;
      const conversationId = conversation_id?.eq ?? filter?.conversation_id?.eq;
      if (inboxId) where.inbox_id = inboxId;
      if (conversationId) where.conversation_id = conversationId;
      const list = `inbox_messages/${inboxId ?? ''}/${conversationId ?? ''}`;
      const page = await store.messages.list(req.principal.orgId, listing.page(req, { after, before, limit }, list), where);
      return listing.envelope(req, list, page, (m) => ({ id: m.id, type: 'email_message' as const }));
    },
  );

  app.post('/inbox_messages', { schema: { body: CreateDraftBody, response: { 201: MessageWire } } }, async (req, reply) => {
    const message = await createDraft(store, req.principal, req.body, clock);
    return reply.code(201).send(renderMessage(message, { addresses: true }));
  });

  app.get(
    '/inbox_messages/:id',
    { schema: { params: Params, querystring: Type.Object({ include: Type.Optional(Type.Array(Type.String())) }), response: { 200: MessageWire } } },
    async (req) => {
      const { orgId } = req.principal;
      const include = req.query.include ?? [];
      const unknown = include.find((i) => !INCLUDES.includes(i));
      if (unknown) throw badParameter('include[]', `include[] takes ${INCLUDES.join(', ')}; got "${unknown}"`);
      const message = await getMessage(store, orgId, req.params.id);
      return renderMessage(message, {
        addresses: include.includes('addresses'),
        ...(include.includes('attachments') ? { attachments: (await listAttachments(store, orgId, message.id)).map(attachmentOut(req)) } : {}),
        ...(include.includes('conversation') ? { conversation: await getConversation(store, orgId, message.conversationId) } : {}),
      });
    },
  );

  app.patch('/inbox_messages/:id', { schema: { params: Params, body: UpdateDraftBody, response: { 200: MessageWire } } }, async (req) =>
    renderMessage(await updateDraft(store, req.principal.orgId, req.params.id, req.body), { addresses: true }),
  );

  app.delete('/inbox_messages/:id', { schema: { params: Params } }, async (req, reply) => {
    await deleteDraft(store, blobs, req.principal.orgId, req.params.id, clock);
    return reply.code(204).send();
  });

  app.post(
    '/inbox_messages/:id/attachments',
    { schema: { params: Params, response: { 201: AttachmentWire } } },
    async (req, reply) => {
      const { orgId } = req.principal;
      // Multipart with a `file` part, or JSON / multipart naming an existing file by `file_id`.
      let source: { fileId: string } | { upload: Awaited<ReturnType<typeof readUpload>> };
      if (req.isMultipart()) {
        const upload = await readUpload(req, { fileOptional: true });
        source = upload.fileId !== undefined && upload.data.length === 0 ? { fileId: upload.fileId } : { upload };
      } else {
        const fileId = (req.body as { file_id?: unknown } | undefined)?.file_id;
        if (typeof fileId !== 'string') throw invalidAt('/file_id', 'send a multipart "file" part, or file_id naming a file uploaded with POST /v0/files');
        source = { fileId };
      }
      const attachment = await addAttachment(store, blobs, orgId, req.params.id, source, clock);
      return reply.code(201).send(attachmentOut(req)(attachment));
    },
  );

  app.delete(
    '/inbox_messages/:message_id/attachments/:id',
    { schema: { params: Type.Object({ message_id: Type.String(), id: Type.String() }) } },
    async (req, reply) => {
      await removeAttachment(store, blobs, req.principal.orgId, req.params.message_id, req.params.id);
      return reply.code(204).send();
    },
  );

  app.post('/tycho/inbox_messages/:id/send', { schema: { params: Params, response: { 200: MessageWire } } }, async (req) =>
    renderMessage(await sendDraft(store, req.principal, req.params.id, clock), { addresses: true }),
  );
};
