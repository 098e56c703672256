// Each organization's clock: the system clock unless the toolkit froze, set or advanced it. The setting lives
// in the database, so every process sharing it reads the same time for the organization.
import { AppError, invalidAt, propertyAt } from './errors.ts';
import { currentTimeContext, realClock, runInTimeContext, type Clock } from './clock.ts';
import type { ClockSetting } from './ports/toolkit-store.ts';
import type { Store } from './ports/store.ts';
import { runDueWork, type DueWork } from './due-work.ts';
import type { DeliveryObserver } from './webhook-delivery.ts';
import { changeCache } from './change-cache.ts';
import { recordLock } from './locks.ts';
import { parseDateTime } from './field-types/dates.ts';

/** The latest time a clock can show. */
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The clock a setting describes; a running one moves with `base`, and stops at the latest time a timestamp
 * can show (9999-12-31T23:59:59.999Z: a year past 9999 is written "+010000-…", which sorts before the rest).
 */
export function clockOf(setting: ClockSetting, base: Clock): Clock {
  if (setting.frozenAt !== null) {
    const frozen = Date.parse(setting.frozenAt);
    return () => new Date(frozen);
  }
  return () => new Date(Math.min(base().getTime() + setting.offsetMs, LATEST));
}

/** The organization's controlled clock, or undefined when it follows `base`. */
export async function controlledClock(store: Store, orgId: string, base: Clock): Promise<Clock | undefined> {
  const setting = await store.clocks.find(orgId);
  return setting && clockOf(setting, base);
}

/** Organizations with a remembered setting (or none) per process. */
const CACHED_CLOCKS = 10_000;

/**
 * `controlledClock` for every request: each organization's setting is remembered while no clock changes
 * anywhere (domain/change-cache.ts), so a warm request reads no clock row.
 */
export function cachedClockReader(store: Store, base: Clock): (orgId: string) => Promise<Clock | undefined> {
  const settings = changeCache<string, ClockSetting | undefined>(() => store.clocks.changeToken(), CACHED_CLOCKS);
  return async (orgId) => {
    const setting = await settings.get(orgId, () => store.clocks.find(orgId));
    return setting && clockOf(setting, base);
  };
}

/**
 * Every controlled clock, by organization, for the background loops (webhook deliveries, program messages):
 * the list is read again only after some clock changed (domain/change-cache.ts), so a round costs no query
 * while no organization's clock moves.
 */
export function controlledClocks(store: Store, base: Clock): () => Promise<Map<string, Clock>> {
  const settings = changeCache<'all', { orgId: string; setting: ClockSetting }[]>(() => store.clocks.changeToken(), 1);
  return async () => new Map((await settings.get('all', () => store.clocks.list())).map(({ orgId, setting }) => [orgId, clockOf(setting, base)]));
}

/** The organization's clock for work done outside a request (sweeps, workers). */
export async function clockFor(store: Store, orgId: string, base: Clock = realClock): Promise<Clock> {
  return (await controlledClock(store, orgId, base)) ?? base;
}

export interface ClockState {
  now: string;
  frozen: boolean;
  /** Milliseconds the clock is ahead of the system clock (behind when negative); 0 when not controlled. */
  offsetMs: number;
  controlled: boolean;
}

export type ClockChange =
  | { action: 'freeze'; at?: string }
  | { action: 'set'; to: string; frozen?: boolean }
  | { action: 'advance'; milliseconds: number }
  | { action: 'resume' }
  | { action: 'release' };

/** The longest single advance: 10 years. */
const MAX_ADVANCE_MS = 10 * 366 * 24 * 3600 * 1000;

function instant(value: string, pointer: string): number {
  // Read as a body's date-times are: a zone is required and the date must exist (no rolling 02-31 into March).
  const iso = parseDateTime(value);
  const ms = iso === null ? Number.NaN : Date.parse(iso);
  if (Number.isNaN(ms) || ms < 0 || ms > LATEST) {
    throw invalidAt(pointer, `${propertyAt(pointer)} must be an ISO 8601 date-time with a time zone between 1970 and 9999, such as "2030-01-01T09:00:00Z"; got ${JSON.stringify(value)}`);
  }
  return ms;
}

