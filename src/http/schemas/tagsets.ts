// Wire shapes of tagsets and tags (seed §2.5, reference §5.9) and their request bodies.
import { Type, type Static } from 'typebox';
import type { Tagset } from '../../domain/tagsets.ts';
import { COLORS } from '../../domain/fields.ts';
import { Timestamp } from './common.ts';

const Color = Type.Union(COLORS.map((c) => Type.Literal(c)), { errorMessage: `must be one of: ${COLORS.join(', ')}` });
const TagInput = Type.Object({ id: Type.Optional(Type.String()), name: Type.String(), color: Type.Optional(Color) });
const AssociationInput = Type.Object({ type: Type.String(), id: Type.Optional(Type.String()) });
const NullableString = Type.Union([Type.String(), Type.Null()], { errorMessage: 'must be a string or null' });

export const CreateTagsetBody = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(NullableString),
    tags: Type.Optional(Type.Array(TagInput)),
    associations: Type.Optional(Type.Array(AssociationInput)),
  },
  { examples: [{ name: 'Topics', description: 'What a conversation is about', tags: [{ name: 'Billing', color: 'amber' }, { name: 'Onboarding', color: 'sky' }], associations: [{ type: 'calls' }, { type: 'meetings' }] }] },
);

export const UpdateTagsetBody = Type.Object(
  {
    name: Type.Optional(Type.String()),
    description: Type.Optional(NullableString),
    tags: Type.Optional(Type.Array(TagInput)),
    associations: Type.Optional(Type.Array(AssociationInput)),
  },
  { examples: [{ tags: [{ id: '1CLJt2v5YbTr4KeWn2Gdfq', name: 'Billing' }, { name: 'Churn risk', color: 'red' }] }] },
);

export const TagsetWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('tagset'),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    tags: Type.Array(Type.Object({ id: Type.String(), type: Type.Literal('tag'), name: Type.String(), color: Type.String() })),
    associations: Type.Array(Type.Object({ type: Type.String(), id: Type.Optional(Type.String()) })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5Y3Hd8MvZa6Ncpx',
        type: 'tagset',
        name: 'Topics',
        description: 'What a conversation is about',
        tags: [{ id: '1CLJt2v5YbTr4KeWn2Gdfq', type: 'tag', name: 'Billing', color: 'amber' }],
        associations: [{ type: 'calls' }, { type: 'meetings' }],
        created_at: '2025-02-17T16:00:00.000Z',
        updated_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

export function renderTagset(t: Tagset): Static<typeof TagsetWire> {
  const out: Static<typeof TagsetWire> = {
    id: t.id,
    type: 'tagset',
    name: t.name,
    tags: t.tags.map((tag) => ({ id: tag.id, type: 'tag', name: tag.name, color: tag.color })),
    associations: t.associations,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
  if (t.description !== null) out.description = t.description;
  return out;
}
