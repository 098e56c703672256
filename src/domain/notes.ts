// Notes: markdown bodies associated with items (and, in the hosted service, calls and meetings), with
// optimistic locking. The title is the body's leading heading. Creation records `activity/note_created`.
import { AppError, invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { constituent, recordActivity, recordWrite } from './activity.ts';
import type { Principal } from './api-keys.ts';
import { ASSOCIATION, checkItemAssociations, itemLinkTargets, itemPointers, withItemAssociations, type Association } from './associations.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';
import { recordLock } from './locks.ts';
import { longerThan } from './characters.ts';

export interface Note {
  id: string;
  orgId: string;
  title: string | null;
  markdown: string;
  lockVersion: number;
  associations: Association[];
  createdAt: string;
  updatedAt: string;
}

export type BodyInput = string | { markdown?: string };

export interface NoteInput {
  body: BodyInput;
  associations?: { type: string; id: string }[];
}

const BODY_MAX = 1_000_000;
/** Distinct items one note records mentions of at most (a bound on what its creation writes). */
const MAX_MENTIONS = 100;

/**
 * Ids a note mentions: Markdown links whose destination ends in an id, the way editors write a mention
 * (`[@Ada Lovelace](https://app.example.com/people/1CLJt2v5…)`, `[Ada](item:1CLJt2v5…)`). Which of them are
 * items is for the store to say.
 */
export function mentionedIds(markdown: string): string[] {
  const ids = new Set<string>();
  for (const [, destination] of markdown.matchAll(/\]\(\s*<?([^\s()<>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const id = /(?:^|[/:=#])([1-9A-HJ-NP-Za-km-z]{22})\/?$/.exec(destination!)?.[1];
    if (id) ids.add(id);
    if (ids.size === MAX_MENTIONS) break;
  }
  return [...ids];
}

/** "# A note title\n…" → "A note title"; no leading heading → null. */
export function titleOf(markdown: string): string | null {
  const first = markdown.split('\n').find((line) => line.trim() !== '');
  const match = first === undefined ? null : /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(first);
  return match && match[1] !== '' ? match[1]! : null;
}

function checkBody(body: BodyInput): string {
  const markdown = typeof body === 'string' ? body : body.markdown;
  if (typeof markdown !== 'string' || markdown.trim() === '') {
    throw invalidAt(typeof body === 'string' ? '/body' : '/body/markdown', 'body needs markdown text, e.g. {"markdown": "# Call notes\\n…"}');
  }
  if (longerThan(markdown, BODY_MAX)) throw invalidAt('/body/markdown', `body must be at most ${BODY_MAX} characters`);
  return markdown;
}

export async function createNote(store: Store, principal: Principal, input: NoteInput, clock?: Clock): Promise<Note> {
  return store.transaction(async (tx) => {
    const markdown = checkBody(input.body);
    const now = timestamp(clock);
    const note: Note = {
      id: newId(),
      orgId: principal.orgId,
      title: titleOf(markdown),
      markdown,
      lockVersion: 0,
      associations: await checkItemAssociations(tx, principal.orgId, input.associations ?? [], 'notes', true),
      createdAt: now,
      updatedAt: now,
    };
    await tx.notes.insert(note);
    await tx.links.replace(note.orgId, 'note', note.id, ASSOCIATION, itemLinkTargets(note.associations));
    await recordWrite(tx, principal, 'activity/note_created', now, { id: note.id, type: 'note' }, note.associations);
    // One item_mentioned per item the body links to (reference §5.17): the note is its object, the item its target.
    for (const item of (await itemPointers(tx, note.orgId, mentionedIds(markdown))).values()) {
      await recordActivity(tx, note.orgId, 'activity/item_mentioned', now, [constituent('object', { id: note.id, type: 'note' }), constituent('target', { ...item })]);
    }
    return note;
  });
}

/** The newest note associated with a call or meeting, or null (`include[]=note`). */
export async function newestNoteOn(store: Store, orgId: string, target: { type: 'call' | 'meeting'; id: string }): Promise<Note | null> {
  const links = await store.links.sourcesOf(orgId, target, 'note');
  // Ids are time-ordered: the greatest is the newest.
  const newest = links.map((l) => l.fromId).sort().at(-1);
  return newest === undefined ? null : getNote(store, orgId, newest);
}

export async function getNote(store: Store, orgId: string, id: string): Promise<Note> {
  const [note] = await withItemAssociations(store, orgId, 'note', [await orNotFound(store.notes.find(orgId, id))]);
  return note!;
}

export async function listNotes(store: Store, orgId: string, page: PageRequest): Promise<Page<Note>> {
  const found = await store.notes.list(orgId, page);
  return { ...found, rows: await withItemAssociations(store, orgId, 'note', found.rows) };
}

/** Replaces the body; `lock_version` must be the note's current one (else 409) and goes up by one. */
export async function updateNote(
  store: Store,
  orgId: string,
  id: string,
  input: NoteInput & { lock_version: number },
  clock?: Clock,
): Promise<Note> {
  return store.transaction(async (tx) => {
    // Only writers of this note wait: the lock_version check and the write must not interleave with theirs.
    await tx.lock([recordLock('note', id)]);
    const current = await getNote(tx, orgId, id);
    if (input.lock_version !== current.lockVersion) {
      throw new AppError('stale_lock_version', `lock_version ${input.lock_version} is stale: the note is at ${current.lockVersion}; fetch it and apply the change again`);
    }
    const markdown = checkBody(input.body);
    const next: Note = { ...current, markdown, title: titleOf(markdown), lockVersion: current.lockVersion + 1, updatedAt: timestamp(clock) };
    await tx.notes.update(next);
    if (input.associations !== undefined) {
      next.associations = await checkItemAssociations(tx, orgId, input.associations, 'notes', true);
      await tx.links.replace(orgId, 'note', id, ASSOCIATION, itemLinkTargets(next.associations));
    }
    return next;
  });
}

export async function deleteNote(store: Store, orgId: string, id: string): Promise<void> {
  await store.transaction(async (tx) => {
    // A PATCH that read the note before this commits would write its links back after it: it waits instead.
    await tx.lock([recordLock('note', id)]);
    await getNote(tx, orgId, id);
    await tx.notes.delete(orgId, id);
    await tx.links.deleteEntity(orgId, 'note', id);
  });
}
