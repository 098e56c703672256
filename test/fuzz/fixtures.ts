// Real data for the fuzzer to aim at: a custom collection with a field of every type, items, a funnel, a note,
// a tagset, a file, an inbox with a draft (and attachment) and a sent message, another organization's records,
// real cursors and a real download link. Generators refer to these through markers (see markers below) that
// are resolved when a request is sent, so a generated request stays small and printable.
//
// Fuzzed writes may delete or change fixtures; refresh() re-reads the pools from the API and re-creates what
// went missing, between operations.
import type { FuzzHarness, WireResponse } from './harness.ts';
import { createInbox } from '../../src/domain/inboxes.ts';

export const CUSTOM_REF = 'fuzz_things';

/** The custom collection's fields: ref, creation body. */
export const FIELD_SPECS: [string, Record<string, unknown>][] = [
  ['title', { type: 'field/text/single_line', name: 'Title' }],
  ['notes', { type: 'field/text/multi_line', name: 'Notes' }],
  ['code', { type: 'field/identifier', name: 'Code', unique: true }],
  ['count', { type: 'field/number/unitless_integer', name: 'Count' }],
  ['ratio', { type: 'field/number/unitless_float', name: 'Ratio' }],
  ['price', { type: 'field/number/monetary', name: 'Price', default_unit: 'USD' }],
  ['share', { type: 'field/number/percentage', name: 'Share' }],
  ['active', { type: 'field/boolean', name: 'Active' }],
  ['emails', { type: 'field/email', name: 'Emails', cardinality: 'many' }],
  ['website', { type: 'field/uri/url', name: 'Website' }],
  ['domain', { type: 'field/uri/domain', name: 'Domain' }],
  ['x_profile', { type: 'field/uri/social_x', name: 'X Profile' }],
  ['linkedin', { type: 'field/uri/social_linked_in', name: 'LinkedIn' }],
  ['phone', { type: 'field/telephone_number', name: 'Phone' }],
  ['location', { type: 'field/geo', name: 'Location' }],
  ['born', { type: 'field/date', name: 'Born' }],
  ['met_at', { type: 'field/datetime', name: 'Met At' }],
  ['tier', { type: 'field/choice', name: 'Tier', options: [{ name: 'Gold', color: 'amber' }, { name: 'Silver' }] }],
  ['labels', { type: 'field/choice', name: 'Labels', cardinality: 'many', options: [{ name: 'red' }, { name: 'blue' }, { name: 'green' }] }],
  ['stage', { type: 'field/stage', name: 'Stage', stages: [{ name: 'Open', step_type: 'active' }, { name: 'Won', step_type: 'success' }, { name: 'Lost', step_type: 'failure' }] }],
  ['company', { type: 'field/relation', name: 'Company', relation_type: 'one_way', allowed_collections: [{ type: 'collection', ref: 'organizations' }] }],
  ['contacts', { type: 'field/relation', name: 'Contacts', cardinality: 'many', relation_type: 'two_way', allowed_collections: [{ type: 'collection', ref: 'people' }], reverse_field_name: 'Things' }],
];

export interface Entry {
  id: string;
  /** Another way to address it (a ref), when there is one. */
  alt?: string;
  /** Ids of the records it lives under, by path parameter name (`collection_id`, `message_id`, `org`). */
  parent?: Record<string, string>;
  /** A field's type (for PATCH bodies that keep it). */
  type?: string;
}

export interface FieldInfo {
  id: string;
  ref: string;
  type: string;
  cardinality: string;
  collection: string;
  system: boolean;
}

export const RESOURCES = [
  'collection', 'field', 'funnel', 'step', 'option', 'item', 'activity', 'tagset', 'tag', 'note', 'inbox', 'file',
  'conversation', 'message', 'draft', 'attachment', 'org', 'foreign', 'view', 'meeting', 'call',
] as const;
export type Resource = (typeof RESOURCES)[number];

export interface Fixtures {
  pools: Record<Resource, Entry[]>;
  /** Real cursors (`next` of a first page of one) by list operation path (`GET /v0/notes`, …). */
  cursors: Map<string, string[]>;
  /** Real signed download paths (path and query). */
  downloads: string[];
  /** Fields values can be generated for: the custom collection's and the system collections'. */
  fields: FieldInfo[];
  customId: string;
  otherKey: string;
  readOnlyKey: string;
}

