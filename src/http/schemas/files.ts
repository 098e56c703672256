// Wire shape of files (reference §5.15).
import { Type, type Static } from 'typebox';
import type { StoredFile } from '../../domain/files.ts';
import { CollectionPointer, Timestamp } from './common.ts';

export const FileWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('file'),
    name: Type.String(),
    filename: Type.String(),
    size: Type.Integer(),
    download_url: Type.String(),
    associations: Type.Array(Type.Object({ id: Type.String(), type: Type.Literal('item'), collection: CollectionPointer })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5a8Rt5PkXw3Jfmc',
        type: 'file',
        name: 'Signed contract',
        filename: 'contract.pdf',
        size: 48213,
        download_url: 'https://tycho.example.com/tycho/downloads/1CLJt2v5K2gT7vQa5Xe3Lm/1CLJt2v5a8Rt5PkXw3Jfmc?expires=1739811600&signature=q0Xb4o8ZkZ2a1dD9sVxY3w',
        associations: [{ id: '1CLJt2v5NVwRc8nCqWZPnr', type: 'item', collection: { id: '1CLJt2v5L9yv2kFJKqB4ad', type: 'collection', ref: 'organizations' } }],
        created_at: '2025-02-17T16:00:00.000Z',
        updated_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

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
