// The webhook outbox: `enqueueDeliveries` runs inside the transaction that records an activity and writes one
// delivery row per enabled endpoint subscribed to its type (one indexed lookup), so a committed event is never
// lost and a rolled-back one never sent. webhook-delivery.ts sends them. This module imports nothing that
// imports activity.ts, which calls it.
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
});

/** Writes the outbox rows of a just-recorded activity; call it in the activity's transaction. */
export async function enqueueDeliveries(store: Store, activity: Activity): Promise<void> {
  const endpointIds = await store.webhookEndpoints.subscribed(activity.orgId, activity.type);
  if (endpointIds.length === 0) return;
  await store.webhookDeliveries.insertMany(endpointIds.map((endpointId) => pendingDelivery(activity.orgId, endpointId, activity.id)));
}