async function call(h: FuzzHarness, method: string, url: string, body?: unknown, key = h.key): Promise<WireResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return h.send({ method, url, headers, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) }, 60_000);
}

async function expect(h: FuzzHarness, method: string, url: string, body: unknown, status: number, key?: string): Promise<any> {
  const res = await call(h, method, url, body, key);
  if (res.status !== status) throw new Error(`fixture set-up: ${method} ${url} answered ${res.status}, expected ${status}: ${res.text} ${res.serverErrors.join(' | ')}`);
  return res.body;
}

const BOUNDARY = 'FuzzFixtureBoundary';

function multipart(parts: { name: string; filename?: string; content: string }[]): Buffer {
  let text = '';
  for (const p of parts) {
    text += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}\r\n`;
    if (p.filename) text += 'Content-Type: text/plain\r\n';
    text += `\r\n${p.content}\r\n`;
  }
  return Buffer.from(`${text}--${BOUNDARY}--\r\n`);
}

async function upload(h: FuzzHarness, url: string, parts: { name: string; filename?: string; content: string }[]): Promise<any> {
  const res = await h.send(
    { method: 'POST', url, headers: { authorization: `Bearer ${h.key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, payload: multipart(parts) },
    60_000,
  );
  if (res.status !== 201) throw new Error(`fixture set-up: upload to ${url} answered ${res.status}: ${res.text} ${res.serverErrors.join(' | ')}`);
  return res.body;
}

const val = (type: string, data: unknown) => ({ type: `value/${type}`, data });

