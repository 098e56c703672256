// Forms (reference §5.12). Creating a form creates its backing collection (`Form: <name>`, ref
// `form_<lower-cased form id>`, kind `form`) with default fields; deleting the form keeps the collection and
// its items. Submissions come in through a public Tycho extension: each is checked against the collection's
// fields, creates an item, records `activity/form_submitted`, and answers the form's rendered `redirect_url`
// (a Liquid template over `submission.<field ref>`) with the submission's UTM parameters appended.
import { AppError, invalidAt, orNotFound } from './errors.ts';
import { newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import { constituent, recordActivity } from './activity.ts';
import { createCollectionWithFields, getCollection, type CollectionWithFields } from './collections.ts';
import { loadSchema, type CollectionSchema } from './collection-schema.ts';
import { parseValueMap } from './item-values.ts';
import { createItemIn } from './item-writes.ts';
import { valueTypeOf, type Field, type FieldSpec } from './fields.ts';
import { isFreeOrDisposable } from './email-domains.ts';
import { parseTemplate, renderTemplate, RenderError } from './liquid.ts';
import type { Item } from './items.ts';
import type { Page, PageRequest } from './pagination.ts';
import type { Store } from './ports/store.ts';
import { characterCount, longerThan } from './characters.ts';

export interface Form {
  id: string;
  orgId: string;
  collectionId: string;
  name: string;
  pagesEnabled: boolean;
  businessEmailRequired: boolean;
  /** A Liquid template. */
  redirectUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface FormView {
  form: Form;
  collection: CollectionWithFields;
}

export interface FormInput {
  name?: string;
  pages_enabled?: boolean;
  business_email_required?: boolean;
  redirect_url?: string | null;
}

/** The fields a form's collection starts with, besides every collection's name and timestamps. */
const FORM_FIELDS: FieldSpec[] = [
  { name: 'Email', ref: 'email', type: 'field/email', kind: 'system' },
  { name: 'Message', ref: 'message', type: 'field/text/multi_line', kind: 'system' },
  { name: 'Country', ref: 'country', type: 'field/geo', kind: 'system' },
];

/** The UTM parameters a submission carries over to its redirect, in this order. */
export const UTM_PARAMETERS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;

const NAME_MAX = 255;
const REDIRECT_MAX = 8192;

function formName(value: string): string {
  const name = value.trim();
  if (name === '') throw invalidAt('/name', 'name must not be blank');
  if (longerThan(name, NAME_MAX)) throw invalidAt('/name', `name must be at most ${NAME_MAX} characters, got ${characterCount(name)}`);
  return name;
}

function redirectUrl(value: string | null): string | null {
  if (value === null) return null;
  if (value.trim() === '' || value.length > REDIRECT_MAX) {
    throw invalidAt('/redirect_url', `redirect_url must be 1 to ${REDIRECT_MAX} characters or null (to clear it), got ${value.length}`);
  }
  parseTemplate(value, '/redirect_url', 'redirect_url');
  return value;
}

export async function createForm(store: Store, orgId: string, input: FormInput & { name: string }, clock?: Clock): Promise<FormView> {
  const name = formName(input.name);
  const redirect = redirectUrl(input.redirect_url ?? null);
  return store.transaction(async (tx) => {
    const id = newId();
    const collection = await createCollectionWithFields(tx, orgId, { name: `Form: ${name}`, ref: `form_${id.toLowerCase()}`, kind: 'form', iconName: 'form', fields: FORM_FIELDS }, clock);
    const now = timestamp(clock);
    const form: Form = {
      id, orgId, collectionId: collection.collection.id, name, pagesEnabled: input.pages_enabled ?? false,
      businessEmailRequired: input.business_email_required ?? false, redirectUrl: redirect, createdAt: now, updatedAt: now,
    };
    await tx.forms.insert(form);
    return { form, collection };
  }, orgId);
}

export async function updateForm(store: Store, orgId: string, id: string, input: FormInput, clock?: Clock): Promise<FormView> {
  const name = input.name === undefined ? undefined : formName(input.name);
  const redirect = input.redirect_url === undefined ? undefined : redirectUrl(input.redirect_url);
  return store.transaction(async (tx) => {
    const current = await orNotFound(tx.forms.find(orgId, id));
    const now = timestamp(clock);
    const form: Form = { ...current, updatedAt: now };
    if (name !== undefined) form.name = name;
    if (redirect !== undefined) form.redirectUrl = redirect;
    if (input.pages_enabled !== undefined) form.pagesEnabled = input.pages_enabled;
    if (input.business_email_required !== undefined) form.businessEmailRequired = input.business_email_required;
    await tx.forms.update(form);
    if (name !== undefined) {
      // The collection's name follows the form's; its ref never changes.
      const collection = await tx.collections.find(orgId, form.collectionId);
      if (collection) await tx.collections.update({ ...collection, name: `Form: ${name}`, updatedAt: now });
    }
    return { form, collection: await getCollection(tx, orgId, form.collectionId) };
  }, orgId);
}

export async function getForm(store: Store, orgId: string, id: string): Promise<FormView> {
  const form = await orNotFound(store.forms.find(orgId, id));
  return { form, collection: await getCollection(store, orgId, form.collectionId) };
}

export async function listForms(store: Store, orgId: string, page: PageRequest): Promise<Page<FormView>> {
  const forms = await store.forms.list(orgId, page);
  const rows = [];
  for (const form of forms.rows) rows.push({ form, collection: await getCollection(store, orgId, form.collectionId) });
  return { ...forms, rows };
}

/** Deletes the form; its collection and the items submitted stay. */
export async function deleteForm(store: Store, orgId: string, id: string): Promise<void> {
  await store.transaction(async (tx) => {
    await orNotFound(tx.forms.find(orgId, id));
    await tx.forms.delete(orgId, id);
  });
}

/** The form with this id, whatever its organization (submissions and pages are public); 404 otherwise. */
export function findPublicForm(store: Store, id: string): Promise<Form> {
  return orNotFound(store.forms.findById(id));
}

/** The fields a submission may fill, for the form's page. */
export async function formFields(store: Store, form: Form): Promise<Field[]> {
  const schema = await loadSchema(store, form.orgId, form.collectionId);
  return schema.fields.filter((f) => !f.readonly && f.type !== 'field/relation');
}

export interface Submission {
  item: Item;
  collection: { id: string; ref: string };
  /** The rendered redirect with the UTM parameters, or null when the form has none. */
  redirectUrl: string | null;
}

/** Types whose plain text (from an HTML form) is read as a number or a boolean. */
const NUMERIC = new Set(['field/number/unitless_integer', 'field/number/unitless_float', 'field/number/percentage']);
const TRUE = new Set(['true', 'on', '1', 'yes']);
const FALSE = new Set(['false', 'off', '0', 'no']);

/** A plain value as `{type, data}` for its field; objects with a `type` are taken as the API's value objects. */
function wrap(field: Field, value: unknown): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'type' in value) return value;
  let data = value;
  if (typeof value === 'string' && NUMERIC.has(field.type) && value.trim() !== '' && Number.isFinite(Number(value))) data = Number(value);
  if (typeof value === 'string' && field.type === 'field/boolean') data = TRUE.has(value.toLowerCase()) ? true : FALSE.has(value.toLowerCase()) ? false : value;
  return { type: valueTypeOf(field.type), data };
}

