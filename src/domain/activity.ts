// Activities: the record of things that happened, written in the same transaction as the change itself.
// Writes made with an API key have no person behind them; their actor is the key (`{type: "api_key"}`), or
// for a JWT its subject (`{type: "jwt_subject"}`).
import { newId } from './ids.ts';
import type { Principal } from './api-keys.ts';
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

/** The actor of a write: the API key, or the subject of the JWT, that made it. */
export const principalActor = (principal: Principal): Constituent => constituent('actor', { ...principal.actor });

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
