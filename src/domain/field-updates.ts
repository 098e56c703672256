// PATCH of a field (reference §6.1.4): every change is checked against the field's kind and against the
// items that exist, before anything is written; values that stop making sense (removed options, steps of a
// replaced funnel, relations into collections no longer allowed) are removed in the same transaction.
import { invalidAt } from './errors.ts';
import { timestamp, type Clock } from './clock.ts';
import type { Field } from './fields.ts';
import type { Funnel } from './funnels.ts';
import { buildOptions, checkDefaultUnit, checkDescription, checkFieldName, rejectForeignExtras, resolveAllowedCollections, type FieldInput } from './field-params.ts';
import { createReverseFields, parseDefaults } from './field-construction.ts';
import { findCollection } from './collections.ts';
import { removeFieldValues, removeRelationsInto, removeValuesByKey } from './value-cleanup.ts';
import { defaultsAllowed, resolveRelationDefaults } from './item-relations.ts';
import type { Store } from './ports/store.ts';

const SYSTEM_CHANGEABLE = ['type', 'name', 'description', 'required', 'unique', 'default_values'];
const READONLY_CHANGEABLE = ['type', 'name', 'description'];

export async function applyFieldChanges(store: Store, field: Field, input: FieldInput, clock?: Clock): Promise<Field> {
  if (input.type !== field.type) {
    throw invalidAt('/type', `type must be "${field.type}": it identifies the field's kind of value and cannot change`);
  }
  rejectForeignExtras(input);
  if (input.stages !== undefined) {
    throw invalidAt('/stages', 'stages only apply when a field is created; change steps with PATCH /v0/funnels/{id}, or send funnel to switch funnels');
  }
  checkAllowedChanges(field, input);

  const next: Field = structuredClone(field);
  next.updatedAt = timestamp(clock);
  if (input.name !== undefined) next.name = checkFieldName(input.name);
  if (input.description !== undefined) next.description = checkDescription(input.description);
  if (input.cardinality !== undefined) next.cardinality = input.cardinality;
  if (input.required !== undefined) next.required = input.required;
  if (input.unique !== undefined) next.unique = input.unique;
  if (input.default_unit !== undefined) next.config.defaultUnit = checkDefaultUnit(input.default_unit);
  if (input.options !== undefined) next.config.options = buildOptions(input.options, field.config.options);

  let funnel: Funnel | undefined = field.config.funnelId ? await store.funnels.find(field.orgId, field.config.funnelId) : undefined;
  if (input.funnel !== undefined) {
    funnel = await store.funnels.find(field.orgId, input.funnel.id);
    if (!funnel) throw invalidAt('/funnel/id', `no funnel has id "${input.funnel.id}"`);
    next.config.funnelId = funnel.id;
  }
  if (input.relation_type !== undefined) next.config.relationType = input.relation_type;
  if (input.allowed_collections !== undefined) {
    next.config.allowedCollectionIds = await resolveAllowedCollections(store, field.orgId, input.allowed_collections);
  }
  if (input.reverse_field_name !== undefined) {
    if (next.config.relationType !== 'two_way') throw invalidAt('/reverse_field_name', 'reverse_field_name applies only to two_way relations');
    next.config.reverseFieldName = checkFieldName(input.reverse_field_name);
  }

  next.defaultValues =
    input.default_values === undefined ? keptDefaults(field, next) : await resolveRelationDefaults(store, next, parseDefaults(input.default_values ?? [], next, funnel));
  if (next.cardinality === 'one' && next.defaultValues.length > 1) {
    throw invalidAt('/default_values', `${field.ref} has ${next.defaultValues.length} default values and a "one" field takes at most one; send default_values with the change`);
  }

  await checkExistingItems(store, field, next);
  await removeStaleValues(store, field, next);
  if (field.type === 'field/relation' && field.kind !== 'inverse') await syncReverseFields(store, field, next, clock);
  await store.fields.update(next);
  return next;
}

