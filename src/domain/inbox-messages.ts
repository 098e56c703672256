// Inbox conversations and email messages. The API creates, edits and deletes drafts (attachments:
// message-attachments.ts); Tycho adds an extension that sends a draft (draft → sent, `activity/inbox_message_sent`), so
// every state is reachable. Addresses are matched to people (by email) and organizations (by domain).
import { AppError, invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { recordWrite } from './activity.ts';
import { loadSchema } from './collection-schema.ts';
import { indexKey } from './items.ts';
import { emailAt } from './emails.ts';
import type { ItemAssociation } from './associations.ts';
import type { Principal } from './api-keys.ts';
import type { BodyInput } from './notes.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { BlobStore } from './ports/blob-store.ts';
import type { RecordFilter, RecordRepo, Store } from './ports/store.ts';
import { recordLock } from './locks.ts';

export type AddressRole = 'from' | 'reply_to' | 'to' | 'cc' | 'bcc';

export interface Address {
  id: string;
  email: string;
  role: AddressRole;
  person?: ItemAssociation;
  organization?: ItemAssociation;
}

export interface Conversation {
  id: string;
  orgId: string;
  inboxId: string;
  subject: string;
  state: 'unassigned' | 'active' | 'closed' | 'waiting';
  /** A draft reply exists. */
  draft: boolean;
  /**
   * The time of the newest message, drafts included (a draft counts from its creation, a sent message from
   * its sending); the conversation's creation time while it holds no message. Never null.
   */
  lastMessageAt: string;
  createdAt: string;
  updatedAt: string;
}

export interface Message {
  id: string;
  orgId: string;
  inboxId: string;
  conversationId: string;
  subject: string;
  markdown: string;
  draft: boolean;
  lockVersion: number;
  addresses: Address[];
  createdAt: string;
  sentAt: string | null;
}

export interface Attachment {
  id: string;
  orgId: string;
  messageId: string;
  filename: string;
  contentType: string;
  size: number;
  blobKey: string;
  createdAt: string;
}

export interface Recipient {
  email: string;
  name?: string;
}

export interface DraftInput {
  inbox_id: string;
  conversation_id?: string;
  subject?: string;
  body: BodyInput;
  to?: Recipient[];
  cc?: Recipient[];
  bcc?: Recipient[];
}

export type DraftPatch = Partial<Omit<DraftInput, 'inbox_id' | 'conversation_id'>> & { lock_version: number };

/** A draft's text; `{}` is an empty body (FormattedText's `markdown` is optional). */
function markdownOf(body: BodyInput): string {
  return typeof body === 'string' ? body : (body.markdown ?? '');
}

/** Recipients a draft holds at most (to, cc and bcc together): each is matched to people and organizations. */
const MAX_RECIPIENTS = 1000;

/**
 * The addresses, each with the people item holding its email and the organization item holding its domain
 * when they exist: one read of the value index per collection for all of them.
 */
async function matchAddresses(store: Store, orgId: string, wanted: { email: string; role: AddressRole }[]): Promise<Address[]> {
  const addresses: Address[] = wanted.map(({ email, role }) => ({ id: newId(), email, role }));
  for (const [ref, fieldRef, property, keyOf] of [
    ['people', 'email', 'person', (email: string) => email],
    ['organizations', 'domain', 'organization', (email: string) => email.slice(email.lastIndexOf('@') + 1)],
  ] as const) {
    const schema = await loadSchema(store, orgId, ref);
    const field = schema.byRef.get(fieldRef);
    if (!field) continue;
    const keys = addresses.map((a) => indexKey(field, keyOf(a.email).toLowerCase()).text);
    const holders = await store.items.idsByTextKey(orgId, field.id, keys.filter((k): k is string => k !== null));
    const collection = { id: schema.collection.id, type: 'collection' as const, ref: schema.collection.ref };
    addresses.forEach((address, i) => {
      const [id] = keys[i] === null ? [] : (holders.get(keys[i]!) ?? []);
      if (id) address[property] = { id, type: 'item', collection };
    });
  }
  return addresses;
}

async function recipients(store: Store, orgId: string, input: Partial<DraftInput>, current: Address[] = []): Promise<Address[]> {
  const kept: Address[] = current.filter((a) => a.role === 'from' || a.role === 'reply_to');
  const wanted: { email: string; role: AddressRole }[] = [];
  for (const role of ['to', 'cc', 'bcc'] as const) {
    const list = input[role];
    if (list === undefined) {
      kept.push(...current.filter((a) => a.role === role));
      continue;
    }
    if (list.length > MAX_RECIPIENTS) throw invalidAt(`/${role}`, `a message has at most ${MAX_RECIPIENTS} recipients in to, cc and bcc together, got ${list.length} in ${role}`);
    for (const [i, recipient] of list.entries()) wanted.push({ email: emailAt(recipient.email, `/${role}/${i}/email`), role });
  }
  const count = kept.filter((a) => a.role !== 'from' && a.role !== 'reply_to').length + wanted.length;
  if (count > MAX_RECIPIENTS) {
    const sent = (['to', 'cc', 'bcc'] as const).filter((role) => input[role] !== undefined).at(-1)!;
    throw invalidAt(`/${sent}`, `a message has at most ${MAX_RECIPIENTS} recipients in to, cc and bcc together, got ${count}`);
  }
  // A role not sent keeps its addresses, in their place: the roles in order, each list as it stands.
  return [...kept, ...(await matchAddresses(store, orgId, wanted))].sort((a, b) => ROLES.indexOf(a.role) - ROLES.indexOf(b.role));
}

const ROLES: AddressRole[] = ['from', 'reply_to', 'to', 'cc', 'bcc'];

export async function createDraft(store: Store, principal: Principal, input: DraftInput, clock?: Clock): Promise<Message> {
  const orgId = principal.orgId;
  return store.transaction(async (tx) => {
    const inbox = await tx.inboxes.find(orgId, input.inbox_id);
    if (!inbox) throw invalidAt('/inbox_id', `no inbox has id "${input.inbox_id}"`);
    const markdown = markdownOf(input.body);
    const now = timestamp(clock);
    let conversation: Conversation;
    if (input.conversation_id !== undefined) {
      await tx.lock([recordLock('conversation', input.conversation_id)]);
      const found = await tx.conversations.find(orgId, input.conversation_id);
      if (!found || found.inboxId !== inbox.id) throw invalidAt('/conversation_id', `inbox ${inbox.id} has no conversation "${input.conversation_id}"`);
      conversation = { ...found, draft: true, lastMessageAt: later(found.lastMessageAt, now), updatedAt: now };
      await tx.conversations.update(conversation);
    } else {
      conversation = { id: newId(), orgId, inboxId: inbox.id, subject: input.subject ?? '', state: 'active', draft: true, lastMessageAt: now, createdAt: now, updatedAt: now };
      await tx.conversations.insert(conversation);
    }
    const from = (await matchAddresses(tx, orgId, [{ email: inbox.email, role: 'from' }]))[0]!;
    const message: Message = {
      id: newId(),
      orgId,
      inboxId: inbox.id,
      conversationId: conversation.id,
      subject: input.subject ?? conversation.subject,
      markdown,
      draft: true,
      lockVersion: 0,
      addresses: await recipients(tx, orgId, input, [from]),
      createdAt: now,
      sentAt: null,
    };
    await tx.messages.insert(message);
    return message;
  });
}

export async function getMessage(store: Store, orgId: string, id: string): Promise<Message> {
  return orNotFound(store.messages.find(orgId, id));
}

/**
 * The message, read under its conversation's lock: writes of one conversation (its messages' state, its
 * draft flag and last message time) run one at a time; other conversations' do not wait.
 */
export async function lockedMessage(store: Store, orgId: string, id: string): Promise<Message> {
  const { conversationId } = await getMessage(store, orgId, id);
  await store.lock([recordLock('conversation', conversationId)]);
  return getMessage(store, orgId, id);
}

export async function getConversation(store: Store, orgId: string, id: string): Promise<Conversation> {
  return orNotFound(store.conversations.find(orgId, id));
}

/** The conversations with these ids, by id (unknown ids are skipped). */
export async function conversationsByIds(store: Store, orgId: string, ids: readonly string[]): Promise<Map<string, Conversation>> {
  return new Map((await store.conversations.findMany(orgId, [...new Set(ids)])).map((c) => [c.id, c]));
}

function requireDraft(message: Message, action: string): void {
  if (!message.draft) throw new AppError('invalid_state', `only draft messages can be ${action}; this message has been sent`);
}

export async function updateDraft(store: Store, orgId: string, id: string, patch: DraftPatch): Promise<Message> {
  return store.transaction(async (tx) => {
    const current = await lockedMessage(tx, orgId, id);
    requireDraft(current, 'updated');
    if (patch.lock_version !== current.lockVersion) {
      throw new AppError('stale_lock_version', `lock_version ${patch.lock_version} is stale: the draft is at ${current.lockVersion}; fetch it and apply the change again`);
    }
    const next: Message = { ...current, lockVersion: current.lockVersion + 1 };
    if (patch.subject !== undefined) next.subject = patch.subject;
    if (patch.body !== undefined) next.markdown = markdownOf(patch.body);
    next.addresses = await recipients(tx, orgId, patch, current.addresses);
    await tx.messages.update(next);
    return next;
  });
}

/** Deletes the draft and its attachments, their contents last inside the transaction (as `deleteFile`). */
export async function deleteDraft(store: Store, blobs: BlobStore, orgId: string, id: string, clock?: Clock): Promise<void> {
  await store.transaction(async (tx) => {
    const message = await lockedMessage(tx, orgId, id);
    requireDraft(message, 'deleted');
    const all = await everyRecord(tx.attachments, orgId, { messageId: id });
    for (const a of all) await tx.attachments.delete(orgId, a.id);
    await tx.messages.delete(orgId, id);
    await refreshConversation(tx, orgId, message.conversationId, timestamp(clock));
    await Promise.all(all.map((a) => blobs.delete(a.blobKey)));
  });
}

/** Tycho extension: sends a draft. Nothing leaves the machine; the message becomes sent and the activity is recorded. */
export async function sendDraft(store: Store, principal: Principal, id: string, clock?: Clock): Promise<Message> {
  return store.transaction(async (tx) => {
    const message = await lockedMessage(tx, principal.orgId, id);
    if (!message.draft) throw new AppError('invalid_state', 'this message has already been sent');
    if (!message.addresses.some((a) => a.role === 'to' || a.role === 'cc' || a.role === 'bcc')) {
      throw new AppError('invalid_state', 'a draft needs at least one recipient (to, cc or bcc) before it can be sent');
    }
    const now = timestamp(clock);
    const sent: Message = { ...message, draft: false, sentAt: now };
    await tx.messages.update(sent);
    await refreshConversation(tx, principal.orgId, message.conversationId, now);
    await recordWrite(tx, principal, 'activity/inbox_message_sent', now, { id: message.id, type: 'email_message' });
    return sent;
  });
}

/** Keeps the conversation's `draft` flag (a draft exists) and `last_message_at` current. */
async function refreshConversation(store: Store, orgId: string, id: string, now: string): Promise<void> {
  const conversation = await store.conversations.find(orgId, id);
  if (!conversation) return;
  const messages = await everyRecord(store.messages, orgId, { conversationId: id });
  await store.conversations.update({
    ...conversation,
    draft: messages.some((m) => m.draft),
    lastMessageAt: lastMessageTime(conversation, messages),
    updatedAt: now,
  });
}

/** When a message last happened in the conversation: see `Conversation.lastMessageAt`. */
export function lastMessageTime(conversation: Pick<Conversation, 'createdAt'>, messages: readonly Message[]): string {
  return messages.reduce((latest, m) => later(latest, m.sentAt ?? m.createdAt), messages.length > 0 ? '' : conversation.createdAt);
}

const later = (a: string, b: string): string => (a > b ? a : b);

/** Every row of a repository that `where` selects, read page by page. */
export async function everyRecord<T extends { id: string; orgId: string }, F extends keyof T>(
  repo: RecordRepo<T, F>,
  orgId: string,
  where: RecordFilter<F>,
): Promise<T[]> {
  const all: T[] = [];
  let page = await repo.list(orgId, { limit: 100 }, where);
  all.push(...page.rows);
  while (page.hasNext && page.end) {
    page = await repo.list(orgId, { limit: 100, after: page.end }, where);
    all.push(...page.rows);
  }
  return all;
}

/**
 * What a conversation or message list is narrowed to. Each list holds the ids allowed; the spellings of one
 * filter (`inbox_id[eq]`, `filter[inbox_id][eq]`, `inbox[]`) have already been intersected.
 */
export interface InboxListFilter {
  inboxIds?: string[];
  conversationIds?: string[];
}

/** The name a list's cursors are bound to: the same filter, the same list. */
export const inboxListName = (resource: string, filter: InboxListFilter): string =>
  [resource, (filter.inboxIds ?? []).join(','), ...(filter.conversationIds ? [filter.conversationIds.join(',')] : [])].join('/');

export function listConversations(store: Store, orgId: string, filter: InboxListFilter, page: PageRequest): Promise<Page<Conversation>> {
  return store.conversations.list(orgId, page, {
    ...(filter.inboxIds ? { inboxId: filter.inboxIds } : {}),
    ...(filter.conversationIds ? { id: filter.conversationIds } : {}),
  });
}

export function listMessages(store: Store, orgId: string, filter: InboxListFilter, page: PageRequest): Promise<Page<Message>> {
  return store.messages.list(orgId, page, {
    ...(filter.inboxIds ? { inboxId: filter.inboxIds } : {}),
    ...(filter.conversationIds ? { conversationId: filter.conversationIds } : {}),
  });
}

/** The messages of each conversation, oldest first. */
export async function messagesByConversation(store: Store, orgId: string, conversationIds: readonly string[]): Promise<Map<string, Message[]>> {
  const byConversation = new Map<string, Message[]>(conversationIds.map((id) => [id, []]));
  if (conversationIds.length === 0) return byConversation;
  for (const m of await everyRecord(store.messages, orgId, { conversationId: conversationIds })) byConversation.get(m.conversationId)?.push(m);
  return byConversation;
}

/** Everyone a conversation's messages were from or to: each address (role and email) once, first seen first. */
export function participants(messages: readonly Message[]): Address[] {
  const seen = new Set<string>();
  const result: Address[] = [];
  for (const address of messages.flatMap((m) => m.addresses)) {
    const key = `${address.role} ${address.email}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(address);
  }
  return result;
}
