// Webhook endpoints (reference §5.18): where an organization's events are sent, which event types each one
// subscribes to (the 18 activity types), and whether it is enabled. The signing secret is made here and shown
// only in the create response.
import { randomBytes } from 'node:crypto';
import { ACTIVITY_TYPES } from './activity.ts';
import { invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { MAX_PAGE_LIMIT, type Page, type PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';
import { checkWebhookUrl, type WebhookUrlPolicy } from './webhook-urls.ts';
import { recordLock } from './locks.ts';

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

export interface WebhookSubscription {
  id: string;
  eventType: string;
}

export interface WebhookEndpoint {
  id: string;
  orgId: string;
  url: string;
  status: EndpointStatus;
  /** `whsec_` + base64 of the 32-byte signing key (the Standard Webhooks secret format). */
  secret: string;
  subscriptions: WebhookSubscription[];
  /** When the current run of failed attempts began; null while the endpoint answers. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface EndpointInput {
  url?: string;
  status?: EndpointStatus;
  subscriptions?: { event_type: string; id?: string }[];
}

const EVENT_TYPES = new Set<string>(ACTIVITY_TYPES);

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export async function createEndpoint(store: Store, orgId: string, input: EndpointInput & { url: string }, policy: WebhookUrlPolicy, clock?: Clock): Promise<WebhookEndpoint> {
  const now = timestamp(clock);
  const endpoint: WebhookEndpoint = {
    id: newId(),
    orgId,
    url: checkWebhookUrl(input.url, policy),
    status: input.status ?? 'enabled',
    secret: newSecret(),
    // A new endpoint has no subscriptions to change: ids (say, copied from another endpoint) are ignored.
    subscriptions: checkSubscriptions((input.subscriptions ?? []).map((s) => ({ event_type: s.event_type })), []),
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  await store.transaction((tx) => tx.webhookEndpoints.insert(endpoint));
  return endpoint;
}

export const getEndpoint = (store: Store, orgId: string, id: string): Promise<WebhookEndpoint> => orNotFound(store.webhookEndpoints.find(orgId, id));

export const listEndpoints = (store: Store, orgId: string, page: PageRequest): Promise<Page<WebhookEndpoint>> => store.webhookEndpoints.list(orgId, page);

/** `subscriptions`, when sent, replaces the set; an event type subscribed before keeps its subscription id. */
export async function updateEndpoint(store: Store, orgId: string, id: string, patch: EndpointInput, policy: WebhookUrlPolicy, clock?: Clock): Promise<WebhookEndpoint> {
  return store.transaction(async (tx) => {
    // Concurrent PATCHes of one endpoint each write the whole row: the later one waits and reads the earlier's.
    await tx.lock([recordLock('webhook_endpoint', id)]);
    const current = await getEndpoint(tx, orgId, id);
    const next: WebhookEndpoint = { ...current, updatedAt: timestamp(clock) };
    if (patch.url !== undefined) next.url = checkWebhookUrl(patch.url, policy);
    if (patch.status !== undefined) next.status = patch.status;
    // Enabling again starts a fresh count towards automatic disabling.
    if (patch.status === 'enabled' || patch.url !== undefined) next.failingSince = null;
    if (patch.subscriptions !== undefined) next.subscriptions = checkSubscriptions(patch.subscriptions, current.subscriptions);
    await tx.webhookEndpoints.update(next);
    return next;
  });
}

/** Disables every enabled endpoint of the organization, inside the caller's transaction (a sandbox's clone). */
export async function disableAllEndpoints(tx: Store, orgId: string): Promise<void> {
  let page = await tx.webhookEndpoints.list(orgId, { limit: MAX_PAGE_LIMIT });
  for (;;) {
    for (const endpoint of page.rows) if (endpoint.status === 'enabled') await tx.webhookEndpoints.update({ ...endpoint, status: 'disabled' });
    if (!page.hasNext || !page.end) return;
    page = await tx.webhookEndpoints.list(orgId, { limit: MAX_PAGE_LIMIT, after: page.end });
  }
}

/** Deleting an endpoint drops its pending deliveries and its attempt history with it. */
export async function deleteEndpoint(store: Store, orgId: string, id: string): Promise<void> {
  await store.transaction(async (tx) => {
    await getEndpoint(tx, orgId, id);
    await tx.webhookEndpoints.delete(orgId, id);
  });
}

/**
 * The new set of subscriptions, in the order given, one per event type (repeats collapse). An entry with `id`
 * changes that subscription of the endpoint, which keeps its id (another id → 422 at its pointer); one without
 * keeps the id of the subscription that had its event type, unless an entry with an id took that one.
 */
function checkSubscriptions(inputs: { event_type: string; id?: string }[], current: WebhookSubscription[]): WebhookSubscription[] {
  const claimed = new Set<string>();
  for (const [i, input] of inputs.entries()) {
    if (!EVENT_TYPES.has(input.event_type)) {
      throw invalidAt(`/subscriptions/${i}/event_type`, `event_type must be one of the activity types: ${ACTIVITY_TYPES.join(', ')}; got "${input.event_type}"`);
    }
    if (input.id === undefined) continue;
    if (!current.some((s) => s.id === input.id)) {
      throw invalidAt(`/subscriptions/${i}/id`, `id "${input.id}" names no subscription of this endpoint; send the id of one of its subscriptions, or leave id out to add one`);
    }
    if (claimed.has(input.id)) throw invalidAt(`/subscriptions/${i}/id`, `id "${input.id}" is given twice; each subscription can be changed once`);
    claimed.add(input.id);
  }
  const result: WebhookSubscription[] = [];
  for (const input of inputs) {
    if (result.some((s) => s.eventType === input.event_type)) continue;
    const kept = input.id ?? current.find((s) => s.eventType === input.event_type && !claimed.has(s.id))?.id;
    result.push({ id: kept ?? newId(), eventType: input.event_type });
  }
  return result;
}
