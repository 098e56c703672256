// The parts of building a field that creation and update share: default values checked like item values,
// the funnel of a stage field, and the reverse fields of a two-way relation.
import { AppError, invalidAt } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import type { Collection } from './collections.ts';
import { buildFields, type Field } from './fields.ts';
import { createFunnel, type Funnel } from './funnels.ts';
import type { FieldInput } from './field-params.ts';
import { parseDefaultValue, ValueProblem } from './field-types/index.ts';
import type { Store } from './ports/store.ts';

/** Static defaults are checked like item values; a `one` field takes at most one. */
export function parseDefaults(values: unknown[], field: Field, funnel: Funnel | undefined): unknown[] {
  if (field.cardinality === 'one' && values.length > 1) {
    throw invalidAt('/default_values', `a field with cardinality "one" takes at most one default value, got ${values.length}`);
  }
  return values.map((value, i) => {
    try {
      return parseDefaultValue(value, { field, ...(funnel ? { funnel } : {}) });
    } catch (error) {
      if (error instanceof ValueProblem) throw invalidAt(`/default_values/${i}`, `default value ${error.detail}`);
      throw error;
    }
  });
}

/** A stage field's funnel: an existing one by pointer, or a new one built from `stages`. */
export async function stageFunnel(store: Store, orgId: string, name: string, input: FieldInput, clock?: Clock): Promise<Funnel> {
  if (input.funnel !== undefined && input.stages !== undefined) {
    throw invalidAt('/stages', 'send either stages (to create a new funnel) or funnel (to reuse one), not both');
  }
  if (input.funnel !== undefined) {
    const funnel = await store.funnels.find(orgId, input.funnel.id);
    if (!funnel) throw invalidAt('/funnel/id', `no funnel has id "${input.funnel.id}"`);
    return funnel;
  }
  if (input.stages === undefined || input.stages.length === 0) {
    throw invalidAt('/stages', 'a stage field needs stages [{"name", "step_type"}, …] or a funnel {"type": "funnel", "id"}');
  }
  try {
    return await createFunnel(store, orgId, { name, steps: input.stages }, clock);
  } catch (error) {
    // The steps are checked against /steps of a funnel; here they arrived as /stages.
    if (error instanceof AppError && error.source?.pointer?.startsWith('/steps')) {
      throw invalidAt(error.source.pointer.replace('/steps', '/stages'), error.detail ?? 'invalid stage');
    }
    throw error;
  }
}

/** Creates the `inverse` field of a two-way relation on each target collection; returns their ids. */
export async function createReverseFields(
  store: Store,
  source: Collection,
  field: Field,
  targetIds: string[],
  clock?: Clock,
): Promise<string[]> {
  const ids: string[] = [];
  for (const targetId of targetIds) {
    const taken = new Set(await store.fields.refs(field.orgId, targetId));
    if (targetId === source.id) taken.add(field.ref);
    const spec = {
      name: field.config.reverseFieldName ?? source.name,
      type: 'field/relation' as const,
      cardinality: 'many' as const,
      kind: 'inverse' as const,
      config: { relationType: 'two_way' as const, allowedCollectionIds: [source.id], sourceFieldId: field.id },
    };
    const [reverse] = buildFields(field.orgId, targetId, [spec], taken, timestamp(clock), newId);
    await store.fields.insertMany([reverse!]);
    ids.push(reverse!.id);
  }
  return ids;
}

