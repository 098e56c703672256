// Row mappings of the library resources: tagsets, notes, inboxes, files.
import type { Tagset } from '../../domain/tagsets.ts';
import type { Note } from '../../domain/notes.ts';
import type { Inbox } from '../../domain/inboxes.ts';
import type { StoredFile } from '../../domain/files.ts';
import type { FilesTable, InboxesTable, NotesTable, TagsetsTable } from './schema.ts';
import type { RecordMapping } from './records.ts';

export const tagsetMapping: RecordMapping<Tagset> = {
  toModel: (r: TagsetsTable) => ({
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    description: r.description,
    tags: JSON.parse(r.tags),
    associations: JSON.parse(r.associations),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  toRow: (t) => ({
    id: t.id,
    org_id: t.orgId,
    name: t.name,
    description: t.description,
    tags: JSON.stringify(t.tags),
    associations: JSON.stringify(t.associations),
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  }),
};

export const noteMapping: RecordMapping<Note> = {
  toModel: (r: NotesTable) => ({
    id: r.id,
    orgId: r.org_id,
    title: r.title,
    markdown: r.body,
    lockVersion: r.lock_version,
    associations: JSON.parse(r.associations),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  toRow: (n) => ({
    id: n.id,
    org_id: n.orgId,
    title: n.title,
    body: n.markdown,
    lock_version: n.lockVersion,
    associations: JSON.stringify(n.associations),
    created_at: n.createdAt,
    updated_at: n.updatedAt,
  }),
};

export const inboxMapping: RecordMapping<Inbox> = {
  toModel: (r: InboxesTable) => ({ id: r.id, orgId: r.org_id, name: r.name, email: r.email, createdAt: r.created_at, updatedAt: r.updated_at }),
  toRow: (i) => ({ id: i.id, org_id: i.orgId, name: i.name, email: i.email, created_at: i.createdAt, updated_at: i.updatedAt }),
};

export const fileMapping: RecordMapping<StoredFile> = {
  toModel: (r: FilesTable) => ({
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    filename: r.filename,
    contentType: r.content_type,
    size: r.size,
    blobKey: r.blob_key,
    associations: JSON.parse(r.associations),
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
    associations: JSON.stringify(f.associations),
    created_at: f.createdAt,
    updated_at: f.updatedAt,
  }),
};