export async function createFixtures(h: FuzzHarness): Promise<Fixtures> {
  const custom = await expect(h, 'POST', '/v0/collections', { name: 'Fuzz Things', description: 'fuzz fixtures' }, 201);
  await expect(h, 'POST', '/v0/funnels', { name: 'Fuzz Funnel', steps: [{ name: 'Lead', step_type: 'active' }, { name: 'Done', step_type: 'success' }] }, 201);
  for (const [, body] of FIELD_SPECS) await expect(h, 'POST', `/v0/collections/${custom.id}/fields`, body, 201);

  const acme = await expect(h, 'POST', '/v0/collections/organizations/items', { values: { name: val('text/single_line', 'Acme'), domain: [val('uri/domain', 'acme.test')] } }, 201);
  const ada = await expect(h, 'POST', '/v0/collections/people/items', { values: { name: val('text/single_line', 'Ada'), email: [val('email', 'ada@acme.test')] } }, 201);
  await expect(h, 'POST', '/v0/collections/people/items', { values: { name: val('text/single_line', 'Bob'), email: [val('email', 'bob@elsewhere.test')] } }, 201);
  const fields = (await expect(h, 'GET', `/v0/collections/${custom.id}`, undefined, 200)).fields as any[];
  const byRef = (ref: string) => fields.find((f) => f.ref === ref);
  for (let i = 0; i < 3; i++) {
    await expect(h, 'POST', `/v0/collections/${custom.id}/items`, {
      values: {
        title: val('text/single_line', `Thing ${i}`),
        code: val('identifier', `T-${i}`),
        count: val('number/unitless_integer', i * 10),
        price: val('number/monetary', { currency: 'USD', in_minor_units: 1000 + i }),
        active: val('boolean', i % 2 === 0),
        emails: [val('email', `thing${i}@acme.test`)],
        born: val('date', `2020-01-0${i + 1}`),
        tier: val('choice', { type: 'choice_field_option', id: byRef('tier').options[i % 2].id }),
        stage: val('funnel_step', { type: 'funnel_step', id: byRef('stage').funnel.steps[i].id }),
        company: val('relation', { type: 'item', id: acme.id }),
        contacts: [val('relation', { type: 'item', id: ada.id })],
      },
    }, 201);
  }
  const firstItem = (await expect(h, 'GET', `/v0/collections/${custom.id}/items?limit=1`, undefined, 200)).data[0];
  await expect(h, 'POST', '/v0/notes', { body: { markdown: '# Fuzz note\nbody' }, associations: [{ type: 'item', id: firstItem.id }] }, 201);
  await expect(h, 'POST', '/v0/notes', { body: 'second note' }, 201);
  const inbox = await createInbox(h.store, h.orgId, { name: 'Fuzz Inbox', email: 'fuzz@tycho.test' });
  await expect(h, 'POST', '/v0/tagsets', { name: 'Fuzz Tags', tags: [{ name: 'hot', color: 'red' }, { name: 'cold' }], associations: [{ type: 'calls' }, { type: 'inbox', id: inbox.id }] }, 201);
  await upload(h, '/v0/files', [
    { name: 'file', filename: 'fuzz.txt', content: 'fuzz file contents' },
    { name: 'name', content: 'Fuzz File' },
    { name: 'associations[][id]', content: firstItem.id },
    { name: 'associations[][type]', content: 'item' },
  ]);
  const draft = await expect(h, 'POST', '/v0/inbox_messages', { inbox_id: inbox.id, subject: 'Fuzz', body: { markdown: 'draft' }, to: [{ email: 'ada@acme.test', name: 'Ada' }] }, 201);
  await upload(h, `/v0/inbox_messages/${draft.id}/attachments`, [{ name: 'file', filename: 'attached.txt', content: 'attached' }]);
  const sent = await expect(h, 'POST', '/v0/inbox_messages', { inbox_id: inbox.id, body: 'to be sent', to: [{ email: 'bob@elsewhere.test' }] }, 201);
  await expect(h, 'POST', `/v0/tycho/inbox_messages/${sent.id}/send`, undefined, 200);

  // Meetings, calls and views where the API has them (set-up does not insist).
  await call(h, 'POST', '/v0/tycho/meetings', { i_cal_uid: 'fuzz-meeting@tycho.test', title: 'Fuzz meeting', start_at: '2025-01-01T10:00:00Z', end_at: '2025-01-01T11:00:00Z' });
  await call(h, 'POST', '/v0/calls', {
    direction: 'incoming', participants: [{ phone: '+14155552671', role: 'caller' }], provider: 'openphone', provider_id: 'fuzz-call-1',
    provider_status: 'completed', start_at: '2025-01-01T10:00:00Z',
  });
  await call(h, 'POST', `/v0/tycho/collections/${custom.id}/views`, { name: 'Fuzz view', filter: { op: 'exists', field: 'title' }, sort: ['-count'] });

  // Another organization's records: every id of it must answer 404 here.
  const other = await h.newOrg(`fuzz-other-${process.pid}-${Date.now()}`);
  const foreignCollection = await expect(h, 'POST', '/v0/collections', { name: 'Theirs' }, 201, other.key);
  const foreignItem = await expect(h, 'POST', '/v0/collections/people/items', { values: { name: val('text/single_line', 'Eve') } }, 201, other.key);
  const foreignNote = await expect(h, 'POST', '/v0/notes', { body: 'theirs' }, 201, other.key);

  const fixtures: Fixtures = {
    pools: Object.fromEntries(RESOURCES.map((r) => [r, [] as Entry[]])) as unknown as Fixtures['pools'],
    cursors: new Map(),
    downloads: [],
    fields: [],
    customId: custom.id,
    otherKey: other.key,
    readOnlyKey: await h.readOnlyKey(),
  };
  fixtures.pools.foreign = [{ id: foreignCollection.id }, { id: foreignItem.id, parent: { collection_id: 'people' } }, { id: foreignNote.id }, { id: other.orgId }];
  fixtures.pools.org = [{ id: h.orgId }, { id: other.orgId }];
  await refresh(h, fixtures);
  return fixtures;
}

const POOL_SIZE = 8;

