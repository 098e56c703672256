// Wire shapes of forms (reference §5.12), their request bodies, and the answer to a public submission.
import { Type, type Static } from 'typebox';
import type { FormView, Submission } from '../../domain/forms.ts';
import { exampleOf, Timestamp } from './common.ts';
import { CollectionWire, renderCollection } from './collections.ts';

const NullableString = Type.Union([Type.String(), Type.Null()], { errorMessage: 'must be a string or null' });

export const FormWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('form'),
    name: Type.String(),
    pages_enabled: Type.Boolean(),
    pages_url: Type.Optional(Type.String()),
    redirect_url: Type.Optional(Type.String()),
    business_email_required: Type.Boolean(),
    collection: CollectionWire,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5kBf7NxTr3Wdgmy',
        type: 'form',
        name: 'Contact us',
        pages_enabled: true,
        pages_url: 'https://tycho.example.com/tycho/forms/1CLJt2v5kBf7NxTr3Wdgmy',
        redirect_url: 'https://acme.com/thanks',
        business_email_required: true,
        collection: exampleOf(CollectionWire),
        created_at: '2025-02-17T16:00:00.000Z',
        updated_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

export const CreateFormBody = Type.Object(
  {
    name: Type.String(),
    pages_enabled: Type.Optional(Type.Boolean()),
    business_email_required: Type.Optional(Type.Boolean()),
    redirect_url: Type.Optional(NullableString),
  },
  { examples: [{ name: 'Contact us', pages_enabled: true, business_email_required: true, redirect_url: 'https://acme.com/thanks' }] },
);

export const UpdateFormBody = Type.Object(
  {
    name: Type.Optional(Type.String()),
    pages_enabled: Type.Optional(Type.Boolean()),
    business_email_required: Type.Optional(Type.Boolean()),
    redirect_url: Type.Optional(NullableString),
  },
  { examples: [{ pages_enabled: false, redirect_url: null }] },
);

/** `pagesUrl`: where the form's public page is, given when pages are enabled. */
export function renderForm({ form, collection }: FormView, pagesUrl: string): Static<typeof FormWire> {
  const out: Static<typeof FormWire> = {
    id: form.id,
    type: 'form',
    name: form.name,
    pages_enabled: form.pagesEnabled,
    business_email_required: form.businessEmailRequired,
    collection: renderCollection(collection),
    created_at: form.createdAt,
    updated_at: form.updatedAt,
  };
  if (form.pagesEnabled) out.pages_url = pagesUrl;
  if (form.redirectUrl !== null) out.redirect_url = form.redirectUrl;
  return out;
}

export const SubmissionWire = Type.Object(
  {
    type: Type.Literal('form_submission'),
    item: Type.Object({ id: Type.String(), type: Type.Literal('item'), collection: Type.Object({ id: Type.String(), type: Type.Literal('collection'), ref: Type.String() }) }),
    redirect_url: Type.Union([Type.String(), Type.Null()]),
  },
  { examples: [{ type: 'form_submission', item: { id: '1CLJt2v5NVwRc8nCqWZPnr', type: 'item', collection: { id: '1CLJt2v5Mc4yT9pXs2Rbdk', type: 'collection', ref: 'people' } }, redirect_url: 'https://acme.com/thanks' }] },
);

export function renderSubmission(s: Submission): Static<typeof SubmissionWire> {
  return {
    type: 'form_submission',
    item: { id: s.item.id, type: 'item', collection: { id: s.collection.id, type: 'collection', ref: s.collection.ref } },
    redirect_url: s.redirectUrl,
  };
}
