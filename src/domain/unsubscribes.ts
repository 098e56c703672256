// The unsubscribe list (reference §5.11): addresses program messages are never sent to. Addresses are kept
// lower-cased, once each; adding one again answers the existing entry. The id only names an entry in
// activities (the wire object has none).
import { notFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { normalisedEmail } from './emails.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';

export interface Unsubscribe {
  id: string;
  orgId: string;
  email: string;
  createdAt: string;
}

/** Adds `email` (checked at `pointer`) unless it is listed; answers the entry either way. */
export async function addUnsubscribe(store: Store, orgId: string, email: unknown, clock?: Clock, pointer = '/email'): Promise<Unsubscribe> {
  const address = normalisedEmail(email, pointer);
  // In a transaction, as every write a request makes (an Idempotency-Key claim is noted written in its commit).
  return store.transaction((tx) => tx.unsubscribes.insertOrGet({ id: newId(), orgId, email: address, createdAt: timestamp(clock) }));
}

export function listUnsubscribes(store: Store, orgId: string, page: PageRequest): Promise<Page<Unsubscribe>> {
  return store.unsubscribes.list(orgId, page);
}

/** Removes the address; 404 when it is not listed (or not an address at all). */
export async function removeUnsubscribe(store: Store, orgId: string, email: string): Promise<void> {
  if (!(await store.transaction((tx) => tx.unsubscribes.delete(orgId, email.trim().toLowerCase())))) throw notFound();
}

export function findUnsubscribe(store: Store, orgId: string, email: string): Promise<Unsubscribe | undefined> {
  return store.unsubscribes.findByEmail(orgId, email.toLowerCase());
}
