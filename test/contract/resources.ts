// The resources the contract suite (contract.test.ts) checks, one table row each: how to make one, where it
// is retrieved and listed, and which writes it takes. Adding a resource to the API means adding one row here;
// the suite then checks its 404s, organization isolation, read-only keys, pagination and cursors on every
// engine.
import assert from 'node:assert/strict';
import type { Harness, Response } from '../helpers/harness.ts';
import { BOUNDARY, multipartBody, type Part } from '../helpers/multipart.ts';
import { authenticate } from '../../src/domain/api-keys.ts';
import { createInbox } from '../../src/domain/inboxes.ts';

/** What a write sends: a JSON body, a multipart body, or nothing. */
export type Payload = { json: unknown } | { multipart: Part[] } | undefined;

/** A write on one existing record (PATCH, DELETE, or an action such as send). */
export interface RecordWrite {
  name: string;
  method: 'POST' | 'PATCH' | 'DELETE';
  path(id: string): string;
  payload?: Payload;
}

/** A write that makes records (POST to a list path, upsert). */
export interface CollectionWrite {
  name: string;
  method: 'POST';
  path: string;
  /** The payload, or how to build it for the organization of `key` (a read-write key of it). */
  payload: Payload | ((h: Harness, key: string) => Promise<Payload>);
}

export interface ResourceContract {
  name: string;
  /** Makes one record in the key's organization through the API (or the domain, where the API cannot); returns its id. */
  create(h: Harness, key: string): Promise<string>;
  /** Where one record is retrieved. */
  retrieve(id: string): string;
  /** The fullest view of one record (retrieve with every include), to see that a refused write changed nothing; defaults to retrieve. */
  inspect?(id: string): string;
  /** Where the records are listed, if they are; `newest first` lists put the latest record on the first page. */
  list?: { path: string; order: 'oldest first' | 'newest first' };
  /** List queries that name one record (filters by its id); another organization's key must get none of them. */
  lookups?(id: string): string[];
  /** Writes that make records. */
  creates: CollectionWrite[];
  /** Writes on one record. */
  writes: RecordWrite[];
  /**
   * A GET path whose answer a refused create must leave as it was, when the resource has no list (fields: the
   * collection that holds them).
   */
  container?: string;
  /** The retrieved record minus what legitimately changes between two reads (e.g. a freshly signed URL). */
  stable?(body: any): unknown;
}

let counter = 0;
/** A name no other record of the run has. */
const unique = (prefix: string) => `${prefix} ${process.pid}-${++counter}`;

const json = (body: unknown): Payload => ({ json: body });
const textFile = (content: string): Part => ({ name: 'file', filename: 'contract.txt', content, contentType: 'text/plain' });

/** Sends `payload` (JSON or multipart, or nothing) with `key`. */
export function send(h: Harness, method: string, url: string, payload: Payload, key: string): Promise<Response> {
  if (payload && 'multipart' in payload) {
    return h.request(method, url, { payload: multipartBody(payload.multipart), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, key });
  }
  return h.request(method, url, { ...(payload ? { body: payload.json } : {}), key });
}

async function created(h: Harness, url: string, payload: Payload, key: string): Promise<any> {
  const res = await send(h, 'POST', url, payload, key);
  assert.equal(res.status, 201, `POST ${url}: ${res.text}`);
  return res.body;
}

async function orgOf(h: Harness, key: string): Promise<string> {
  const principal = await authenticate(h.store, key);
  assert.ok(principal, 'the key is known');
  return principal.orgId;
}

/** One inbox per organization for the drafts the table makes (inboxes have no API to create them). */
const inboxes = new Map<string, Promise<string>>();
function inboxOf(h: Harness, orgId: string): Promise<string> {
  let inbox = inboxes.get(orgId);
  if (!inbox) {
    inbox = createInbox(h.store, orgId, { name: 'Contract', email: `contract-${orgId.toLowerCase()}@tycho.test` }).then((i) => i.id);
    inboxes.set(orgId, inbox);
  }
  return inbox;
}

const draftBody = async (h: Harness, key: string) => ({ inbox_id: await inboxOf(h, await orgOf(h, key)), subject: unique('Subject'), body: 'Hello' });

const personValues = () => ({ name: { type: 'value/text/single_line', data: unique('Person') } });
const funnelBody = () => ({ name: unique('Funnel'), steps: [{ name: 'Open', step_type: 'active' }] });
const fieldBody = () => ({ type: 'field/text/single_line', name: unique('Field') });

/** A template body for a new published, API-triggered program of the key's organization. */
const templateBody = async (h: Harness, key: string) => ({
  program_id: (await created(h, '/v0/tycho/programs', json({ status: 'published' }), key)).id,
  subject: `Hello {{ person.name }} ${unique('subject')}`,
  body: { markdown: 'Hi {{ first_name }}' },
});

