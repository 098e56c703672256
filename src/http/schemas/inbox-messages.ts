// Wire shapes of conversations, email messages, addresses and attachments (reference §5.7–5.8), the list
// elements (pointers, or full objects when include[] asks for related ones), and the request bodies of drafts.
import { Type, type Static, type TProperties } from 'typebox';
import type { Address, Attachment, Conversation, Message } from '../../domain/inbox-messages.ts';
import { CollectionPointer, Timestamp } from './common.ts';

const ItemPointer = Type.Object({ id: Type.String(), type: Type.Literal('item'), collection: CollectionPointer });
const Recipient = Type.Object({ email: Type.String(), name: Type.Optional(Type.String()) });
const Body = Type.Union([Type.String(), Type.Object({ markdown: Type.String() })], { errorMessage: 'must be {"markdown": "…"} (or the text itself)' });

export const CreateDraftBody = Type.Object({
  inbox_id: Type.String(),
  conversation_id: Type.Optional(Type.String()),
  subject: Type.Optional(Type.String()),
  body: Body,
  to: Type.Optional(Type.Array(Recipient)),
  cc: Type.Optional(Type.Array(Recipient)),
  bcc: Type.Optional(Type.Array(Recipient)),
});

export const UpdateDraftBody = Type.Object({
  lock_version: Type.Integer({ minimum: 0 }),
  subject: Type.Optional(Type.String()),
  body: Type.Optional(Body),
  to: Type.Optional(Type.Array(Recipient)),
  cc: Type.Optional(Type.Array(Recipient)),
  bcc: Type.Optional(Type.Array(Recipient)),
});

export const AttachmentWire = Type.Object({
  id: Type.String(),
  type: Type.Literal('message_attachment'),
  filename: Type.String(),
  size: Type.Integer(),
  download_url: Type.String(),
  created_at: Timestamp,
});

const AddressWire = Type.Object({
  id: Type.String(),
  type: Type.Literal('message_address'),
  email: Type.String(),
  role: Type.String(),
  person: Type.Optional(ItemPointer),
  organization: Type.Optional(ItemPointer),
});

const conversationProperties = {
  id: Type.String(),
  type: Type.Literal('inbox_conversation'),
  subject: Type.String(),
  state: Type.String(),
  tags: Type.Array(Type.Unknown()),
  last_message_at: Timestamp,
  follow_up: Type.Boolean(),
  unread: Type.Boolean(),
  bulk: Type.Boolean(),
  spam: Type.Boolean(),
  trash: Type.Boolean(),
  draft: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const ConversationWire = Type.Object({
  ...conversationProperties,
  inbox: Type.Optional(Type.Unknown()),
  messages: Type.Optional(Type.Array(Type.Unknown())),
  /** Older API generations' `include[]=addresses`: everyone the conversation's messages were from or to. */
  addresses: Type.Optional(Type.Array(AddressWire)),
});

export const MessageWire = Type.Object({
  id: Type.String(),
  type: Type.Literal('email_message'),
  subject: Type.String(),
  body: Type.Object({ markdown: Type.String() }),
  draft: Type.Boolean(),
  unread: Type.Boolean(),
  spam: Type.Boolean(),
  trash: Type.Boolean(),
  bulk: Type.Boolean(),
  lock_version: Type.Integer(),
  addresses: Type.Optional(Type.Array(AddressWire)),
  attachments: Type.Optional(Type.Array(AttachmentWire)),
  conversation: Type.Optional(Type.Object(conversationProperties)),
  created_at: Timestamp,
});

export const Pointer = (type: string) => Type.Object({ id: Type.String(), type: Type.Literal(type) });

/** A list element: the pointer (`id`, `type`) always, the other properties when the full object is listed. */
const pointerOrFull = <P extends TProperties>(properties: P) =>
  Type.Object(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, k === 'id' || k === 'type' ? v : Type.Optional(v)])) as TProperties);

export const ConversationListElement = pointerOrFull(ConversationWire.properties);
export const MessageListElement = pointerOrFull(MessageWire.properties);

export interface ConversationExtras {
  inbox?: unknown;
  messages?: unknown[];
  addresses?: Address[];
}

export function renderConversation(c: Conversation, extras: ConversationExtras = {}): Static<typeof ConversationWire> {
  const out: Static<typeof ConversationWire> = {
    id: c.id,
    type: 'inbox_conversation',
    subject: c.subject,
    state: c.state,
    tags: [],
    last_message_at: c.lastMessageAt,
    follow_up: false,
    unread: false,
    bulk: false,
    spam: false,
    trash: false,
    draft: c.draft,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
  if (extras.inbox !== undefined) out.inbox = extras.inbox;
  if (extras.messages) out.messages = extras.messages;
  if (extras.addresses) out.addresses = extras.addresses.map(renderAddress);
  return out;
}

const renderAddress = (a: Address): Static<typeof AddressWire> => ({ ...a, type: 'message_address' as const });

export interface MessageExtras {
  attachments?: Static<typeof AttachmentWire>[];
  conversation?: Conversation;
  addresses?: boolean;
}

export function renderMessage(m: Message, extras: MessageExtras = {}): Static<typeof MessageWire> {
  const out: Static<typeof MessageWire> = {
    id: m.id,
    type: 'email_message',
    subject: m.subject,
    body: { markdown: m.markdown },
    draft: m.draft,
    unread: false,
    spam: false,
    trash: false,
    bulk: false,
    lock_version: m.lockVersion,
    created_at: m.createdAt,
  };
  if (extras.addresses) out.addresses = m.addresses.map(renderAddress);
  if (extras.attachments) out.attachments = extras.attachments;
  if (extras.conversation) out.conversation = renderConversation(extras.conversation);
  return out;
}

export function renderAttachment(a: Attachment, downloadUrl: string): Static<typeof AttachmentWire> {
  return { id: a.id, type: 'message_attachment', filename: a.filename, size: a.size, download_url: downloadUrl, created_at: a.createdAt };
}