function checkAllowedChanges(field: Field, input: FieldInput): void {
  const sent = Object.keys(input).filter((k) => (input as unknown as Record<string, unknown>)[k] !== undefined);
  const allowed = field.readonly ? READONLY_CHANGEABLE : field.kind === 'system' ? SYSTEM_CHANGEABLE : undefined;
  const refused = allowed ? sent.find((k) => !allowed.includes(k)) : undefined;
  if (refused) {
    throw invalidAt(`/${refused}`, `${field.ref} is a ${field.readonly ? 'readonly ' : ''}system field; only ${allowed!.filter((k) => k !== 'type').join(', ')} can change`);
  }
  if (field.kind === 'inverse') {
    for (const property of ['relation_type', 'allowed_collections', 'reverse_field_name'] as const) {
      if (input[property] !== undefined) {
        throw invalidAt(`/${property}`, `${field.ref} is the reverse side of a two-way relation; change ${property} on the source field`);
      }
    }
  }
}

/** Tightening a constraint is refused while items would break it; the detail says how many. */
async function checkExistingItems(store: Store, field: Field, next: Field): Promise<void> {
  const { orgId } = field;
  if (field.cardinality === 'many' && next.cardinality === 'one') {
    const n = await store.items.countWithSeveralValues(orgId, field.id);
    if (n > 0) throw invalidAt('/cardinality', `cannot change cardinality to "one": ${n} item(s) hold several values in ${field.ref}`);
  }
  if (!field.required && next.required) {
    const n = await store.items.countWithoutValue(orgId, field.collectionId, field.id);
    if (n > 0) throw invalidAt('/required', `cannot make ${field.ref} required: ${n} item(s) have no value in it`);
  }
  if (!field.unique && next.unique) {
    const n = await store.items.countWithDuplicateValues(orgId, field.id);
    if (n > 0) throw invalidAt('/unique', `cannot make ${field.ref} unique: ${n} item(s) share a value with another item`);
  }
}

async function removeStaleValues(store: Store, field: Field, next: Field): Promise<void> {
  const removedOptions = (field.config.options ?? []).filter((o) => !next.config.options?.some((n) => n.id === o.id));
  if (removedOptions.length > 0) await removeValuesByKey(store, field, removedOptions.map((o) => o.id));
  if (field.config.funnelId !== next.config.funnelId) await removeFieldValues(store, field.orgId, [field.id]);
  const dropped = (field.config.allowedCollectionIds ?? []).filter((id) => !next.config.allowedCollectionIds?.includes(id));
  if (dropped.length > 0) await removeRelationsInto(store, field, dropped);
}

/** Two-way relations keep one reverse field per allowed collection; one-way relations have none. */
async function syncReverseFields(store: Store, field: Field, next: Field, clock?: Clock): Promise<void> {
  const existing = await store.fields.findMany(field.orgId, field.config.reverseFieldIds ?? []);
  const wanted = next.config.relationType === 'two_way' ? (next.config.allowedCollectionIds ?? []) : [];
  const obsolete = existing.filter((f) => !wanted.includes(f.collectionId)).map((f) => f.id);
  if (obsolete.length > 0) {
    await removeFieldValues(store, field.orgId, obsolete);
    await store.fields.delete(field.orgId, obsolete);
  }
  const missing = wanted.filter((id) => !existing.some((f) => f.collectionId === id));
  const source = await findCollection(store, field.orgId, field.collectionId);
  const created = missing.length > 0 ? await createReverseFields(store, source, next, missing, clock) : [];
  const kept = existing.filter((f) => !obsolete.includes(f.id)).map((f) => f.id);
  if (next.config.relationType === 'two_way') {
    next.config.reverseFieldIds = [...kept, ...created];
  } else {
    delete next.config.reverseFieldIds;
    delete next.config.reverseFieldName;
  }
}

/**
 * Defaults that still make sense after the change: removed options, replaced funnels and collections a
 * relation no longer allows drop theirs.
 */
function keptDefaults(field: Field, next: Field): unknown[] {
  if (field.config.funnelId !== next.config.funnelId) return [];
  if (field.type === 'field/relation') return defaultsAllowed(next, field.defaultValues);
  if (field.type !== 'field/choice') return field.defaultValues;
  return field.defaultValues.filter((d) => next.config.options?.some((o) => o.id === (d as { id: string }).id));
}
