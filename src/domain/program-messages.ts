// Program messages (reference §5.10): `POST /program_messages` matches or creates the recipient in People by
// email and queues the message; sending is asynchronous. `sendDue` sends what is due at a given time: it
// claims a batch (moving each claimed message's `due_at` to the end of a lease, so a sender that dies leaves
// its messages to be claimed again), renders each with the template, `custom_variables` and the person's
// values, and hands it to the mailer (SMTP) or, without one, to the local outbox. Each outcome records its
// `activity/program_message_*` activity; a recipient on the unsubscribe list is shielded, not sent. Delivery
// events (opened, clicked, bounced, complained, unsubscribed) are reported through a Tycho extension.
import { AppError, invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { constituent, recordActivity, type Constituent } from './activity.ts';
import { loadSchema, valueContext, type CollectionSchema } from './collection-schema.ts';
import { renderValue } from './field-types/index.ts';
import { indexKey, type Item } from './items.ts';
import { upsertItem } from './item-writes.ts';
import { REPLACE } from './item-values.ts';
import { emailAt } from './emails.ts';
import { addUnsubscribe, findUnsubscribe } from './unsubscribes.ts';
import { renderTemplate, RenderError } from './liquid.ts';
import { getTemplate, type ProgramTemplate } from './programs.ts';
import type { Principal } from './api-keys.ts';
import type { Mailer } from './ports/mailer.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';
import { clockIn, dueTimes, inOrgTime, shiftedBy, type DueScope } from './due-times.ts';
import { storableText } from './characters.ts';

export type MessageStatus = 'queued' | 'sending' | 'sent' | 'failed' | 'shielded';
export const DELIVERY_EVENTS = ['opened', 'clicked', 'bounced', 'complained', 'unsubscribed'] as const;
export type DeliveryEvent = (typeof DELIVERY_EVENTS)[number];

export interface ProgramMessage {
  id: string;
  orgId: string;
  programId: string;
  templateId: string;
  /** The person (item in People) it is sent to. */
  recipientId: string;
  email: string;
  customVariables: Record<string, unknown>;
  status: MessageStatus;
  /** When a queued message is next due; for one being sent, when its sender's lease ends. */
  dueAt: string;
  /** Delivery attempts so far (each claim is one). */
  attempts: number;
  /** Why it was shielded or failed (reference §7.5 reason codes). */
  reasonCode: string | null;
  /** The last delivery error, as the mail server gave it. */
  error: string | null;
  transport: 'smtp' | 'outbox' | null;
  sender: string | null;
  subject: string | null;
  body: string | null;
  sentAt: string | null;
  /** When each delivery event was first reported. */
  events: Partial<Record<DeliveryEvent, string>>;
  createdAt: string;
  updatedAt: string;
}

export interface ProgramMessageInput {
  person: { email: string };
  program_template_id: string;
  custom_variables?: Record<string, unknown>;
}

/** Messages one `sendDue` claims at a time: to the outbox, and over SMTP, where each may take up to the
 * mailer's time limits, so that a whole batch ends well inside the lease. */
const BATCH = { outbox: 50, smtp: 5 };
/** How long a sender may take over a claimed message before another may claim it again. */
const LEASE_MS = 5 * 60_000;
/** Delivery attempts before a message that the mail server keeps refusing fails. */
export const MAX_ATTEMPTS = 3;
/** Wait before attempt n+1: 1, 2, 4… minutes. */
const retryDelayMs = (attempts: number) => 60_000 * 2 ** (attempts - 1);
const VARIABLES_MAX = 64 * 1024;

const later = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();

/** Checks the request, matches or creates the person, and queues the message, due now. */
export async function acceptProgramMessage(store: Store, principal: Principal, input: ProgramMessageInput, clock?: Clock): Promise<{ message: ProgramMessage; template: ProgramTemplate }> {
  const email = emailAt(input.person.email, '/person/email');
  const variables = input.custom_variables ?? {};
  if (JSON.stringify(variables).length > VARIABLES_MAX) throw invalidAt('/custom_variables', `custom_variables must be at most ${VARIABLES_MAX} characters of JSON`);
  return store.transaction(async (tx) => {
    // The recipient is found (or created) in People: like any item write, under the schema lock shared, whose
    // tag read travels with the template's lookup.
    await tx.lockSchema(principal.orgId, 'shared');
    // An unknown template is a 404 (the reference's status matrix), as its own path would be.
    const template = await orNotFound(tx.programTemplates.find(principal.orgId, input.program_template_id));
    const program = await tx.programs.find(principal.orgId, template.programId);
    if (!program || program.status !== 'published' || program.trigger !== 'api') {
      throw invalidAt(
        '/program_template_id',
        `the template's program must be published with trigger "api" to send messages through the API; it is ${program ? `${program.status} with trigger "${program.trigger}"` : 'gone'}`,
      );
    }
    const recipient = await personByEmail(tx, principal, email, clock);
    const now = timestamp(clock);
    const message: ProgramMessage = {
      id: newId(), orgId: principal.orgId, programId: program.id, templateId: template.id, recipientId: recipient, email, customVariables: variables,
      status: 'queued', dueAt: now, attempts: 0, reasonCode: null, error: null, transport: null, sender: null, subject: null, body: null, sentAt: null,
      events: {}, createdAt: now, updatedAt: now,
    };
    await tx.programMessages.insert(message);
    return { message, template };
  });
}

/** The person holding `email` in People, or a new one (upserted, so racing requests make one person). */
async function personByEmail(store: Store, principal: Principal, email: string, clock?: Clock): Promise<string> {
  const people = await loadSchema(store, principal.orgId, 'people');
  const field = people.byRef.get('email');
  if (!field) throw new AppError('invalid_state', 'the People collection has no email field to match recipients on');
  const [found] = await store.items.idsWithKey(principal.orgId, field.id, indexKey(field, email));
  if (found !== undefined) return found;
  return (await upsertItem(store, principal, 'people', { identifiers: { email: { type: 'value/email', data: email } } }, REPLACE, clock)).item.id;
}

export async function getProgramMessage(store: Store, orgId: string, id: string): Promise<{ message: ProgramMessage; template: ProgramTemplate }> {
  const message = await orNotFound(store.programMessages.find(orgId, id));
  return { message, template: await getTemplate(store, orgId, message.templateId) };
}

/** Messages delivered to the local outbox (no SMTP_URL), oldest first. */
export function listOutbox(store: Store, orgId: string, page: PageRequest): Promise<Page<ProgramMessage>> {
  return store.programMessages.listOutbox(orgId, page);
}

export interface SendOptions extends DueScope {
  /**
   * The time the sender acts at (ISO 8601) for every organization but those in `orgClocks`; with `orgId`,
   * that organization's time.
   */
  now: string;
  /** SMTP delivery; without it messages go to the local outbox. */
  mailer?: Mailer;
  /** The From address of every message. */
  from?: string;
  /** Stop after this many messages (all that are due otherwise). */
  limit?: number;
}

export interface SendReport {
  sent: number;
  failed: number;
  shielded: number;
  retried: number;
}

export const DEFAULT_FROM = 'Tycho <tycho@localhost>';

/** Sends every message due at `now` (or its organization's controlled time), in batches; safe to run in several processes at once. */
export async function sendDue(store: Store, options: SendOptions): Promise<SendReport> {
  const report: SendReport = { sent: 0, failed: 0, shielded: 0, retried: 0 };
  const others = () => new Date(options.now);
  let left = options.limit ?? Infinity;
  while (left > 0) {
    const due = dueTimes(others(), options);
    const claimed = await store.programMessages.claimDue(due, shiftedBy(due, LEASE_MS), Math.min(options.mailer ? BATCH.smtp : BATCH.outbox, left));
    if (claimed.length === 0) break;
    left -= claimed.length;
    // One message that cannot be saved (a database error) does not hold up the rest of the batch, which may be
    // other organizations': it stays claimed until its lease runs out and is tried again then.
    let failure: { error: unknown } | undefined;
    for (const message of claimed) {
      const now = timestamp(clockIn(options, message.orgId, others));
      try {
        report[await inOrgTime(options, message.orgId, () => deliver(store, message, { ...options, now }))]++;
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
  return report;
}

type Outcome = keyof SendReport;

async function deliver(store: Store, message: ProgramMessage, options: SendOptions): Promise<Outcome> {
  const { now } = options;
  const template = await store.programTemplates.find(message.orgId, message.templateId);
  const program = await store.programs.find(message.orgId, message.programId);
  if (!template || !program) return finish(store, message, { ...message, status: 'failed', reasonCode: null, error: 'the program or its template was deleted' }, 'failed');
  if (await findUnsubscribe(store, message.orgId, message.email)) {
    return finish(store, message, { ...message, status: 'shielded', reasonCode: 'email_on_unsubscribe_list' }, 'shielded');
  }
  let subject: string;
  let body: string;
  try {
    const variables = await templateVariables(store, message);
    subject = (await renderTemplate(template.subject, variables)).replace(/\s+/g, ' ').trim();
    body = await renderTemplate(template.body, variables);
  } catch (error) {
    if (!(error instanceof RenderError)) throw error;
    return finish(store, message, { ...message, status: 'failed', reasonCode: 'liquid_error', error: error.message }, 'failed');
  }
  const sender = options.from ?? DEFAULT_FROM;
  const rendered = { ...message, subject, body, sender };
  if (options.mailer) {
    try {
      await options.mailer.send({ from: sender, to: message.email, subject, text: body, messageId: `<${message.id}@tycho>` });
    } catch (error) {
      const reason = storableText((error as Error).message);
      if (message.attempts < MAX_ATTEMPTS) {
        return finish(store, message, { ...rendered, status: 'queued', dueAt: later(now, retryDelayMs(message.attempts)), error: reason }, 'retried');
      }
      return finish(store, message, { ...rendered, status: 'failed', reasonCode: null, error: reason }, 'failed');
    }
  }
  return finish(store, message, { ...rendered, status: 'sent', transport: options.mailer ? 'smtp' : 'outbox', sentAt: now, error: null }, 'sent');

  /** Saves the outcome (if this sender still holds the claim) and records its activity. */
  async function finish(store: Store, claimed: ProgramMessage, next: ProgramMessage, outcome: Outcome): Promise<Outcome> {
    const saved = await store.transaction(async (tx) => {
      if (!(await tx.programMessages.complete({ ...next, updatedAt: now }, claimed.attempts))) return false;
      if (outcome !== 'retried') {
        const type = `activity/program_message_${outcome}`;
        await recordActivity(tx, claimed.orgId, type, now, await messageConstituents(tx, claimed, outcome === 'sent' ? 'target' : 'actor'));
      }
      return true;
    });
    // Another sender took the message over after this one's lease ran out; its outcome stands.
    return saved ? outcome : 'retried';
  }
}

/** The collection recipients are items of (People), for their pointers. */
export async function recipientCollection(store: Store, orgId: string): Promise<CollectionSchema['collection']> {
  return (await loadSchema(store, orgId, 'people')).collection;
}

/** The program's objects and the recipient, who is the target of `sent` and the actor of every other kind. */
async function messageConstituents(store: Store, message: ProgramMessage, recipientRelation: 'actor' | 'target', extra: Constituent[] = []): Promise<Constituent[]> {
  const collection = await recipientCollection(store, message.orgId);
  const recipient = constituent(recipientRelation, { id: message.recipientId, type: 'item', collection: { id: collection.id, type: 'collection', ref: collection.ref } });
  const objects = [
    constituent('object', { id: message.templateId, type: 'program_template' }),
    constituent('object', { id: message.programId, type: 'program' }),
    constituent('object', { id: message.id, type: 'program_message' }),
    ...extra,
  ];
  return recipientRelation === 'actor' ? [recipient, ...objects] : [...objects, recipient];
}

/** `custom_variables` at the top level and under `custom_variables`, and the person's values under `person`. */
async function templateVariables(store: Store, message: ProgramMessage): Promise<Record<string, unknown>> {
  const people = await loadSchema(store, message.orgId, 'people');
  const [person] = await store.items.findMany(message.orgId, [message.recipientId]);
  return {
    ...message.customVariables,
    custom_variables: message.customVariables,
    person: { ...(person ? personValues(people, person) : {}), id: message.recipientId, email: message.email },
  };
}

/** Each field's value data by ref; a many-valued field gives its first value. */
function personValues(schema: CollectionSchema, person: Item): Record<string, unknown> {
  const out: Record<string, unknown> = { created_at: person.createdAt, updated_at: person.updatedAt };
  for (const field of schema.fields) {
    const first = person.values[field.id]?.[0];
    if (first !== undefined) out[field.ref] = renderValue(first, valueContext(schema, field)).data;
  }
  return out;
}

export interface DeliveryEventInput {
  type: DeliveryEvent;
}

/**
 * Records a delivery event of a sent message: its activity, the first time of each kind on the message (which
 * `activity_metrics` counts), and for `unsubscribed` the address on the unsubscribe list.
 */
export async function reportDeliveryEvent(store: Store, orgId: string, id: string, input: DeliveryEventInput, clock?: Clock): Promise<ProgramMessage> {
  return store.transaction(async (tx) => {
    const message = await orNotFound(tx.programMessages.find(orgId, id));
    if (message.status !== 'sent') {
      throw new AppError('invalid_state', `only a sent message has delivery events; message ${id} is ${message.status}`);
    }
    const now = timestamp(clock);
    const extra: Constituent[] = [];
    if (input.type === 'unsubscribed') {
      const entry = await addUnsubscribe(tx, orgId, message.email, clock);
      extra.push(constituent('object', { id: entry.id, type: 'unsubscribe' }));
    }
    const first = message.events[input.type] === undefined;
    const next: ProgramMessage = first ? { ...message, events: { ...message.events, [input.type]: now }, updatedAt: now } : message;
    if (first) await tx.programMessages.recordEvent(orgId, id, input.type, now);
    await recordActivity(tx, orgId, `activity/program_message_${input.type}`, now, await messageConstituents(tx, message, 'actor', extra));
    return next;
  });
}
