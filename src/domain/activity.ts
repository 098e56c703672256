// Activities: the record of things that happened, written in the same transaction as the change itself.
// Writes made with an API key have no person behind them; their actor is the key (`{type: "api_key"}`), or
// for a JWT its subject (`{type: "jwt_subject"}`).
import { newId } from './ids.ts';
import type { Principal } from './api-keys.ts';
import { AppError, badParameter, orNotFound } from './errors.ts';
import { parseDateTime } from './field-types/dates.ts';
import type { Page, PageRequest } from './pagination.ts';
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

/**
 * Records a write through the API: its actor is the API key, or the subject of the JWT, that made it; the
 * written `object`; and the `targets` it concerns.
 */
export function recordWrite(store: Store, principal: Principal, type: string, occurredAt: string, object: Entity, targets: readonly { id: string; type: string }[] = []): Promise<Activity> {
  return recordActivity(store, principal.orgId, type, occurredAt, [
    constituent('actor', { ...principal.actor }),
    constituent('object', object),
    ...targets.map((target) => constituent('target', { ...target })),
  ]);
}

export const ACTIVITY_TYPES = [
  'activity/call_occurred', 'activity/file_created', 'activity/form_submitted', 'activity/inbox_message_sent',
  'activity/item_created', 'activity/item_mentioned', 'activity/item_merged', 'activity/meeting_held',
  'activity/meeting_scheduled', 'activity/note_created', 'activity/program_message_bounced',
  'activity/program_message_clicked', 'activity/program_message_complained', 'activity/program_message_failed',
  'activity/program_message_opened', 'activity/program_message_sent', 'activity/program_message_shielded',
  'activity/program_message_unsubscribed',
] as const;

/** What the feed is narrowed to; every part optional. */
export interface ActivityQuery {
  types?: string[];
  occurredFrom?: string;
  occurredTo?: string;
  entity?: { type: string; id?: string; relation?: ConstituentRelation };
}

/** The feed's filters as the query string gives them, in the newest spelling and the older `filter[…]` one. */
export interface ActivityFilters {
  type?: { eq?: string };
  occurred_at?: { gte?: string; lte?: string };
  constituent_entity_type?: { eq?: string };
  constituent_entity_id?: { eq?: string };
  constituent_relation?: { eq?: ConstituentRelation };
  filter?: { type?: { eq?: string; in?: string[] }; occurred_at?: { gte?: string; lte?: string }; item_id?: { eq?: string } };
}

/** Checks the pairing rules of the constituent filters (seed §4.9) and merges both spellings. */
export function activityQuery(filters: ActivityFilters): ActivityQuery {
  const query: ActivityQuery = {};
  const types = [filters.type?.eq, filters.filter?.type?.eq, ...(filters.filter?.type?.in ?? [])].filter((t): t is string => t !== undefined);
  if (types.length > 0) query.types = types;
  const from = filters.occurred_at?.gte ?? filters.filter?.occurred_at?.gte;
  const to = filters.occurred_at?.lte ?? filters.filter?.occurred_at?.lte;
  for (const [value, parameter] of [[from, 'occurred_at[gte]'], [to, 'occurred_at[lte]']] as const) {
    if (value !== undefined && parseDateTime(value) === null) {
      throw badParameter(parameter, `${parameter} must be an ISO 8601 date-time with a zone, e.g. 2025-01-01T00:00:00Z`);
    }
  }
  if (from !== undefined) query.occurredFrom = parseDateTime(from)!;
  if (to !== undefined) query.occurredTo = parseDateTime(to)!;

  const type = filters.constituent_entity_type?.eq;
  const id = filters.constituent_entity_id?.eq;
  const relation = filters.constituent_relation?.eq;
  if (id !== undefined && type === undefined) {
    throw new AppError('validation_failed', 'the entity type must be specified: pass constituent_entity_type[eq] with constituent_entity_id[eq]', {
      parameter: 'constituent_entity_id[eq]',
    });
  }
  if (relation !== undefined && (type === undefined || id === undefined)) {
    throw new AppError('validation_failed', 'the relation filter needs both constituent_entity_type[eq] and constituent_entity_id[eq]', {
      parameter: 'constituent_relation[eq]',
    });
  }
  if (type !== undefined) query.entity = { type, ...(id !== undefined ? { id } : {}), ...(relation ? { relation } : {}) };
  const itemId = filters.filter?.item_id?.eq;
  if (itemId !== undefined && query.entity === undefined) query.entity = { type: 'item', id: itemId };
  return query;
}

export async function listActivities(store: Store, orgId: string, filters: ActivityFilters, page: PageRequest): Promise<Page<Activity>> {
  return store.activities.list(orgId, activityQuery(filters), page);
}

export async function getActivity(store: Store, orgId: string, id: string): Promise<Activity> {
  return orNotFound(store.activities.find(orgId, id));
}
