// Webhook delivery: the rules of sending from the outbox (webhook-outbox.ts).
//
// - `deliverDue` sends what is due at the time `clock` says (an organization with a controlled clock: at its
//   own, `orgClocks`), and is all a worker loop needs. Each endpoint is leased to one process at a time
//   (`claimDue`), which sends its due deliveries in recording order and stops at the first failure, so one
//   endpoint's events go out in order and a dead endpoint costs one request per round. A lease outlives the
//   longest attempt and is renewed as the round goes on; a crashed process's lease expires and another
//   process takes over. A worker keeps its leases between rounds (`keepLeases`), except those of
//   organizations on a controlled clock, which an advance must find free: its next round takes them back with
//   a read, where releasing and claiming again would write twice a round — and on SQLite every commit of the
//   delivery thread's connection makes the API's connection drop its page cache.
// - A failed attempt is retried on the Standard Webhooks / Svix schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
//   10 h after the first attempt, each ±10 % jitter), then the delivery is `failed`. An endpoint that has
//   failed every attempt for five days is disabled.
import { realClock, type Clock } from './clock.ts';
import { invalidAt } from './errors.ts';
import { newId } from './ids.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';
import type { WebhookResult, WebhookSender } from './ports/webhook-sender.ts';
import type { Activity } from './activity.ts';
import { activityIdOf, messageId, payloadOf } from './webhook-events.ts';
import { getEndpoint, type WebhookEndpoint } from './webhook-endpoints.ts';
import { clockIn, dueTimes, inOrgTime, type DueScope } from './due-times.ts';
import { DUE_AT_ONCE, pendingDelivery, type DeliveryStatus, type WebhookDelivery } from './webhook-outbox.ts';