/** Re-reads every pool from the API, re-creating fields, items, notes, drafts … that fuzzed writes removed. */
export async function refresh(h: FuzzHarness, fx: Fixtures): Promise<void> {
  const list = async (url: string): Promise<any[]> => (await expect(h, 'GET', url, undefined, 200)).data;
  const { pools } = fx;

  const custom = await expect(h, 'GET', `/v0/collections/${fx.customId}`, undefined, 200);
  const present = new Set((custom.fields as any[]).map((f) => f.ref));
  for (const [ref, body] of FIELD_SPECS) {
    if (present.has(ref)) continue;
    // A field of that name may survive under another ref (renamed); a fresh one gets ref_2 and so on, fine.
    await call(h, 'POST', `/v0/collections/${fx.customId}/fields`, body);
  }
  const collections = await list('/v0/collections?limit=100');
  pools.collection = collections.slice(0, POOL_SIZE).map((c) => ({ id: c.id, alt: c.ref }));
  // The custom collection first: most generated ids point into it.
  pools.collection.sort((a, b) => Number(b.id === fx.customId) - Number(a.id === fx.customId));

  fx.fields = [];
  pools.field = [];
  pools.option = [];
  pools.step = [];
  for (const ref of [fx.customId, 'people', 'organizations']) {
    const collection = await expect(h, 'GET', `/v0/collections/${ref}`, undefined, 200);
    for (const f of collection.fields as any[]) {
      fx.fields.push({ id: f.id, ref: f.ref, type: f.type, cardinality: f.cardinality, collection: collection.id, system: f.kind !== 'custom' });
      pools.field.push({ id: f.id, alt: f.ref, parent: { collection_id: collection.id }, type: f.type });
      for (const o of f.options ?? []) pools.option.push({ id: o.id, parent: { collection_id: collection.id } });
      for (const s of f.funnel?.steps ?? []) pools.step.push({ id: s.id });
    }
  }
  // Custom fields first (the system ones refuse most changes), capped so indexes stay meaningful.
  const system = new Set(fx.fields.filter((f) => f.system).map((f) => f.id));
  pools.field = [...pools.field.filter((e) => !system.has(e.id)), ...pools.field.filter((e) => system.has(e.id))].slice(0, 30);

  const funnels = await list('/v0/funnels?limit=100');
  pools.funnel = funnels.slice(0, POOL_SIZE).map((f) => ({ id: f.id }));
  for (const f of funnels.slice(0, POOL_SIZE)) for (const s of f.steps ?? []) pools.step.push({ id: s.id });

  let items = await list(`/v0/collections/${fx.customId}/items?limit=${POOL_SIZE}`);
  if (items.length < 2) {
    await call(h, 'POST', `/v0/collections/${fx.customId}/items`, { values: { title: val('text/single_line', 'Refilled') } });
    items = await list(`/v0/collections/${fx.customId}/items?limit=${POOL_SIZE}`);
  }
  let people = await list('/v0/collections/people/items?limit=4');
  if (people.length === 0) {
    await call(h, 'POST', '/v0/collections/people/items', { values: { name: val('text/single_line', 'Refilled') } });
    people = await list('/v0/collections/people/items?limit=4');
  }
  let orgs = await list('/v0/collections/organizations/items?limit=4');
  if (orgs.length === 0) {
    await call(h, 'POST', '/v0/collections/organizations/items', { values: { name: val('text/single_line', 'Refilled') } });
    orgs = await list('/v0/collections/organizations/items?limit=4');
  }
  pools.item = [
    ...items.map((i) => ({ id: i.id, parent: { collection_id: fx.customId } })),
    ...people.map((i) => ({ id: i.id, parent: { collection_id: 'people' } })),
    ...orgs.map((i) => ({ id: i.id, parent: { collection_id: 'organizations' } })),
  ];

  pools.activity = (await list('/v0/activities?limit=20')).slice(0, POOL_SIZE).map((a) => ({ id: a.id }));

  let tagsets = await list('/v0/tagsets?limit=100');
  if (tagsets.length === 0) {
    await call(h, 'POST', '/v0/tagsets', { name: 'Refilled', tags: [{ name: 'a' }] });
    tagsets = await list('/v0/tagsets?limit=100');
  }
  pools.tagset = tagsets.slice(0, POOL_SIZE).map((t) => ({ id: t.id }));
  pools.tag = tagsets.slice(0, POOL_SIZE).flatMap((t) => (t.tags ?? []).map((tag: any) => ({ id: tag.id }))).slice(0, 20);

  let notes = await list('/v0/notes?limit=100');
  if (notes.length === 0) {
    await call(h, 'POST', '/v0/notes', { body: 'refilled' });
    notes = await list('/v0/notes?limit=100');
  }
  pools.note = notes.slice(0, POOL_SIZE).map((n) => ({ id: n.id }));

  const inboxes = await list('/v0/inboxes?limit=100');
  pools.inbox = inboxes.slice(0, POOL_SIZE).map((i) => ({ id: i.id }));

  let files = await list('/v0/files?limit=100');
  if (files.length === 0) {
    await upload(h, '/v0/files', [{ name: 'file', filename: 'refill.txt', content: 'refilled' }]);
    files = await list('/v0/files?limit=100');
  }
  pools.file = files.slice(0, POOL_SIZE).map((f) => ({ id: f.id }));
  fx.downloads = files.slice(0, 2).map((f) => {
    const url = new URL(f.download_url);
    return url.pathname + url.search;
  });

  pools.conversation = (await list('/v0/inbox_conversations?limit=100')).slice(0, POOL_SIZE).map((c) => ({ id: c.id }));
  // Lists give pointers; a retrieve tells drafts from sent messages.
  const messages = (await list('/v0/inbox_messages?limit=100')).slice(0, 12);
  const detailed = await Promise.all(messages.map((m) => expect(h, 'GET', `/v0/inbox_messages/${m.id}?include[]=attachments`, undefined, 200)));
  let drafts = detailed.filter((m) => m.draft);
  if (drafts.length === 0 && pools.inbox[0]) {
    const draft = await expect(h, 'POST', '/v0/inbox_messages', { inbox_id: pools.inbox[0].id, body: 'refilled draft' }, 201);
    await upload(h, `/v0/inbox_messages/${draft.id}/attachments`, [{ name: 'file', filename: 'refill.txt', content: 'refilled' }]);
    drafts = [await expect(h, 'GET', `/v0/inbox_messages/${draft.id}?include[]=attachments`, undefined, 200)];
    detailed.push(drafts[0]);
  }
  pools.message = detailed.slice(0, POOL_SIZE).map((m) => ({ id: m.id }));
  pools.draft = drafts.slice(0, POOL_SIZE).map((m) => ({ id: m.id }));
  pools.attachment = detailed.flatMap((m) => (m.attachments ?? []).map((a: any) => ({ id: a.id, parent: { message_id: m.id } }))).slice(0, POOL_SIZE);

  // Resources that not every version of the API has: their pools stay empty where the list is missing.
  const optional = async (url: string): Promise<any[]> => {
    const res = await call(h, 'GET', url);
    return res.status === 200 && Array.isArray(res.body?.data) ? res.body.data : [];
  };
  pools.meeting = (await optional('/v0/meetings?limit=100')).slice(0, POOL_SIZE).map((m) => ({ id: m.id }));
  pools.call = (await optional('/v0/calls?limit=100')).slice(0, POOL_SIZE).map((c) => ({ id: c.id }));
  const withViews = await call(h, 'GET', `/v0/collections/${fx.customId}?include[]=views`);
  pools.view = (Array.isArray(withViews.body?.views) ? withViews.body.views : []).slice(0, POOL_SIZE).map((v: any) => ({ id: v.id }));

  await collectCursors(h, fx);
}

