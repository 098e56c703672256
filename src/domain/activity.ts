// Activities: the record of things that happened, written in the same transaction as the change itself.
// Writes made with an API key have no person behind them; their actor is the key (`{type: "api_key"}`).
import { newId } from './ids.ts';
import type { Store } from '../store/store.ts';

export type ConstituentRelation = 'actor' | 'object' | 'target';

export interface Entity {
  id: string;
  type: string;
  [extra: string]: unknown;
}

export interface Constituent {
  type: 'constituent';
  relation: ConstituentRelation;
  entity: Entity;
}

export interface Activity {
  id: string;
  orgId: string;
  type: string;
  occurredAt: string;
  constituents: Constituent[];
}

export const constituent = (relation: ConstituentRelation, entity: Entity): Constituent => ({ type: 'constituent', relation, entity });

/** The actor of a write made with an API key. */
export const keyActor = (keyId: string): Constituent => constituent('actor', { id: keyId, type: 'api_key' });

export async function recordActivity(
  store: Store,
  orgId: string,
  type: string,
  occurredAt: string,
  constituents: Constituent[],
): Promise<Activity> {
  const activity: Activity = { id: newId(), orgId, type, occurredAt, constituents };
  await store.activities.insert(activity);
  return activity;
}