export interface WebhookAttempt {
  id: string;
  orgId: string;
  endpointId: string;
  deliveryId: string;
  /** The event sent (its activity) and its type. */
  activityId: string;
  eventType: string;
  attemptedAt: string;
  /** The receiver's status code; null when no answer came (refused, timed out, not allowed). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

/** The waits before attempts 2…8, in milliseconds. */
export const RETRY_SCHEDULE_MS = [5e3, 5 * 60e3, 30 * 60e3, 2 * 3600e3, 5 * 3600e3, 10 * 3600e3, 10 * 3600e3] as const;
/** Each wait is stretched or shortened by up to this fraction, so retries of many deliveries spread out. */
export const RETRY_JITTER = 0.1;
/** An endpoint whose every attempt has failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600e3;
/** Deliveries sent to one endpoint per round: large enough to keep up with a burst in a few database turns. */
export const DELIVERY_BATCH = 500;
/** Requests in flight at once, by default (one per endpoint: an endpoint's events go out one after another). */
export const DELIVERY_CONCURRENCY = 8;
/** How long a process owns an endpoint: beyond the longest attempt (30 s) with margin; renewed per attempt. */
export const LEASE_MS = 120e3;

/** When the attempt after `attempts` failed ones is due, or null when none is left. */
export function nextAttemptAt(failedAt: Date, attempts: number, random: () => number = Math.random): string | null {
  const wait = RETRY_SCHEDULE_MS[attempts - 1];
  if (wait === undefined) return null;
  const jitter = 1 + (random() * 2 - 1) * RETRY_JITTER;
  return new Date(failedAt.getTime() + Math.round(wait * jitter)).toISOString();
}

export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed';

/** A delivery as it was read before an attempt, and its state after it. */
export interface AttemptRecord {
  delivery: WebhookDelivery;
  status: DeliveryStatus;
  nextAttemptAt: string | null;
  attemptedAt: string;
}

/** Told about every attempt (metrics). */
export interface DeliveryObserver {
  attempted(outcome: AttemptOutcome, seconds: number): void;
}

export interface DeliverOptions extends DueScope {
  /**
   * The delivery clock — what is due, attempt times and retry times — for every organization but those in
   * `orgClocks`; with `orgId`, that organization's clock.
   */
  clock: Clock;
  /** Who holds the leases this call takes; unique per process. */
  owner?: string;
  /** The clock of leases, which expire in real time whatever the delivery clock says. */
  leaseClock?: Clock;
  /** Endpoints served in this call. */
  endpoints?: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Deliveries sent to one endpoint in this call. */
  batch?: number;
  random?: () => number;
  observer?: DeliveryObserver;
  /** Once aborted, no further attempt starts (those in flight finish). */
  signal?: AbortSignal;
  /**
   * Recording a round renews the endpoint's lease instead of ending it (unless its organization is in
   * `orgClocks`), so the next call with the same `owner` takes the endpoint back without a write
   * (`releaseLeases` ends them all, when the worker stops).
   */
  keepLeases?: boolean;
  /** Who writes each round's record: this store, by default. */
  recorder?: Recorder;
}

export interface DeliveryRound {
  attempts: number;
  succeeded: number;
  failed: number;
  /**
   * Whether work already due may be left: an endpoint's batch was full or its round ended early (a failure
   * with events behind it, a stop, a lost lease), or as many endpoints were taken as allowed. Otherwise the
   * next round can wait for new work to be announced or for retries to fall due.
   */
  more: boolean;
}

/** Sends every delivery due by `clock` (up to the limits) and records each attempt. */
export async function deliverDue(store: Store, sender: WebhookSender, options: DeliverOptions): Promise<DeliveryRound> {
  const leaseClock = options.leaseClock ?? realClock;
  const owner = options.owner ?? newId();
  const leaseUntil = () => new Date(leaseClock().getTime() + LEASE_MS).toISOString();
  const limit = options.endpoints ?? 100;
  const batch = options.batch ?? DELIVERY_BATCH;
  const endpoints = await store.webhookEndpoints.claimDue({
    due: dueTimes(options.clock(), options),
    owner,
    leaseNow: leaseClock().toISOString(),
    leaseUntil: leaseUntil(),
    // A kept lease with less than this left is renewed: the round's own renewals assume a fresh one.
    keepUntil: new Date(leaseClock().getTime() + LEASE_MS / 2).toISOString(),
    limit,
  });
  const round: DeliveryRound = { attempts: 0, succeeded: 0, failed: 0, more: endpoints.length === limit };
  const drain = async (endpoint: WebhookEndpoint) => {
    const clock = clockIn(options, endpoint.orgId, options.clock);
    // Ended (or kept) by the round's record, in its transaction; released here only when nothing was sent or
    // recording failed.
    let released = false;
    try {
      const due = await store.webhookDeliveries.due(endpoint.id, clock().toISOString(), batch);
      const sent: Sent[] = [];
      let renewedAt = leaseClock().getTime();
      for (const { delivery, activity } of due) {
        if (options.signal?.aborted) break;
        // Renewed well before it could run out: what is left always outlasts one attempt.
        if (leaseClock().getTime() - renewedAt > LEASE_MS / 4) {
          if (!(await store.webhookEndpoints.renewLease(endpoint.id, owner, leaseUntil()))) break;
          renewedAt = leaseClock().getTime();
        }
        const attempt = await send(sender, endpoint, delivery, activity && { activity, body: JSON.stringify(await payloadOf(store, activity)) }, clock);
        sent.push(attempt);
        // A failure ends the endpoint's round: its later events wait, so they do not overtake it needlessly.
        if (!attempt.ok) break;
      }
      if (sent.length > 0) {
        await record(store, endpoint, owner, sent, options);
        released = true;
      }
      if (due.length === batch || sent.length < due.length) round.more = true;
      for (const attempt of sent) {
        round.attempts++;
        if (attempt.ok) round.succeeded++;
        else round.failed++;
      }
    } finally {
      if (!released) await store.webhookEndpoints.releaseLease(endpoint.id, owner);
    }
  };
  await inPool(endpoints, options.concurrency ?? DELIVERY_CONCURRENCY, (endpoint) => inOrgTime(options, endpoint.orgId, () => drain(endpoint)));
  return round;
}

/** How long `deliverDueAwaited` waits for another process's attempts: beyond the longest attempt (30 s). */
const AWAIT_OTHERS_MS = 35e3;
/** How often it looks whether they are done. */
const AWAIT_POLL_MS = 20;

/**
 * Sends one organization's due deliveries (`options.orgId`, by its clock) and returns only once none of them
 * is being sent elsewhere: an endpoint another process had leased when the round looked (a delivery thread
 * mid-attempt) is waited for, and what it leaves due is sent here. Advancing a clock answers after this, so
 * the retries it made due have been attempted by then, by whichever process.
 */
export async function deliverDueAwaited(store: Store, sender: WebhookSender, options: DeliverOptions & { orgId: string }): Promise<void> {
  const owner = options.owner ?? newId();
  const leaseClock = options.leaseClock ?? realClock;
  const deadline = leaseClock().getTime() + AWAIT_OTHERS_MS;
  const leasedElsewhere = () => store.webhookEndpoints.leasedElsewhere(dueTimes(options.clock(), options), owner, leaseClock().toISOString());
  // Once another process was seen holding an endpoint, a round runs after it is seen to let go: it may have let
  // go between this call's round and its look, leaving due work unsent.
  let waited = await leasedElsewhere();
  for (;;) {
    await deliverDue(store, sender, { ...options, owner });
    const busy = await leasedElsewhere();
    if (!busy && !waited) return;
    if (leaseClock().getTime() >= deadline) return;
    waited = busy;
    if (busy) await new Promise((resolve) => setTimeout(resolve, AWAIT_POLL_MS));
  }
}

/** Runs `fn` over `items` with at most `size` calls in flight. */
async function inPool<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, lane));
}

