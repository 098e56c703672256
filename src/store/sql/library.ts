// Row mappings of the library resources: tagsets, notes, inboxes, files. Associations of tagsets, notes and
// files are links (links.ts), not columns, so their models here leave them out.
import type { Tagset } from '../../domain/tagsets.ts';
import type { Note } from '../../domain/notes.ts';
import type { Inbox } from '../../domain/inboxes.ts';
import { fileNameKey, type StoredFile } from '../../domain/files.ts';
import { json, type RecordMapping } from './records.ts';
import type { FilesTable, InboxesTable, NotesTable, TagsetsTable } from './schema.ts';

export const tagsetMapping: RecordMapping<Omit<Tagset, 'associations'>, TagsetsTable> = {
  toModel: (r) => ({
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    description: r.description,
    tags: json.parse(r.tags),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  toRow: (t) => ({
    id: t.id,
    org_id: t.orgId,
    name: t.name,
    description: t.description,
    tags: json.text(t.tags),
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  }),
  filters: {},
};

export const noteMapping: RecordMapping<Omit<Note, 'associations'>, NotesTable> = {
  toModel: (r) => ({
    id: r.id,
    orgId: r.org_id,
    title: r.title,
    markdown: r.body,
    lockVersion: r.lock_version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  toRow: (n) => ({
    id: n.id,
    org_id: n.orgId,
    title: n.title,
    body: n.markdown,
    lock_version: n.lockVersion,
    created_at: n.createdAt,
    updated_at: n.updatedAt,
  }),
  filters: {},
};

export const inboxMapping: RecordMapping<Inbox, InboxesTable> = {
  toModel: (r) => ({ id: r.id, orgId: r.org_id, name: r.name, email: r.email, createdAt: r.created_at, updatedAt: r.updated_at }),
  toRow: (i) => ({ id: i.id, org_id: i.orgId, name: i.name, email: i.email, created_at: i.createdAt, updated_at: i.updatedAt }),
  filters: {},
};

export const fileMapping: RecordMapping<Omit<StoredFile, 'associations'>, FilesTable> = {
  toModel: (r) => ({
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    filename: r.filename,
    contentType: r.content_type,
    size: r.size,
    blobKey: r.blob_key,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  toRow: (f) => ({
    id: f.id,
    org_id: f.orgId,
    name: f.name,
    filename: f.filename,
    content_type: f.contentType,
    size: f.size,
    blob_key: f.blobKey,
    created_at: f.createdAt,
    updated_at: f.updatedAt,
    name_key: fileNameKey(f.name),
  }),
  filters: {},
};