/** The submission's values for the item (keys are field refs), with empty strings (blank inputs) left out. */
function submittedValues(schema: CollectionSchema, input: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(input)) {
    if (raw === '' || (Array.isArray(raw) && raw.every((v) => v === ''))) continue;
    const field = schema.byRef.get(key);
    // Unknown keys are left for parseValueMap, which names the fields there are.
    values[key] = field === undefined ? raw : Array.isArray(raw) ? raw.filter((v) => v !== '').map((v) => wrap(field, v)) : wrap(field, raw);
  }
  return values;
}

/** The rendered redirect with `utm` appended; a 422 when it does not render to an absolute http(s) URL. */
async function redirectFor(form: Form, submission: Record<string, unknown>, utm: Record<string, string>): Promise<string | null> {
  if (form.redirectUrl === null) return null;
  let url: URL;
  try {
    url = new URL((await renderTemplate(form.redirectUrl, { submission })).trim());
  } catch (error) {
    const problem = error instanceof RenderError ? error.message : 'it is not an absolute URL';
    throw new AppError('invalid_state', `the form's redirect_url did not render to a URL with this submission (${problem}); fix the form's redirect_url`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('invalid_state', `the form's redirect_url rendered to a ${url.protocol} URL; it must render to an http or https URL`);
  }
  for (const name of UTM_PARAMETERS) if (utm[name] !== undefined) url.searchParams.set(name, utm[name]);
  return url.toString();
}

/**
 * A public submission: `input` maps field refs to plain values (or the API's `{type, data}` objects); `utm`
 * holds the UTM parameters of the page it came from. Keys named like UTM parameters that are no field of
 * the form are taken as UTM parameters too.
 */
export async function submitForm(store: Store, form: Form, input: Record<string, unknown>, utm: Record<string, string>, clock?: Clock): Promise<Submission> {
  const schema = await loadSchema(store, form.orgId, form.collectionId);
  const fields: Record<string, unknown> = {};
  const carried = { ...utm };
  for (const [key, value] of Object.entries(input)) {
    if ((UTM_PARAMETERS as readonly string[]).includes(key) && !schema.byRef.has(key)) {
      if (typeof value === 'string') carried[key] ??= value;
    } else fields[key] = value;
  }
  const values = submittedValues(schema, fields);
  // Checked before the redirect is rendered, so a bad value is reported at its pointer first.
  parseValueMap(schema, values, '');
  if (form.businessEmailRequired) checkBusinessEmail(schema, values);
  const redirect = await redirectFor(form, fields, carried);
  return store.transaction(async (tx) => {
    const { item } = await createItemIn(tx, form.orgId, form.collectionId, values, '', clock);
    const collection = { id: schema.collection.id, type: 'collection', ref: schema.collection.ref };
    await recordActivity(tx, form.orgId, 'activity/form_submitted', item.createdAt, [
      constituent('object', { id: item.id, type: 'item', collection }),
      constituent('target', collection),
    ]);
    return { item, collection, redirectUrl: redirect };
  });
}

/** The form's email field must hold an address at a domain that is no free or disposable provider. */
function checkBusinessEmail(schema: CollectionSchema, values: Record<string, unknown>): void {
  const field = schema.fields.find((f) => f.type === 'field/email');
  if (!field) return;
  const given = values[field.ref];
  const first = Array.isArray(given) ? given[0] : given;
  const address = (first as { data?: unknown } | undefined)?.data;
  if (address === undefined) throw invalidAt(`/${field.ref}`, `${field.ref} is required: this form takes business email addresses, such as "jane@acme.com"`);
  if (typeof address === 'string' && isFreeOrDisposable(address)) {
    throw invalidAt(`/${field.ref}`, `${field.ref} "${address}" is at a free or disposable email provider; this form takes business addresses, such as "jane@acme.com"`);
  }
}
