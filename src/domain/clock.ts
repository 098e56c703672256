// Timestamps as the API writes them: ISO 8601, UTC, millisecond precision. Stored the same way, so they sort
// as text on every engine.
//
// Time is per organization: the toolkit can freeze, set or advance an organization's clock (org-clock.ts).
// Work done for an organization whose clock is controlled runs inside its time context, so every reader of
// time below — `systemClock`, the default of every `clock?` parameter, and ids' time part — sees that
// organization's clock without being handed it. Work on the real clock runs in no context: entering one makes
// Node track every promise from then on, a cost only the toolkit's users should pay.
import { AsyncLocalStorage } from 'node:async_hooks';

export type Clock = () => Date;

/** The organization work is done for and, when its clock is controlled, that clock. Filled in after authentication. */
export interface TimeContext {
  orgId?: string;
  clock?: Clock;
}

const contexts = new AsyncLocalStorage<TimeContext>();

/** Runs `fn` (and everything it starts) in `context`, which may be filled in later. */
export function runInTimeContext<T>(context: TimeContext, fn: () => T): T {
  return contexts.run(context, fn);
}

export function currentTimeContext(): TimeContext | undefined {
  return contexts.getStore();
}

/** `base`, unless the work in progress is for an organization whose clock is controlled. */
export function contextualClock(base: Clock): Clock {
  return () => {
    const controlled = contexts.getStore()?.clock;
    return controlled ? controlled() : base();
  };
}

/** The real time whatever organization the work is for: for what processes share, such as leases. */
export const realClock: Clock = () => new Date();

/** The real time, or the controlled clock of the organization the work is for. */
export const systemClock: Clock = contextualClock(realClock);

export function timestamp(clock: Clock = systemClock): string {
  return clock().toISOString();
}