/** A call body with a provider call id no other call of the run has. */
const callBody = () => ({
  direction: 'incoming',
  participants: [{ phone: '+14155552671', role: 'caller' }],
  provider: 'openphone',
  provider_id: unique('contract-call'),
  provider_status: 'completed',
  start_at: '2025-02-17T15:01:00Z',
});

/** A meeting body with a calendar UID no other meeting of the run has. */
const meetingBody = () => ({
  i_cal_uid: `${unique('contract-meeting').replace(' ', '-')}@tycho.test`,
  title: 'Contract meeting',
  start_at: '2030-02-17T15:00:00Z',
  end_at: '2030-02-17T16:00:00Z',
  organizer: { email: 'organizer@contract.test' },
});

export const RESOURCES: ResourceContract[] = [
  {
    name: 'collections',
    create: async (h, key) => (await created(h, '/v0/collections', json({ name: unique('Collection') }), key)).id,
    retrieve: (id) => `/v0/collections/${id}`,
    list: { path: '/v0/collections', order: 'oldest first' },
    creates: [{ name: 'create', method: 'POST', path: '/v0/collections', payload: json({ name: 'Refused collection' }) }],
    writes: [{ name: 'update', method: 'PATCH', path: (id) => `/v0/collections/${id}`, payload: json({ name: 'Renamed' }) }],
  },
  {
    // Items of the system `people` collection, addressed by ref: another organization has a `people` collection
    // of its own, so only the item's ownership keeps it out.
    name: 'items',
    create: async (h, key) => (await created(h, '/v0/collections/people/items', json({ values: personValues() }), key)).id,
    retrieve: (id) => `/v0/collections/people/items/${id}`,
    list: { path: '/v0/collections/people/items', order: 'oldest first' },
    creates: [
      { name: 'create', method: 'POST', path: '/v0/collections/people/items', payload: json({ values: personValues() }) },
      {
        name: 'upsert',
        method: 'POST',
        path: '/v0/collections/people/items/upsert',
        payload: json({ identifiers: { email: [{ type: 'value/email', data: 'refused@contract.test' }] }, values: personValues() }),
      },
    ],
    writes: [
      { name: 'update', method: 'PATCH', path: (id) => `/v0/collections/people/items/${id}`, payload: json({ values: personValues() }) },
      { name: 'delete', method: 'DELETE', path: (id) => `/v0/collections/people/items/${id}` },
    ],
  },
  {
    // Fields have no list of their own; they are listed inside their collection.
    name: 'fields',
    create: async (h, key) => (await created(h, '/v0/collections/people/fields', json(fieldBody()), key)).id,
    retrieve: (id) => `/v0/collections/people/fields/${id}`,
    creates: [{ name: 'create', method: 'POST', path: '/v0/collections/people/fields', payload: json(fieldBody()) }],
    writes: [
      { name: 'update', method: 'PATCH', path: (id) => `/v0/collections/people/fields/${id}`, payload: json({ type: 'field/text/single_line', name: 'Renamed' }) },
      { name: 'delete', method: 'DELETE', path: (id) => `/v0/collections/people/fields/${id}` },
    ],
    container: '/v0/collections/people',
  },
  {
    name: 'funnels',
    create: async (h, key) => (await created(h, '/v0/funnels', json(funnelBody()), key)).id,
    retrieve: (id) => `/v0/funnels/${id}`,
    list: { path: '/v0/funnels', order: 'oldest first' },
    creates: [{ name: 'create', method: 'POST', path: '/v0/funnels', payload: json(funnelBody()) }],
    writes: [
      { name: 'update', method: 'PATCH', path: (id) => `/v0/funnels/${id}`, payload: json({ name: 'Renamed' }) },
      { name: 'delete', method: 'DELETE', path: (id) => `/v0/funnels/${id}` },
    ],
  },
  {
    name: 'tagsets',
    create: async (h, key) => (await created(h, '/v0/tagsets', json({ name: unique('Tagset'), tags: [{ name: 'Hot' }] }), key)).id,
    retrieve: (id) => `/v0/tagsets/${id}`,
    list: { path: '/v0/tagsets', order: 'oldest first' },
    creates: [{ name: 'create', method: 'POST', path: '/v0/tagsets', payload: json({ name: 'Refused tagset', tags: [] }) }],
    writes: [
      { name: 'update', method: 'PATCH', path: (id) => `/v0/tagsets/${id}`, payload: json({ name: 'Renamed' }) },
      { name: 'delete', method: 'DELETE', path: (id) => `/v0/tagsets/${id}` },
    ],
  },
  {
    name: 'notes',
    create: async (h, key) => (await created(h, '/v0/notes', json({ body: `# ${unique('Note')}\nbody` }), key)).id,
    retrieve: (id) => `/v0/notes/${id}`,
    list: { path: '/v0/notes', order: 'oldest first' },
    creates: [{ name: 'create', method: 'POST', path: '/v0/notes', payload: json({ body: 'refused' }) }],
    writes: [
      { name: 'update', method: 'PATCH', path: (id) => `/v0/notes/${id}`, payload: json({ body: 'changed', lock_version: 0 }) },
      { name: 'delete', method: 'DELETE', path: (id) => `/v0/notes/${id}` },
    ],
  },
  {
    name: 'files',
    create: async (h, key) => (await created(h, '/v0/files', { multipart: [textFile(unique('content'))] }, key)).id,
    retrieve: (id) => `/v0/files/${id}`,
    list: { path: '/v0/files', order: 'oldest first' },
    creates: [{ name: 'upload', method: 'POST', path: '/v0/files', payload: { multipart: [textFile('refused')] } }],
    writes: [{ name: 'delete', method: 'DELETE', path: (id) => `/v0/files/${id}` }],
    // download_url is signed afresh for every response.
    stable: ({ download_url: _url, ...rest }) => rest,
  },
  {
    name: 'inboxes',
    create: async (h, key) => (await createInbox(h.store, await orgOf(h, key), { name: unique('Inbox'), email: `inbox-${process.pid}-${++counter}@tycho.test` })).id,
    retrieve: (id) => `/v0/inboxes/${id}`,
    inspect: (id) => `/v0/inboxes/${id}?include[]=tagsets`,
    list: { path: '/v0/inboxes', order: 'oldest first' },
    creates: [],
    writes: [],
  },
  {
    // A draft without conversation_id starts a conversation.
    name: 'inbox_conversations',
    create: async (h, key) => {
      const draft = await created(h, '/v0/inbox_messages', json(await draftBody(h, key)), key);
      const res = await h.get(`/v0/inbox_messages/${draft.id}?include[]=conversation`, { key });
      assert.equal(res.status, 200, res.text);
      return res.body.conversation.id;
    },
    retrieve: (id) => `/v0/inbox_conversations/${id}`,
    inspect: (id) => `/v0/inbox_conversations/${id}?include[]=inbox&include[]=messages.addresses`,
    list: { path: '/v0/inbox_conversations', order: 'oldest first' },
    lookups: (id) => [`/v0/inbox_conversations?conversation_id[eq]=${id}`, `/v0/inbox_conversations?filter[conversation_id][eq]=${id}`],
    creates: [],
    writes: [],
  },
  {
    name: 'inbox_messages',
    create: async (h, key) => (await created(h, '/v0/inbox_messages', json(await draftBody(h, key)), key)).id,
    retrieve: (id) => `/v0/inbox_messages/${id}`,
    inspect: (id) => `/v0/inbox_messages/${id}?include[]=addresses&include[]=attachments&include[]=conversation`,
    list: { path: '/v0/inbox_messages', order: 'oldest first' },
    creates: [{ name: 'create draft', method: 'POST', path: '/v0/inbox_messages', payload: async (h, key) => json(await draftBody(h, key)) }],
    writes: [
      { name: 'update', method: 'PATCH', path: (id) => `/v0/inbox_messages/${id}`, payload: json({ subject: 'Changed', lock_version: 0 }) },
      { name: 'delete', method: 'DELETE', path: (id) => `/v0/inbox_messages/${id}` },
      { name: 'send', method: 'POST', path: (id) => `/v0/tycho/inbox_messages/${id}/send` },
      { name: 'add attachment', method: 'POST', path: (id) => `/v0/inbox_messages/${id}/attachments`, payload: { multipart: [textFile('attached')] } },
    ],
  },
  {
    // Calls are logged or upserted by provider call id (a fresh one each time), never changed by id.
    name: 'calls',
    create: async (h, key) => (await created(h, '/v0/calls', json(callBody()), key)).id,
    retrieve: (id) => `/v0/calls/${id}`,
    inspect: (id) => `/v0/calls/${id}?include[]=transcript&include[]=note&include[]=summary`,
    list: { path: '/v0/calls', order: 'oldest first' },
    creates: [
      { name: 'log', method: 'POST', path: '/v0/calls', payload: async () => json(callBody()) },
      { name: 'upsert', method: 'POST', path: '/v0/calls/upsert', payload: async () => json(callBody()) },
    ],
    writes: [],
  },
  {
    // Meetings come from calendar sync in the hosted service; Tycho's extension creates them (by a fresh UID).
    name: 'meetings',
    create: async (h, key) => (await created(h, '/v0/tycho/meetings', json(meetingBody()), key)).id,
    retrieve: (id) => `/v0/meetings/${id}`,
    inspect: (id) => `/v0/meetings/${id}?include[]=organizer&include[]=attendees&include[]=transcript&include[]=note&include[]=summary`,
    list: { path: '/v0/meetings', order: 'oldest first' },
    creates: [{ name: 'create (extension)', method: 'POST', path: '/v0/tycho/meetings', payload: async () => json(meetingBody()) }],
    writes: [{ name: 'update', method: 'PATCH', path: (id) => `/v0/meetings/${id}`, payload: json({ tags: [] }) }],
  },
  {
    // Activities are recorded by other writes; an item creation records exactly one item_created.
    name: 'activities',
    create: async (h, key) => {
      const item = await created(h, '/v0/collections/people/items', json({ values: personValues() }), key);
      const res = await h.get(`/v0/activities?type[eq]=activity/item_created&constituent_entity_type[eq]=item&constituent_entity_id[eq]=${item.id}`, { key });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.length, 1, res.text);
      return res.body.data[0].id;
    },
    retrieve: (id) => `/v0/activities/${id}`,
    list: { path: '/v0/activities', order: 'newest first' },
    creates: [],
    writes: [],
  },
  {
    // Saved through the Tycho extension; views have no list of their own (include[]=views on a collection).
    name: 'views',
    create: async (h, key) => (await created(h, '/v0/tycho/collections/people/views', json({ name: unique('View'), sort: ['-name'] }), key)).id,
    retrieve: (id) => `/v0/views/${id}`,
    inspect: (id) => `/v0/views/${id}?include[]=collection`,
    creates: [{ name: 'create', method: 'POST', path: '/v0/tycho/collections/people/views', payload: json({ name: 'Refused view' }) }],
    writes: [],
    container: '/v0/collections/people?include[]=views',
  },
  {
    // Created and changed through the Tycho extension; the hosted API only reads them.
    name: 'programs',
    create: async (h, key) => (await created(h, '/v0/tycho/programs', json({ display_name: unique('Program') }), key)).id,
    retrieve: (id) => `/v0/programs/${id}`,
    inspect: (id) => `/v0/programs/${id}?include[]=activity_metrics&include[]=program_template`,
    list: { path: '/v0/programs', order: 'oldest first' },
    creates: [{ name: 'create (extension)', method: 'POST', path: '/v0/tycho/programs', payload: json({ display_name: 'Refused program' }) }],
    writes: [{ name: 'update (extension)', method: 'PATCH', path: (id) => `/v0/tycho/programs/${id}`, payload: json({ status: 'archived' }) }],
  },
  {
    name: 'program_templates',
    create: async (h, key) => (await created(h, '/v0/tycho/program_templates', json(await templateBody(h, key)), key)).id,
    retrieve: (id) => `/v0/program_templates/${id}`,
    inspect: (id) => `/v0/program_templates/${id}?include[]=program`,
    list: { path: '/v0/program_templates', order: 'newest first' },
    creates: [{ name: 'create (extension)', method: 'POST', path: '/v0/tycho/program_templates', payload: async (h, key) => json(await templateBody(h, key)) }],
    writes: [{ name: 'update (extension)', method: 'PATCH', path: (id) => `/v0/tycho/program_templates/${id}`, payload: json({ subject: 'Changed' }) }],
  },
  {
    name: 'forms',
    create: async (h, key) => (await created(h, '/v0/forms', json({ name: unique('Form'), pages_enabled: true }), key)).id,
    retrieve: (id) => `/v0/forms/${id}`,
    list: { path: '/v0/forms', order: 'oldest first' },
    creates: [{ name: 'create', method: 'POST', path: '/v0/forms', payload: json({ name: 'Refused form' }) }],
    writes: [
      { name: 'update', method: 'PATCH', path: (id) => `/v0/forms/${id}`, payload: json({ name: 'Renamed' }) },
      { name: 'delete', method: 'DELETE', path: (id) => `/v0/forms/${id}` },
    ],
  },
  {
    name: 'webhook endpoints',
    create: async (h, key) => (await created(h, '/v0/webhook_endpoints', json({ url: `https://hooks.example.com/${unique('hook').replace(/\W/g, '-')}` }), key)).id,
    retrieve: (id) => `/v0/webhook_endpoints/${id}`,
    list: { path: '/v0/webhook_endpoints', order: 'oldest first' },
    creates: [{ name: 'create', method: 'POST', path: '/v0/webhook_endpoints', payload: json({ url: 'https://hooks.example.com/refused' }) }],
    writes: [
      { name: 'update', method: 'PATCH', path: (id) => `/v0/webhook_endpoints/${id}`, payload: json({ status: 'disabled' }) },
      { name: 're-send (extension)', method: 'POST', path: (id) => `/v0/tycho/webhook_endpoints/${id}/deliveries`, payload: json({ event_id: 'msg_unknown' }) },
      { name: 'delete', method: 'DELETE', path: (id) => `/v0/webhook_endpoints/${id}` },
    ],
  },
];
