// Activities: the record of things that happened, written in the same transaction as the change itself.
// Constituents only ever name entities of the documented types (ENTITY_TYPES). A write through an API key or
// a JWT has no person (item) behind it, and neither a key nor a JWT subject is such an entity, so its activity
// has no actor constituent.
import { newId } from './ids.ts';
import type { Principal } from './api-keys.ts';
import { AppError, badParameter, orNotFound } from './errors.ts';
import { INSTANT_SHAPES, parseInstant, type Rounding } from './instants.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';
import { outboxRows } from './webhook-outbox.ts';

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

/** The entity types a constituent can name (reference §7.2), in the order the documentation lists them. */
export const ENTITY_TYPES = [
  'call', 'collection', 'item', 'file', 'meeting', 'email_message', 'note', 'program', 'program_message',
  'program_template', 'unsubscribe',
] as const;

export type EntityType = (typeof ENTITY_TYPES)[number];

/** Entity type names a filter also accepts: the seed's observations call an email message `message`. */
export const ENTITY_TYPE_ALIASES: Readonly<Record<string, EntityType>> = { message: 'email_message' };

const DOCUMENTED = new Set<string>(ENTITY_TYPES);

export const isEntityType = (type: string): type is EntityType => DOCUMENTED.has(type);

/**
 * The constituents an activity shows: those naming a documented entity type. Activities recorded by earlier
 * versions of Tycho carry the API key (`api_key`) or JWT subject (`jwt_subject`) as their actor; that
 * constituent is left out.
 */
export const documentedConstituents = (constituents: readonly Constituent[]): Constituent[] => constituents.filter((c) => isEntityType(c.entity.type));

export const constituent = (relation: ConstituentRelation, entity: Entity): Constituent => ({ type: 'constituent', relation, entity });

export async function recordActivity(
  store: Store,
  orgId: string,
  type: string,
  occurredAt: string,
  constituents: Constituent[],
): Promise<Activity> {
  const activity: Activity = { id: newId(), orgId, type, occurredAt, constituents };
  // The webhook outbox rows, written with the activity.
  await store.activities.insert(activity, await outboxRows(store, activity));
  return activity;
}

/**
 * Records a write through the API: the written `object` and the `targets` it concerns. There is no actor: the
 * API key or JWT that made the write is no documented entity, and no person item stands behind it.
 */
export function recordWrite(store: Store, principal: Principal, type: string, occurredAt: string, object: Entity, targets: readonly { id: string; type: string }[] = []): Promise<Activity> {
  return recordActivity(store, principal.orgId, type, occurredAt, [
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

/** An entity an activity must involve; `id` and `relation` narrow it further. */
export interface EntityFilter {
  type: string;
  id?: string;
  relation?: ConstituentRelation;
}

/** What the feed is narrowed to; every part optional, all parts together. */
export interface ActivityQuery {
  /** Only these types; an empty list matches nothing. */
  types?: string[];
  occurredFrom?: string;
  occurredTo?: string;
  /** The entity whose constituent index drives the walk. */
  entity?: EntityFilter;
  /** Further entities each activity must involve as well. */
  alsoInvolving?: { type: string; id: string }[];
}

/** The feed's filters as the query string gives them, in the newest spelling and the older `filter[…]` one. */
export interface ActivityFilters {
  type?: { eq?: string; in?: string[] };
  occurred_at?: { gte?: string; lte?: string };
  constituent_entity_type?: { eq?: string };
  constituent_entity_id?: { eq?: string };
  constituent_relation?: { eq?: ConstituentRelation };
  filter?: { type?: { eq?: string; in?: string[] }; occurred_at?: { gte?: string; lte?: string }; item_id?: { eq?: string } };
}

/** Reads a time bound; `rounding` keeps a bound finer than a millisecond on the safe side. */
function timeBound(value: string | undefined, parameter: string, rounding: Rounding): string | undefined {
  if (value === undefined) return undefined;
  const instant = parseInstant(value, { rounding, query: true });
  if (instant === null) throw badParameter(parameter, `${parameter} must be ${INSTANT_SHAPES}; got "${value}"`);
  return instant;
}

const latest = (times: (string | undefined)[]) => times.filter((t) => t !== undefined).sort().at(-1);
const earliest = (times: (string | undefined)[]) => times.filter((t) => t !== undefined).sort().at(0);

/**
 * Merges both spellings into one query (every filter given applies: types intersect, time bounds narrow) and
 * checks the pairing rules of the constituent filters (seed §4.9).
 */
export function activityQuery(filters: ActivityFilters): ActivityQuery {
  const query: ActivityQuery = {};
  const typeSets = [filters.type?.eq, filters.filter?.type?.eq].filter((t) => t !== undefined).map((t) => [t]);
  for (const types of [filters.type?.in, filters.filter?.type?.in]) if (types !== undefined) typeSets.push(types);
  if (typeSets.length > 0) query.types = [...new Set(typeSets[0])].filter((t) => typeSets.every((set) => set.includes(t)));

  const from = latest([
    timeBound(filters.occurred_at?.gte, 'occurred_at[gte]', 'ceil'),
    timeBound(filters.filter?.occurred_at?.gte, 'filter[occurred_at][gte]', 'ceil'),
  ]);
  const to = earliest([
    timeBound(filters.occurred_at?.lte, 'occurred_at[lte]', 'floor'),
    timeBound(filters.filter?.occurred_at?.lte, 'filter[occurred_at][lte]', 'floor'),
  ]);
  if (from !== undefined) query.occurredFrom = from;
  if (to !== undefined) query.occurredTo = to;

  const given = filters.constituent_entity_type?.eq;
  const type = given === undefined ? undefined : (ENTITY_TYPE_ALIASES[given] ?? given);
  const id = filters.constituent_entity_id?.eq;
  const relation = filters.constituent_relation?.eq;
  if (type !== undefined && !isEntityType(type)) {
    throw badParameter('constituent_entity_type[eq]', `constituent_entity_type[eq] must be one of: ${ENTITY_TYPES.join(', ')}; got "${given}"`);
  }
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
  if (itemId !== undefined) {
    if (query.entity === undefined) query.entity = { type: 'item', id: itemId };
    else query.alsoInvolving = [{ type: 'item', id: itemId }];
  }
  return query;
}

export async function listActivities(store: Store, orgId: string, filters: ActivityFilters, page: PageRequest): Promise<Page<Activity>> {
  return store.activities.list(orgId, activityQuery(filters), page);
}

export async function getActivity(store: Store, orgId: string, id: string): Promise<Activity> {
  return orNotFound(store.activities.find(orgId, id));
}
