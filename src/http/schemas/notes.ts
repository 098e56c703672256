// Wire shapes of notes (reference §5.17) and their request bodies.
import { Type, type Static } from 'typebox';
import type { Note } from '../../domain/notes.ts';
import { CollectionPointer, Timestamp } from './common.ts';

const Body = Type.Union([Type.String(), Type.Object({ markdown: Type.String() })], {
  errorMessage: 'must be {"markdown": "…"} (or the markdown text itself)',
});
const Association = Type.Object({ type: Type.String(), id: Type.String() });

export const CreateNoteBody = Type.Object(
  { body: Body, associations: Type.Optional(Type.Array(Association)) },
  { examples: [{ body: { markdown: 'Called about the **renewal**.' }, associations: [{ type: 'item', id: '1CLJt2v5NVwRc8nCqWZPnr' }] }] },
);

export const UpdateNoteBody = Type.Object(
  {
    body: Body,
    lock_version: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    associations: Type.Optional(Type.Array(Association)),
  },
  { examples: [{ body: { markdown: 'Called about the **renewal**: signed.' }, lock_version: 0 }] },
);

export const NoteWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('note'),
    title: Type.Optional(Type.String()),
    body: Type.Object({ markdown: Type.String() }),
    lock_version: Type.Integer(),
    associations: Type.Array(Type.Object({ id: Type.String(), type: Type.String(), collection: Type.Optional(CollectionPointer) })),
    creator: Type.Null(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5Qw3bXkUo9TeGm7',
        type: 'note',
        body: { markdown: 'Called about the **renewal**.' },
        lock_version: 0,
        associations: [{ id: '1CLJt2v5NVwRc8nCqWZPnr', type: 'item', collection: { id: '1CLJt2v5L9yv2kFJKqB4ad', type: 'collection', ref: 'organizations' } }],
        creator: null,
        created_at: '2025-02-17T16:00:00.000Z',
        updated_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

export function renderNote(n: Note): Static<typeof NoteWire> {
  const out: Static<typeof NoteWire> = {
    id: n.id,
    type: 'note',
    body: { markdown: n.markdown },
    lock_version: n.lockVersion,
    associations: n.associations,
    // Notes written with an API key or JWT have no person behind them.
    creator: null,
    created_at: n.createdAt,
    updated_at: n.updatedAt,
  };
  if (n.title !== null) out.title = n.title;
  return out;
}