/** `next` cursors of real first pages, one per list (and a sorted one for items). */
async function collectCursors(h: FuzzHarness, fx: Fixtures): Promise<void> {
  const lists: [string, string, string, unknown?][] = [
    ['GET /v0/collections', 'GET', '/v0/collections?limit=1'],
    ['GET /v0/funnels', 'GET', '/v0/funnels?limit=1'],
    ['GET /v0/collections/{collection_id}/items', 'GET', `/v0/collections/${fx.customId}/items?limit=1`],
    ['GET /v0/collections/{collection_id}/items', 'GET', `/v0/collections/${fx.customId}/items?limit=1&sort[]=-title&sort[]=count`],
    ['POST /v0/collections/{collection_id}/items/search', 'POST', `/v0/collections/${fx.customId}/items/search?limit=1`, {}],
    ['POST /v0/collections/{collection_id}/items/search', 'POST', `/v0/collections/${fx.customId}/items/search?limit=1`, { sort: ['-price'] }],
    ['GET /v0/activities', 'GET', '/v0/activities?limit=1'],
    ['GET /v0/tagsets', 'GET', '/v0/tagsets?limit=1'],
    ['GET /v0/notes', 'GET', '/v0/notes?limit=1'],
    ['GET /v0/inboxes', 'GET', '/v0/inboxes?limit=1'],
    ['GET /v0/files', 'GET', '/v0/files?limit=1'],
    ['GET /v0/inbox_conversations', 'GET', '/v0/inbox_conversations?limit=1'],
    ['GET /v0/inbox_messages', 'GET', '/v0/inbox_messages?limit=1'],
    ['GET /v0/meetings', 'GET', '/v0/meetings?limit=1'],
    ['GET /v0/calls', 'GET', '/v0/calls?limit=1'],
    ...fx.pools.view.slice(0, 1).map((v): [string, string, string] => ['GET /v0/views/{id}/items', 'GET', `/v0/views/${v.id}/items?limit=1`]),
  ];
  fx.cursors = new Map();
  for (const [name, method, url, body] of lists) {
    const res = await call(h, method, url, body);
    const cursor = res.body?.meta?.cursors?.next;
    if (typeof cursor !== 'string') continue;
    const found = fx.cursors.get(name) ?? [];
    found.push(cursor);
    fx.cursors.set(name, found);
  }
}

