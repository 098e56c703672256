// Field use cases: create, retrieve, update and delete the fields of a collection, keeping two-way
// relations' reverse fields and existing item values consistent. Each runs in one transaction.
import { AppError, invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { findCollection } from './collections.ts';
import { buildFields, type Field, type FieldConfig } from './fields.ts';
import type { Funnel } from './funnels.ts';
import { describeFields, type FieldView } from './field-views.ts';
import {
  buildOptions,
  checkDefaultUnit,
  checkDescription,
  checkFieldName,
  rejectForeignExtras,
  resolveAllowedCollections,
  type FieldInput,
} from './field-params.ts';
import { createReverseFields, parseDefaults, stageFunnel } from './field-construction.ts';
import { applyFieldChanges } from './field-updates.ts';
import { removeFieldValues } from './value-cleanup.ts';
import { resolveRelationDefaults } from './item-relations.ts';
import type { Store } from './ports/store.ts';

export async function createField(
  store: Store,
  orgId: string,
  collectionKey: string,
  input: FieldInput,
  clock?: Clock,
): Promise<FieldView> {
  return store.transaction(async (tx) => {
    const collection = await findCollection(tx, orgId, collectionKey);
    rejectForeignExtras(input);
    const name = checkFieldName(input.name ?? '');
    const config: FieldConfig = {};
    let funnel: Funnel | undefined;
    switch (input.type) {
      case 'field/number/monetary':
        config.defaultUnit = checkDefaultUnit(input.default_unit);
        break;
      case 'field/choice':
        config.options = buildOptions(input.options);
        break;
      case 'field/stage':
        funnel = await stageFunnel(tx, orgId, name, input, clock);
        config.funnelId = funnel.id;
        break;
      case 'field/relation':
        if (input.relation_type === undefined) throw invalidAt('/relation_type', 'relation_type is required: "one_way" or "two_way"');
        config.relationType = input.relation_type;
        config.allowedCollectionIds = await resolveAllowedCollections(tx, orgId, input.allowed_collections);
        if (input.reverse_field_name !== undefined) {
          if (input.relation_type !== 'two_way') throw invalidAt('/reverse_field_name', 'reverse_field_name applies only to two_way relations');
          config.reverseFieldName = checkFieldName(input.reverse_field_name);
        } else if (input.relation_type === 'two_way') {
          // The name the reverse fields get, kept so the field shows it as when it was sent.
          config.reverseFieldName = collection.name;
        }
        break;
    }
    const taken = new Set(await tx.fields.refs(orgId, collection.id));
    const spec = {
      name,
      type: input.type,
      description: checkDescription(input.description ?? null),
      cardinality: input.cardinality ?? 'one',
      required: input.required ?? false,
      unique: input.unique ?? false,
      config,
    };
    const [field] = buildFields(orgId, collection.id, [spec], taken, timestamp(clock), newId);
    field!.defaultValues = await resolveRelationDefaults(tx, field!, parseDefaults(input.default_values ?? [], field!, funnel));
    if (config.relationType === 'two_way') {
      config.reverseFieldIds = await createReverseFields(tx, collection, field!, config.allowedCollectionIds!, clock);
    }
    await tx.fields.insertMany([field!]);
    return (await describeFields(tx, orgId, [field!]))[0]!;
  }, orgId);
}

export async function findField(store: Store, orgId: string, collectionKey: string, fieldKey: string): Promise<Field> {
  const collection = await findCollection(store, orgId, collectionKey);
  return orNotFound(store.fields.find(orgId, collection.id, fieldKey));
}

export async function getField(store: Store, orgId: string, collectionKey: string, fieldKey: string): Promise<FieldView> {
  const field = await findField(store, orgId, collectionKey, fieldKey);
  return (await describeFields(store, orgId, [field]))[0]!;
}

export async function updateField(
  store: Store,
  orgId: string,
  collectionKey: string,
  fieldKey: string,
  input: FieldInput,
  clock?: Clock,
): Promise<FieldView> {
  return store.transaction(async (tx) => {
    const field = await findField(tx, orgId, collectionKey, fieldKey);
    const updated = await applyFieldChanges(tx, field, input, clock);
    return (await describeFields(tx, orgId, [updated]))[0]!;
  }, orgId);
}

export async function deleteField(store: Store, orgId: string, collectionKey: string, fieldKey: string): Promise<void> {
  await store.transaction(async (tx) => {
    const field = await findField(tx, orgId, collectionKey, fieldKey);
    if (field.kind === 'system') throw new AppError('invalid_state', `${field.ref} is a system field and cannot be deleted`);
    if (field.kind === 'inverse') {
      const source = field.config.sourceFieldId ? (await tx.fields.findMany(orgId, [field.config.sourceFieldId]))[0] : undefined;
      throw new AppError(
        'invalid_state',
        `${field.ref} is the reverse side of a two-way relation${source ? ` (field ${source.ref})` : ''}; delete that field instead`,
      );
    }
    const doomed = [field.id, ...(field.config.reverseFieldIds ?? [])];
    await removeFieldValues(tx, orgId, doomed);
    await tx.fields.delete(orgId, doomed);
  }, orgId);
}
