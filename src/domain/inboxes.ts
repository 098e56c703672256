// Shared inboxes. The API only reads them; they are created with `tycho inboxes create`.
import { AppError, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';

export interface Inbox {
  id: string;
  orgId: string;
  name: string;
  /** The address messages are sent from. */
  email: string;
  createdAt: string;
  updatedAt: string;
}

export async function createInbox(store: Store, orgId: string, input: { name: string; email: string }, clock?: Clock): Promise<Inbox> {
  const name = input.name.trim();
  if (name === '') throw new AppError('validation_failed', 'an inbox needs a name');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.email)) {
    throw new AppError('validation_failed', `"${input.email}" is not an email address; an inbox needs the address it sends from`);
  }
  const now = timestamp(clock);
  const inbox: Inbox = { id: newId(), orgId, name, email: input.email.toLowerCase(), createdAt: now, updatedAt: now };
  await store.inboxes.insert(inbox);
  return inbox;
}

export async function getInbox(store: Store, orgId: string, id: string): Promise<Inbox> {
  return orNotFound(store.inboxes.find(orgId, id));
}

/** The inboxes with these ids (unknown ids are skipped). */
export function inboxesByIds(store: Store, orgId: string, ids: readonly string[]): Promise<Inbox[]> {
  return store.inboxes.findMany(orgId, [...new Set(ids)]);
}

export function listInboxes(store: Store, orgId: string, page: PageRequest): Promise<Page<Inbox>> {
  return store.inboxes.list(orgId, page);
}
