// "Due by when?" when organizations keep different times: background work runs for every organization at
// once, yet an organization with a controlled clock (org-clock.ts) has its work fall due on that clock, so a
// frozen organization's retries wait for its clock, not for real time. The store turns these into one
// condition, so the common case (no controlled clock) costs no extra query.
import { runInTimeContext, type Clock } from './clock.ts';

export interface OrgTime {
  orgId: string;
  now: string;
}

/** Each listed organization's work is due by its own `now`; every other organization's by `others` (none when absent). */
export interface DueTimes {
  others?: string;
  orgs: readonly OrgTime[];
}

export interface DueScope {
  /** Only this organization's work, due by the clock given with it (advancing its clock). */
  orgId?: string;
  /** The controlled clocks of organizations whose work goes by their own time. */
  orgClocks?: ReadonlyMap<string, Clock>;
}

/** What is due at `now` (the organization's time with `orgId`, real time otherwise) in `scope`. */
export function dueTimes(now: Date, scope: DueScope): DueTimes {
  if (scope.orgId !== undefined) return { orgs: [{ orgId: scope.orgId, now: now.toISOString() }] };
  return { others: now.toISOString(), orgs: [...(scope.orgClocks ?? [])].map(([orgId, clock]) => ({ orgId, now: clock().toISOString() })) };
}

/** Every time moved by `ms` (a lease's end on each organization's clock). */
export function shiftedBy(times: DueTimes, ms: number): DueTimes {
  const shift = (at: string) => new Date(Date.parse(at) + ms).toISOString();
  return { ...(times.others !== undefined ? { others: shift(times.others) } : {}), orgs: times.orgs.map(({ orgId, now }) => ({ orgId, now: shift(now) })) };
}

/** The clock work of `orgId` is done by in `scope`. */
export function clockIn(scope: DueScope, orgId: string, others: Clock): Clock {
  return scope.orgClocks?.get(orgId) ?? others;
}

/** Runs `fn` in the organization's time context when `scope` has its clock, so the ids it makes carry that time. */
export function inOrgTime<T>(scope: DueScope, orgId: string, fn: () => T): T {
  const clock = scope.orgClocks?.get(orgId);
  return clock ? runInTimeContext({ orgId, clock }, fn) : fn();
}