interface Sent {
  delivery: WebhookDelivery;
  eventType: string;
  startedAt: Date;
  result: WebhookResult;
  ok: boolean;
}

async function send(sender: WebhookSender, endpoint: WebhookEndpoint, delivery: WebhookDelivery, event: { activity: Activity; body: string } | undefined, clock: Clock): Promise<Sent> {
  const startedAt = clock();
  // Activities are never deleted; a missing one is a failed attempt rather than a stuck queue.
  const result = event
    ? await sender.send({ url: endpoint.url, secret: endpoint.secret, messageId: messageId(event.activity.id), body: event.body })
    : { statusCode: null, latencyMs: 0, error: 'the event no longer exists', responseExcerpt: null };
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  return { delivery, eventType: event?.activity.type ?? '', startedAt, result, ok };
}

/**
 * What recording a round writes, in one transaction (one commit for a whole batch): its attempts, the
 * deliveries' and the endpoint's new state, and the end of the endpoint's lease unless it is kept. Plain data,
 * so that another thread can write it (`Recorder`).
 */
export interface RoundRecord {
  endpointId: string;
  owner: string;
  attempts: WebhookAttempt[];
  outcomes: AttemptRecord[];
  /** The endpoint's health, when the round changed it. */
  health?: { failingSince: string | null; disable: boolean };
  /**
   * Whether the record ends the endpoint's lease. A kept lease (`keepLeases`) is left as it is: the next claim
   * takes it back with a read while at least half of it is left and renews it when less is (once a minute,
   * where renewing it with every record wrote the endpoint's row many times a second, and a create writing
   * a delivery to the endpoint holds a lock on that row).
   */
  release: boolean;
}

/** Writes a round's record: `writeRound` on the delivering store unless another writer is named. */
export type Recorder = (record: RoundRecord) => Promise<void>;

/**
 * Records a round. A crash between sending and recording sends those events again later: at least once, with
 * the same `webhook-id`. A delivery re-sent meanwhile keeps the re-send's state (the attempt is still logged).
 */
