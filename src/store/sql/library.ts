// Row mappings of the library resources: tagsets, notes, inboxes, files.
import type { Tagset } from '../../domain/tagsets.ts';
import type { Note } from '../../domain/notes.ts';
import type { Inbox } from '../../domain/inboxes.ts';
import type { StoredFile } from '../../domain/files.ts';
import { columnMapping } from './records.ts';

export const tagsetMapping = columnMapping<Tagset>({ json: ['tags', 'associations'] });
export const noteMapping = columnMapping<Note>({ json: ['associations'], renames: { body: 'markdown' } });
export const inboxMapping = columnMapping<Inbox>();
export const fileMapping = columnMapping<StoredFile>({ json: ['associations'] });
