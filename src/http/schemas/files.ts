// Wire shape of files (reference §5.15).
import { Type, type Static } from 'typebox';
import type { StoredFile } from '../../domain/files.ts';
import { CollectionPointer, Timestamp } from './common.ts';

export const FileWire = Type.Object({
  id: Type.String(),
  type: Type.Literal('file'),
  name: Type.String(),
  filename: Type.String(),
  size: Type.Integer(),
  download_url: Type.String(),
  associations: Type.Array(Type.Object({ id: Type.String(), type: Type.Literal('item'), collection: CollectionPointer })),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export function renderFile(file: StoredFile, downloadUrl: string): Static<typeof FileWire> {
  return {
    id: file.id,
    type: 'file',
    name: file.name,
    filename: file.filename,
    size: file.size,
    download_url: downloadUrl,
    associations: file.associations,
    created_at: file.createdAt,
    updated_at: file.updatedAt,
  };
}