// ---- markers ----------------------------------------------------------------------------------------------
// A generated value holds `\u0002FX:<resource>:<index>:<form>\u0002` where a real id goes, and
// `\u0002LOCK:<resource>:<index>\u0002` where the current lock_version of a note or draft goes.

export const fixtureMarker = (resource: Resource, index: number, form: 'id' | 'alt' = 'id') => `\u0002FX:${resource}:${index}:${form}\u0002`;
export const lockMarker = (resource: 'note' | 'draft', index: number) => `\u0002LOCK:${resource}:${index}\u0002`;
const MARKER = /\u0002(FX|LOCK):([a-z]+):(\d+)(?::([a-z]+))?\u0002/g;
const WHOLE_MARKER = /^\u0002(FX|LOCK):([a-z]+):(\d+)(?::([a-z]+))?\u0002$/;

export function entryOf(fx: Fixtures, resource: string, index: number): Entry | undefined {
  const pool = fx.pools[resource as Resource];
  if (!pool || pool.length === 0) return undefined;
  return pool[index % pool.length];
}

export function resolveId(fx: Fixtures, resource: string, index: number, form = 'id'): string {
  const entry = entryOf(fx, resource, index);
  if (!entry) return '1111111111111111111111';
  return form === 'alt' && entry.alt ? entry.alt : entry.id;
}

/** Replaces markers inside a string (ids only; lock markers inside larger strings become 0). */
export function resolveInString(fx: Fixtures, text: string): string {
  if (!text.includes('\u0002')) return text;
  return text.replace(MARKER, (_, kind: string, resource: string, index: string, form?: string) => (kind === 'FX' ? resolveId(fx, resource, Number(index), form) : '0'));
}

/** Stands for the type of the field a request's path names (PATCH bodies must repeat it). */
export const FIELD_TYPE_MARKER = '\u0002FIELDTYPE\u0002';

/**
 * Resolves markers anywhere in a JSON-like value; a string that is only a lock marker becomes a number.
 * `fieldType` replaces FIELD_TYPE_MARKER.
 */
export async function resolveValue(h: FuzzHarness, fx: Fixtures, value: unknown, fieldType = 'field/text/single_line'): Promise<unknown> {
  if (value === FIELD_TYPE_MARKER) return fieldType;
  if (typeof value === 'string') {
    const whole = WHOLE_MARKER.exec(value);
    if (whole && whole[1] === 'LOCK') return lockVersion(h, fx, whole[2] as 'note' | 'draft', Number(whole[3]));
    return resolveInString(fx, value);
  }
  if (Array.isArray(value)) return Promise.all(value.map((v) => resolveValue(h, fx, v, fieldType)));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // Own property even for "__proto__".
      Object.defineProperty(out, resolveInString(fx, k), { value: await resolveValue(h, fx, v, fieldType), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

async function lockVersion(h: FuzzHarness, fx: Fixtures, resource: 'note' | 'draft', index: number): Promise<number> {
  const id = resolveId(fx, resource, index);
  const res = await call(h, 'GET', resource === 'note' ? `/v0/notes/${id}` : `/v0/inbox_messages/${id}`);
  return typeof res.body?.lock_version === 'number' ? res.body.lock_version : 0;
}
