// Wire shapes of conversations, email messages, addresses and attachments (reference §5.7–5.8), the list
// elements (pointers, or full objects when include[] asks for related ones), and the request bodies of drafts.
import { Type, type Static } from 'typebox';
import type { Address, Attachment, Conversation, Message } from '../../domain/inbox-messages.ts';
import { CollectionPointer, Timestamp } from './common.ts';

const ItemPointer = Type.Object({ id: Type.String(), type: Type.Literal('item'), collection: CollectionPointer });
const Recipient = Type.Object({ email: Type.String(), name: Type.Optional(Type.String()) });
const Body = Type.Union([Type.String(), Type.Object({ markdown: Type.Optional(Type.String()) })], { errorMessage: 'must be {"markdown": "…"} (or the text itself)' });

export const CreateDraftBody = Type.Object(
  {
    inbox_id: Type.String(),
    conversation_id: Type.Optional(Type.String()),
    subject: Type.Optional(Type.String()),
    body: Body,
    to: Type.Optional(Type.Array(Recipient)),
    cc: Type.Optional(Type.Array(Recipient)),
    bcc: Type.Optional(Type.Array(Recipient)),
  },
  { examples: [{ inbox_id: '1CLJt2v5ZqLm2XfVb7Kdsw', subject: 'Your renewal', body: { markdown: 'Hello Ada,\n\nyour plan renews on **1 March**.' }, to: [{ email: 'ada@acme.com', name: 'Ada Lovelace' }] }] },
);

export const UpdateDraftBody = Type.Object(
  {
    lock_version: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    subject: Type.Optional(Type.String()),
    body: Type.Optional(Body),
    to: Type.Optional(Type.Array(Recipient)),
    cc: Type.Optional(Type.Array(Recipient)),
    bcc: Type.Optional(Type.Array(Recipient)),
  },
  { examples: [{ lock_version: 0, subject: 'Your renewal on 1 March', cc: [{ email: 'billing@acme.com' }] }] },
);

export const AttachmentWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('message_attachment'),
    filename: Type.String(),
    size: Type.Integer(),
    download_url: Type.String(),
    created_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5bMx4QcTy8Hgkne',
        type: 'message_attachment',
        filename: 'invoice.pdf',
        size: 20480,
        download_url: 'https://tycho.example.com/tycho/downloads/1CLJt2v5K2gT7vQa5Xe3Lm/1CLJt2v5bMx4QcTy8Hgkne?expires=1739811600&signature=Zk3a9Qe2Vb7Xw1Lm5Nc8Rg',
        created_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

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

const conversationExample = {
  id: '1CLJt2v5cFq7WnRz4Bdhtx',
  type: 'inbox_conversation',
  subject: 'Your renewal',
  state: 'active',
  tags: [],
  last_message_at: '2025-02-17T16:00:00.000Z',
  follow_up: false,
  unread: false,
  bulk: false,
  spam: false,
  trash: false,
  draft: true,
  created_at: '2025-02-17T16:00:00.000Z',
  updated_at: '2025-02-17T16:00:00.000Z',
};

export const ConversationWire = Type.Object(
  {
    ...conversationProperties,
    inbox: Type.Optional(Type.Unknown()),
    messages: Type.Optional(Type.Array(Type.Unknown())),
    /** Older API generations' `include[]=addresses`: everyone the conversation's messages were from or to. */
    addresses: Type.Optional(Type.Array(AddressWire)),
  },
  { examples: [conversationExample] },
);

export const MessageWire = Type.Object(
  {
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
  },
  {
    examples: [
      {
        id: '1CLJt2v5cxV2MbKs6Pfjqa',
        type: 'email_message',
        subject: 'Your renewal',
        body: { markdown: 'Hello Ada,\n\nyour plan renews on **1 March**.' },
        draft: true,
        unread: false,
        spam: false,
        trash: false,
        bulk: false,
        lock_version: 0,
        addresses: [{ id: '1CLJt2v5dDg8XhNw3Tcmrb', type: 'message_address', email: 'ada@acme.com', role: 'to' }],
        conversation: conversationExample,
        created_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

export const Pointer = (type: string) => Type.Object({ id: Type.String(), type: Type.Literal(type) });


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
