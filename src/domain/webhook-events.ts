// What a webhook carries: the per-type activity object of reference §7.5 (`item`, `note`, `related_items` …),
// not the `constituents` shape of GET /activities, under a message id (`msg_…`) that is the same on every
// retry and every endpoint. The event feed extension serves the same ids and bodies.
import type { Activity, Constituent, Entity } from './activity.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';

export const MESSAGE_PREFIX = 'msg_';

/** The Standard Webhooks message id of an activity's notification. */
export const messageId = (activityId: string) => `${MESSAGE_PREFIX}${activityId}`;

/** The activity id a message id (or a bare activity id) names. */
export const activityIdOf = (id: string) => (id.startsWith(MESSAGE_PREFIX) ? id.slice(MESSAGE_PREFIX.length) : id);

/** The constituents of one activity, by role. */
class Parts {
  constructor(private readonly constituents: readonly Constituent[]) {}

  all(relation: Constituent['relation'], type?: string): Entity[] {
    return this.constituents.filter((c) => c.relation === relation && (type === undefined || c.entity.type === type)).map((c) => c.entity);
  }

  /** The first entity in this role (of this type), or null when the referent is not recorded. */
  one(relation: Constituent['relation'], type?: string): Entity | null {
    return this.all(relation, type)[0] ?? null;
  }
}

type Shape = (parts: Parts) => Record<string, unknown>;

const programMessage: Shape = (p) => ({
  program_message: p.one('object', 'program_message'),
  recipient: p.one('target', 'item') ?? p.one('actor', 'item'),
});

/** The extra properties of each activity type (reference §7.5); GET /activities shows them too (activity.ts). */
const SHAPES: Record<string, Shape> = {
  'activity/call_occurred': (p) => ({ call: p.one('object', 'call') }),
  'activity/file_created': (p) => ({ file: p.one('object', 'file'), related_item: p.one('target', 'item') }),
  'activity/form_submitted': (p) => ({ item: p.one('object', 'item') }),
  'activity/inbox_message_sent': (p) => ({ message: p.one('object', 'email_message') }),
  'activity/item_created': (p) => ({ item: p.one('object', 'item') }),
  'activity/item_mentioned': (p) => ({ item: p.one('target', 'item'), author: p.one('actor', 'item'), note: p.one('object', 'note') }),
  'activity/item_merged': (p) => ({ source: p.one('object', 'item'), destination: p.one('target', 'item'), initiator: p.one('actor', 'item') }),
  'activity/meeting_held': (p) => ({ meeting: p.one('object', 'meeting') }),
  'activity/meeting_scheduled': (p) => ({ meeting: p.one('object', 'meeting') }),
  'activity/note_created': (p) => ({ note: p.one('object', 'note'), related_items: p.all('target', 'item'), related_meeting: p.one('target', 'meeting') }),
};

/** What a program message's own record adds to its events: the address it went to, and why it was not sent. */
export interface MessageFacts {
  email: string;
  reasonCode: string | null;
}

/** The optional properties of §7.5 a program message event carries, from the message's record. */
function messageExtras(type: string, facts: MessageFacts): Record<string, unknown> {
  switch (type) {
    case 'activity/program_message_sent':
      return { recipient_emails: [facts.email] };
    case 'activity/program_message_bounced':
      // A message has one recipient: the address that bounced. The bounce type is not reported to Tycho.
      return { bounced_recipient_emails: [facts.email] };
    case 'activity/program_message_failed':
    case 'activity/program_message_shielded':
      return facts.reasonCode === null ? {} : { reason_code: facts.reasonCode };
    case 'activity/program_message_unsubscribed':
      return { email: facts.email };
    default:
      return {};
  }
}

/** Every property a per-type shape may add: the wire schema of an activity lists them. */
export const PER_TYPE_PROPERTIES = [
  'item', 'note', 'related_item', 'related_items', 'related_meeting', 'file', 'call', 'message', 'meeting',
  'source', 'destination', 'initiator', 'author', 'program_message', 'recipient',
] as const;

/** The body of the webhook (and feed entry) for an activity; `facts` are its program message's, if any. */
export function webhookPayload(activity: Activity, facts?: MessageFacts): Record<string, unknown> {
  const parts = new Parts(activity.constituents);
  const shape = SHAPES[activity.type] ?? (activity.type.startsWith('activity/program_message_') ? programMessage : () => ({}));
  return { id: activity.id, type: activity.type, occurred_at: activity.occurredAt, ...shape(parts), ...(facts ? messageExtras(activity.type, facts) : {}) };
}

/**
 * The payload with what the activity's program message adds, read from the message (its address and reason
 * never change once the event is recorded, so every retry carries the same body).
 */
export async function payloadOf(store: Store, activity: Activity): Promise<Record<string, unknown>> {
  const message = activity.type.startsWith('activity/program_message_') ? new Parts(activity.constituents).one('object', 'program_message') : null;
  const found = message ? await store.programMessages.find(activity.orgId, message.id) : undefined;
  return webhookPayload(activity, found);
}

export interface WebhookEvent {
  messageId: string;
  eventType: string;
  payload: Record<string, unknown>;
}

/** The feed: every event of the organization in recording order, oldest first, optionally of some types only. */
export async function listEvents(store: Store, orgId: string, types: string[] | undefined, page: PageRequest): Promise<Page<WebhookEvent>> {
  const found = await store.activities.inOrder(orgId, types, page);
  const rows: WebhookEvent[] = [];
  for (const activity of found.rows) rows.push({ messageId: messageId(activity.id), eventType: activity.type, payload: await payloadOf(store, activity) });
  return { ...found, rows };
}
