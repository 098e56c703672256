// The webhook outbox: `outboxRows` names, inside the transaction that records an activity, one delivery row per
// enabled endpoint subscribed to its type (one indexed lookup, remembered until endpoints change); the
// activity is written with them (in one statement where the engine can), so a committed event is never lost
// and a rolled-back one never sent. webhook-delivery.ts sends them. This module imports nothing that imports
// activity.ts, which calls it.
import type { Activity } from './activity.ts';
import { newId } from './ids.ts';
import type { Store } from './ports/store.ts';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDelivery {
  id: string;
  orgId: string;
  endpointId: string;
  activityId: string;
  status: DeliveryStatus;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (pending only); DUE_AT_ONCE before the first. */
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  /** Times it was re-sent: an attempt's outcome is saved only while this is unchanged since it was read. */
  resends: number;
}

/** Sorts before every timestamp: a new delivery is due whatever time any clock shows. */
export const DUE_AT_ONCE = '0000-01-01T00:00:00.000Z';

/** A delivery of the activity to the endpoint, due at once. */
export const pendingDelivery = (orgId: string, endpointId: string, activityId: string): WebhookDelivery => ({
  id: newId(),
  orgId,
  endpointId,
  activityId,
  status: 'pending',
  attempts: 0,
  nextAttemptAt: DUE_AT_ONCE,
  lastAttemptAt: null,
  resends: 0,
});

/** The outbox rows of an activity about to be recorded; call it in the activity's transaction. */
export async function outboxRows(store: Store, activity: Activity): Promise<WebhookDelivery[]> {
  const endpointIds = await store.webhookEndpoints.subscribed(activity.orgId, activity.type);
  return endpointIds.map((endpointId) => pendingDelivery(activity.orgId, endpointId, activity.id));
}