function stateOf(setting: ClockSetting | undefined, base: Clock): ClockState {
  const now = setting ? clockOf(setting, base)() : base();
  return {
    now: now.toISOString(),
    frozen: setting?.frozenAt != null,
    offsetMs: setting ? now.getTime() - base().getTime() : 0,
    controlled: setting !== undefined,
  };
}

export async function getClock(store: Store, orgId: string, base: Clock): Promise<ClockState> {
  return stateOf(await store.clocks.find(orgId), base);
}

/** The setting a change makes of the current one; `current` is the organization's time before it. */
function nextSetting(before: ClockSetting | undefined, change: ClockChange, base: Clock): { current: number; next: ClockSetting | undefined } {
  const current = before ? clockOf(before, base)().getTime() : base().getTime();
  const real = base().getTime();
  const running = (to: number): ClockSetting => ({ frozenAt: null, offsetMs: to - real });
  const frozenAt = (to: number): ClockSetting => ({ frozenAt: new Date(to).toISOString(), offsetMs: 0 });
  switch (change.action) {
    case 'freeze':
      return { current, next: frozenAt(change.at === undefined ? current : instant(change.at, '/at')) };
    case 'set': {
      const to = instant(change.to, '/to');
      return { current, next: (change.frozen ?? before?.frozenAt != null) ? frozenAt(to) : running(to) };
    }
    case 'advance': {
      if (!Number.isSafeInteger(change.milliseconds) || change.milliseconds < 0 || change.milliseconds > MAX_ADVANCE_MS) {
        throw invalidAt('/milliseconds', `the advance must be a whole number of milliseconds from 0 to ${MAX_ADVANCE_MS} (10 years); got ${change.milliseconds}`);
      }
      const to = current + change.milliseconds;
      // Past it, timestamps would leave ISO 8601's four-digit years (+010000-…).
      if (to > LATEST) throw new AppError('invalid_state', `the advance would take the clock past ${new Date(LATEST).toISOString()}, the latest time it can show; set it earlier first`);
      return { current, next: before?.frozenAt != null ? frozenAt(to) : running(to) };
    }
    case 'resume':
      return { current, next: running(current) };
    case 'release':
      return { current, next: undefined };
  }
}

/**
 * Changes the organization's clock, then (when time moved forward) runs the work that became due, with the new
 * time, before returning. Later requests of the organization, in every process, read the new clock.
 */
export async function changeClock(store: Store, orgId: string, change: ClockChange, base: Clock, work: DueWork, observer?: DeliveryObserver): Promise<ClockState> {
  // Read and written under the clock's lock: concurrent advances add up, in any number of processes.
  const { current, next } = await store.transaction(async (tx) => {
    await tx.lock([recordLock('clock', orgId)]);
    const planned = nextSetting(await tx.clocks.find(orgId), change, base);
    if (planned.next) await tx.clocks.save(orgId, planned.next);
    else await tx.clocks.remove(orgId);
    return planned;
  });
  const clock = next ? clockOf(next, base) : base;
  // The rest of this request already runs on the new time when it runs in a context (the clock was
  // controlled before); one that starts controlling it has only its answer left, made from the new setting.
  const context = currentTimeContext();
  if (context?.orgId === orgId) {
    if (next) context.clock = clock;
    else delete context.clock;
  }
  if (clock().getTime() > current) {
    const due = () => runDueWork(store, { orgId, now: clock(), ...(observer ? { observer } : {}) }, work);
    await (next ? runInTimeContext({ orgId, clock }, due) : due());
  }
  return stateOf(next, base);
}

/** Runs `work` for every organization, each on its own clock: what `serve` does every minute. */
export async function sweepDueWork(store: Store, work: DueWork): Promise<void> {
  const clocks = new Map((await store.clocks.list()).map(({ orgId, setting }) => [orgId, clockOf(setting, realClock)]));
  for (const org of await store.organizations.list()) {
    const clock = clocks.get(org.id);
    const due = () => runDueWork(store, { orgId: org.id, now: (clock ?? realClock)() }, work);
    await (clock ? runInTimeContext({ orgId: org.id, clock }, due) : due());
  }
}
