// Wire shapes of collections (seed §2.2, reference §5.1) and their request bodies.
import { Type, type Static } from 'typebox';
import type { Collection, CollectionWithFields } from '../../domain/collections.ts';
import { exampleOf, Timestamp } from './common.ts';
import { FieldWire, renderField } from './fields.ts';
import { ViewSummary } from './view-wire.ts';

const collectionProperties = {
  id: Type.String(),
  type: Type.Literal('collection'),
  name: Type.String(),
  ref: Type.String(),
  description: Type.Optional(Type.String()),
  icon_name: Type.String(),
  kind: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
};

const collectionExample = {
  id: '1CLJt2v5L9yv2kFJKqB4ad',
  type: 'collection',
  name: 'Accounts',
  ref: 'accounts',
  icon_name: 'building',
  kind: 'custom',
  created_at: '2025-02-17T16:00:00.000Z',
  updated_at: '2025-02-17T16:00:00.000Z',
};

/** The list element: a collection without its fields. */
export const CollectionSummary = Type.Object(collectionProperties, { examples: [collectionExample] });

/** `views` only with `include[]=views` on retrieve. */
export const CollectionWire = Type.Object(
  { ...collectionProperties, fields: Type.Array(FieldWire), views: Type.Optional(Type.Array(ViewSummary)) },
  { examples: [{ ...collectionExample, fields: [exampleOf(FieldWire)] }] },
);

export const CreateCollectionBody = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()], { errorMessage: 'must be a string or null' })),
    icon_name: Type.Optional(Type.String()),
  },
  { examples: [{ name: 'Accounts', description: 'Companies we sell to' }] },
);

export const UpdateCollectionBody = Type.Object(
  {
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()], { errorMessage: 'must be a string or null' })),
    icon_name: Type.Optional(Type.String()),
  },
  { examples: [{ description: null, icon_name: 'briefcase' }] },
);

export function renderCollectionSummary(c: Collection): Static<typeof CollectionSummary> {
  const out: Static<typeof CollectionSummary> = {
    id: c.id,
    type: 'collection',
    name: c.name,
    ref: c.ref,
    icon_name: c.iconName,
    kind: c.kind,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
  if (c.description !== null) out.description = c.description;
  return out;
}

export function renderCollection({ collection, fields }: CollectionWithFields): Static<typeof CollectionWire> {
  return { ...renderCollectionSummary(collection), fields: fields.map(renderField) };
}
