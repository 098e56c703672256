// Work that falls due with time: the registry that advancing an organization's clock runs before it returns,
// and that `serve` sweeps every minute for every organization on its own clock. A runner does what is due at
// `now` for one organization, and must be safe to run again (runs may overlap across processes).
import type { Store } from './ports/store.ts';
import { recordMeetingsHeld } from './meetings.ts';

export type DueRunner = (store: Store, options: { orgId: string; now: Date }) => Promise<unknown>;

/** By name, for logs. Add a line here for each kind of work that waits for a time (retries, scheduled sends). */
export const DUE_WORK: Record<string, DueRunner> = {
  meeting_held: (store, { orgId, now }) => recordMeetingsHeld(store, () => now, orgId),
};

/** Runs every registered runner for the organization, in order; the first failure stops the run. */
export async function runDueWork(store: Store, options: { orgId: string; now: Date }, registry: Record<string, DueRunner> = DUE_WORK): Promise<void> {
  for (const runner of Object.values(registry)) await runner(store, options);
}
