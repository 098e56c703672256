// Round trips to PostgreSQL, counted below store/postgres/pipeline.ts (which each pool client wraps around its
// own query at connect): a statement sent while its client had no answer outstanding starts one.
import pg from 'pg';
import { openStoreWithRaw, type RawStore } from './raw-store.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import type { Principal } from '../../src/domain/api-keys.ts';

export interface RoundTrips {
  /** The round trips `work` took. */
  count(work: () => Promise<unknown>): Promise<number>;
  /** Puts pg's query back. */
  restore(): void;
}

/** Starts counting; install it before the store whose clients are counted connects. */
export function countRoundTrips(): RoundTrips {
  let roundTrips = 0;
  const query = pg.Client.prototype.query;
  const outstanding = new WeakMap<object, number>();
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const n = outstanding.get(this) ?? 0;
    if (n === 0) roundTrips++;
    outstanding.set(this, n + 1);
    const settle = () => outstanding.set(this, (outstanding.get(this) ?? 1) - 1);
    const answer = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    answer.then(settle, settle);
    return answer;
  } as typeof query;
  return {
    async count(work) {
      roundTrips = 0;
      await work();
      return roundTrips;
    },
    restore: () => {
      pg.Client.prototype.query = query;
    },
  };
}

/**
 * The webhook subscriptions are remembered only once the store's LISTEN connection is up (until then each
 * create looks them up): waits for it, as a warm server has, by writing until `create` takes the round trips it
 * takes warm (one for an item create, two for an upsert's: its match, then its writes).
 */
export async function untilSubscriptionsRemembered(trips: RoundTrips, create: () => Promise<unknown>, warm = 1): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await trips.count(create)) <= warm) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A PostgreSQL store whose round trips are counted, with an organization to write in. */
export interface CountedStore {
  s: RawStore;
  principal: Principal;
  trips: RoundTrips;
  close(): Promise<void>;
}

export async function openCountedStore(organizationName: string): Promise<CountedStore> {
  const trips = countRoundTrips();
  const s = await openStoreWithRaw('postgres');
  const { organization } = await ensureOrganization(s.store, organizationName);
  const principal: Principal = { orgId: organization.id, scope: 'write', actor: { id: 'test', type: 'api_key' } };
  return {
    s,
    principal,
    trips,
    async close() {
      trips.restore();
      await s.close();
    },
  };
}