async function record(store: Store, endpoint: WebhookEndpoint, owner: string, sent: Sent[], options: DeliverOptions): Promise<void> {
  let failingSince = endpoint.failingSince;
  let disable = false;
  const outcomes: AttemptOutcome[] = [];
  const saved: AttemptRecord[] = sent.map(({ delivery, startedAt, ok }) => {
    const at = startedAt.toISOString();
    const next = ok ? null : nextAttemptAt(startedAt, delivery.attempts + 1, options.random);
    outcomes.push(ok ? 'succeeded' : next === null ? 'failed' : 'retrying');
    failingSince = ok ? null : (failingSince ?? at);
    disable ||= failingSince !== null && startedAt.getTime() - Date.parse(failingSince) >= DISABLE_AFTER_MS;
    return { delivery, status: ok ? 'succeeded' : next === null ? 'failed' : 'pending', nextAttemptAt: next, attemptedAt: at };
  });
  const round: RoundRecord = {
    endpointId: endpoint.id,
    owner,
    attempts: sent.map(({ delivery, eventType, startedAt, result }) => ({
      id: newId(),
      orgId: delivery.orgId,
      endpointId: endpoint.id,
      deliveryId: delivery.id,
      activityId: delivery.activityId,
      eventType,
      attemptedAt: startedAt.toISOString(),
      ...result,
    })),
    outcomes: saved,
    ...(failingSince !== endpoint.failingSince || disable ? { health: { failingSince, disable } } : {}),
    // Not for an organization on a controlled clock: advancing it sends its due work with a lease owner of its
    // own before it answers (due-work.ts), and an endpoint leased between rounds would be skipped.
    release: !options.keepLeases || options.orgClocks?.has(endpoint.orgId) === true,
  };
  await (options.recorder ?? ((r: RoundRecord) => writeRound(store, r)))(round);
  sent.forEach(({ result }, i) => options.observer?.attempted(outcomes[i]!, result.latencyMs / 1000));
}

/** Writes what `record` decided, in one transaction. */
export async function writeRound(store: Store, round: RoundRecord): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.webhookDeliveries.insertAttempts(round.attempts);
    await tx.webhookDeliveries.saveOutcomes(round.outcomes);
    if (round.health) await tx.webhookEndpoints.setHealth(round.endpointId, round.health.failingSince, round.health.disable);
    if (round.release) await tx.webhookEndpoints.releaseLease(round.endpointId, round.owner);
  });
}

/** An endpoint's attempts, newest first. */
export async function listAttempts(store: Store, orgId: string, endpointId: string, page: PageRequest): Promise<Page<WebhookAttempt>> {
  await getEndpoint(store, orgId, endpointId);
  return store.webhookDeliveries.attempts(orgId, endpointId, page);
}

/**
 * Sends an event (by message id `msg_…` or activity id) to an endpoint again, as soon as possible and with a
 * fresh retry schedule, whether it was delivered, failed or never sent there; the `webhook-id` stays the same.
 */
export async function resendEvent(store: Store, orgId: string, endpointId: string, eventId: string): Promise<WebhookDelivery> {
  return store.transaction(async (tx) => {
    await getEndpoint(tx, orgId, endpointId);
    const activityId = activityIdOf(eventId);
    if (!(await tx.activities.find(orgId, activityId))) {
      throw invalidAt('/event_id', `event_id must be the id of an event of this organization (msg_…, as webhook-id and the event feed show it); got "${eventId}"`);
    }
    const current = await tx.webhookDeliveries.findByActivity(orgId, endpointId, activityId);
    if (!current) {
      const delivery = pendingDelivery(orgId, endpointId, activityId);
      await tx.webhookDeliveries.insertMany([delivery]);
      return delivery;
    }
    await tx.webhookDeliveries.resend(current);
    return { ...current, status: 'pending', attempts: 0, nextAttemptAt: DUE_AT_ONCE, resends: current.resends + 1 };
  });
}
