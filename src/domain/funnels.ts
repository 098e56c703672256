// Funnels: ordered steps (active, success, failure) that stage fields move items through.
import { AppError, invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import type { Page, PageRequest } from './pagination.ts';
import { removeFunnelSteps } from './value-cleanup.ts';
import type { Store } from './ports/store.ts';
import { checkedName } from './characters.ts';
import { checkListSize } from './list-limits.ts';

export const STEP_TYPES = ['active', 'success', 'failure'] as const;
export type StepType = (typeof STEP_TYPES)[number];

export interface FunnelStep {
  id: string;
  name: string;
  stepType: StepType;
  color: string;
}

export interface Funnel {
  id: string;
  orgId: string;
  name: string;
  steps: FunnelStep[];
  createdAt: string;
  updatedAt: string;
}

export interface StepInput {
  id?: string;
  name: string;
  step_type: StepType;
  color?: string;
}

const DEFAULT_STEP_COLORS: Record<StepType, string> = { active: 'blue', success: 'green', failure: 'red' };

/**
 * The steps a request describes, in order. With `current`, entries carrying an `id` update that step and
 * the others are new; steps not mentioned are dropped. `pointer` locates the array in the body.
 */
export function buildSteps(inputs: StepInput[], pointer: string, current: FunnelStep[] = []): FunnelStep[] {
  checkListSize(pointer, inputs.length);
  const seen = new Set<string>();
  return inputs.map((input, i) => {
    const name = checkedName(input.name, `${pointer}/${i}/name`, 'a step name');
    if (input.id !== undefined) {
      if (!current.some((s) => s.id === input.id) || seen.has(input.id)) {
        throw invalidAt(`${pointer}/${i}/id`, `"${input.id}" is not a step of this funnel; omit id to add a new step`);
      }
      seen.add(input.id);
    }
    const previous = current.find((s) => s.id === input.id);
    return {
      id: input.id ?? newId(),
      name,
      stepType: input.step_type,
      color: input.color ?? previous?.color ?? DEFAULT_STEP_COLORS[input.step_type],
    };
  });
}

export async function createFunnel(
  store: Store,
  orgId: string,
  input: { name: string; steps?: StepInput[] },
  clock?: Clock,
): Promise<Funnel> {
  const now = timestamp(clock);
  const funnel: Funnel = {
    id: newId(),
    orgId,
    name: checkFunnelName(input.name),
    steps: input.steps ? buildSteps(input.steps, '/steps') : [],
    createdAt: now,
    updatedAt: now,
  };
  // In a transaction, as every write a request makes (an Idempotency-Key claim is noted written in its commit).
  await store.transaction((tx) => tx.funnels.insert(funnel));
  return funnel;
}

export async function getFunnel(store: Store, orgId: string, id: string): Promise<Funnel> {
  return orNotFound(store.funnels.find(orgId, id));
}

export function listFunnels(store: Store, orgId: string, page: PageRequest): Promise<Page<Funnel>> {
  return store.funnels.list(orgId, page);
}

export async function updateFunnel(
  store: Store,
  orgId: string,
  id: string,
  patch: { name?: string; steps?: StepInput[] },
  clock?: Clock,
): Promise<Funnel> {
  return store.transaction(async (tx) => {
    const current = await getFunnel(tx, orgId, id);
    const next: Funnel = { ...current, updatedAt: timestamp(clock) };
    if (patch.name !== undefined) next.name = checkFunnelName(patch.name);
    if (patch.steps !== undefined) {
      next.steps = buildSteps(patch.steps, '/steps', current.steps);
      const dropped = current.steps.filter((s) => !next.steps.some((n) => n.id === s.id)).map((s) => s.id);
      await removeFunnelSteps(tx, orgId, id, dropped);
    }
    await tx.funnels.update(next);
    return next;
  }, orgId);
}

export async function deleteFunnel(store: Store, orgId: string, id: string): Promise<void> {
  await store.transaction(async (tx) => {
    await getFunnel(tx, orgId, id);
    const users = await tx.fields.listByFunnel(orgId, id);
    if (users.length > 0) {
      throw new AppError(
        'invalid_state',
        `the funnel is used by stage field(s) ${users.map((f) => f.ref).join(', ')}; delete those fields or switch them to another funnel first`,
      );
    }
    await tx.funnels.delete(orgId, id);
  }, orgId);
}

const checkFunnelName = (name: string): string => checkedName(name, '/name');
