// What every resource route plugin is given: the store, the list mechanism and the clock.
import type { Clock } from '../domain/clock.ts';
import type { Store } from '../store/store.ts';
import type { Listing } from './pagination.ts';

export interface RouteDeps {
  store: Store;
  listing: Listing;
  clock: Clock;
}
