// Inbox conversations, messages (drafts), draft attachments and the Tycho send extension through HTTP
// (reference §5.7, §5.8; seed §3, §4.7; issue 5): creating drafts with recipients matched to people and
// organizations, validation, conversations and their listing / includes, message listing and includes, the
// list filters and includes of every SDK generation (bracket, flat, `inbox[]`, printed Ruby hashes),
// last_message_at, lock_version updates, deletion, attachments by upload or file_id, sending
// (inbox_message_sent) and what a sent message refuses, and organization isolation.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertBareNotFound, BLOB_STORES, ENGINES, createHarness, errorOf, type Harness, type Response } from '../helpers/harness.ts';
import { assertInvalid, email, makeItem, text, val, collectionPointer, walkForward, type CollectionPointer } from '../helpers/items.ts';
import { download, postMultipart, referencedKeys, storedKeys } from '../helpers/multipart.ts';
import { createInbox } from '../../src/domain/inboxes.ts';
import { activitiesOfType, listIds } from '../helpers/activities.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ID = /^[1-9A-HJ-NP-Za-km-z]{22}$/;
const UNKNOWN_ID = '1111111111111111111111';


function assert422(res: Response, detail?: RegExp): string {
  assert.equal(res.status, 422, res.text);
  const error = errorOf(res);
  assert.equal(typeof error.detail, 'string');
  if (detail) assert.match(error.detail!, detail);
  return error.detail!;
}

async function draft(h: Harness, body: Record<string, unknown>, key?: string): Promise<any> {
  const res = await h.post('/v0/inbox_messages', body, key ? { key } : {});
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const sentActivities = (h: Harness) => activitiesOfType(h, 'activity/inbox_message_sent');

/** The inbox most suites send from. */
const supportInbox = async (h: Harness) => (await createInbox(h.store, h.orgId, { name: 'Support', email: 'support@tycho.test' })).id;

const filePart = (filename: string, content: string) => ({ name: 'file', filename, content, contentType: 'text/plain' });

for (const engine of ENGINES) {
  describe(`inbox messages: drafts, recipients, conversations (${engine})`, () => {
    let h: Harness;
    let inboxId: string;
    let otherInboxId: string;
    let people: CollectionPointer;
    let companies: CollectionPointer;
    let ada: any;
    let acme: any;
    before(async () => {
      h = await createHarness(engine);
      inboxId = await supportInbox(h);
      otherInboxId = (await createInbox(h.store, h.orgId, { name: 'Sales', email: 'sales@tycho.test' })).id;
      ada = await makeItem(h, 'people', { name: text('Ada Lovelace'), email: [email('ada@analytical.test')] });
      acme = await makeItem(h, 'organizations', { name: text('Acme'), domain: [val('uri/domain', 'acme.test')] });
      people = await collectionPointer(h, 'people');
      companies = await collectionPointer(h, 'organizations');
    });
    after(() => h.close());

    it('creates a draft: 201 email_message with draft true, lock_version 0, the markdown body and addresses (from the inbox, then recipients)', async () => {
      const res = await h.post('/v0/inbox_messages', {
        inbox_id: inboxId,
        subject: 'Hello',
        body: { markdown: 'Hi **there**' },
        to: [{ email: 'nobody@elsewhere.test', name: 'Nobody' }],
        cc: [{ email: 'cc@elsewhere.test' }],
        bcc: [{ email: 'bcc@elsewhere.test' }],
      });
      assert.equal(res.status, 201, res.text);
      const m = res.body;
      assert.match(m.id, ID);
      assert.equal(m.type, 'email_message');
      assert.equal(m.subject, 'Hello');
      assert.deepEqual(m.body, { markdown: 'Hi **there**' });
      assert.equal(m.draft, true);
      assert.equal(m.lock_version, 0);
      assert.match(m.created_at, ISO_MS);
      assert.equal('updated_at' in m, false);
      assert.deepEqual(
        m.addresses.map((a: any) => [a.type, a.role, a.email]),
        [
          ['message_address', 'from', 'support@tycho.test'],
          ['message_address', 'to', 'nobody@elsewhere.test'],
          ['message_address', 'cc', 'cc@elsewhere.test'],
          ['message_address', 'bcc', 'bcc@elsewhere.test'],
        ],
      );
      for (const a of m.addresses) {
        assert.match(a.id, ID);
        assert.equal('person' in a, false);
        assert.equal('organization' in a, false);
      }
    });

    it('a recipient whose email belongs to a person gets `person`; one whose domain belongs to an organization gets `organization`', async () => {
      const m = await draft(h, {
        inbox_id: inboxId,
        body: { markdown: 'x' },
        to: [{ email: 'ada@analytical.test' }, { email: 'wile@acme.test' }],
        cc: [{ email: 'stranger@nowhere.test' }],
      });
      const [from, toAda, toWile, ccStranger] = m.addresses;
      assert.equal(from.role, 'from');
      assert.equal(toAda.email, 'ada@analytical.test');
      assert.deepEqual(toAda.person, { id: ada.id, type: 'item', collection: people });
      assert.equal('organization' in toAda, false);
      assert.equal(toWile.email, 'wile@acme.test');
      assert.deepEqual(toWile.organization, { id: acme.id, type: 'item', collection: companies });
      assert.equal('person' in toWile, false);
      assert.equal('person' in ccStranger, false);
      assert.equal('organization' in ccStranger, false);
      // Retrieval shows the same links.
      const got = await h.get(`/v0/inbox_messages/${m.id}?include[]=addresses`);
      assert.deepEqual(got.body.addresses, m.addresses);
    });

    it('accepts the body as a plain string', async () => {
      const m = await draft(h, { inbox_id: inboxId, body: 'Just text' });
      assert.deepEqual(m.body, { markdown: 'Just text' });
      assert.deepEqual(m.addresses.map((a: any) => a.role), ['from']);
      // FormattedText's markdown is optional: {} is an empty body.
      assert.deepEqual((await draft(h, { inbox_id: inboxId, body: {} })).body, { markdown: '' });
    });

    it('an unknown inbox → 422 at /inbox_id', async () => {
      assertInvalid(await h.post('/v0/inbox_messages', { inbox_id: UNKNOWN_ID, body: { markdown: 'x' } }), '/inbox_id');
    });

    it('a malformed recipient email → 422 at /to/0/email (and /cc/1/email)', async () => {
      const detail = assertInvalid(await h.post('/v0/inbox_messages', { inbox_id: inboxId, body: 'x', to: [{ email: 'not an email' }] }), '/to/0/email');
      // Regression: the detail showed an item value ({"type": "value/email", …}), a shape recipients do not take.
      assert.equal(detail, 'to.0.email must be an email address such as "jane@example.com", got "not an email"');
      assertInvalid(
        await h.post('/v0/inbox_messages', { inbox_id: inboxId, body: 'x', cc: [{ email: 'ok@example.com' }, { email: 'nope@' }] }),
        '/cc/1/email',
      );
    });

    it('at most 1,000 recipients in to, cc and bcc together: more → 422 at the list, nothing written; 1,000 are matched in bulk', async () => {
      const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ email: `${prefix}${i}@elsewhere.test` }));
      const before = (await h.get(`/v0/inbox_messages?inbox_id[eq]=${inboxId}&limit=100`)).body.data.length;
      assertInvalid(await h.post('/v0/inbox_messages', { inbox_id: inboxId, body: 'x', cc: many(1001, 'c') }), '/cc');
      assertInvalid(await h.post('/v0/inbox_messages', { inbox_id: inboxId, body: 'x', to: many(600, 't'), bcc: many(401, 'b') }), '/bcc');
      assert.equal((await h.get(`/v0/inbox_messages?inbox_id[eq]=${inboxId}&limit=100`)).body.data.length, before);
      const full = await h.post('/v0/inbox_messages', { inbox_id: inboxId, body: 'x', to: [...many(999, 't'), { email: 'Ada@Analytical.test' }] });
      assert.equal(full.status, 201, full.text);
      const got = (await h.get(`/v0/inbox_messages/${full.body.id}?include[]=addresses`)).body.addresses;
      assert.equal(got.length, 1001, 'from and 1,000 recipients');
      assert.deepEqual(got.at(-1).person, { id: ada.id, type: 'item', collection: people });
      // A PATCH counts the lists it keeps: 1,000 kept in to, one more in cc is too many.
      assertInvalid(await h.patch(`/v0/inbox_messages/${full.body.id}`, { lock_version: 0, cc: many(1, 'c') }), '/cc');
    });

    it('a conversation_id of another inbox (or unknown) → 422 at /conversation_id; one of the same inbox joins it', async () => {
      const first = await draft(h, { inbox_id: otherInboxId, subject: 'Sales thread', body: 'x' });
      const conversationId = (await h.get(`/v0/inbox_messages/${first.id}?include[]=conversation`)).body.conversation.id;
      assertInvalid(await h.post('/v0/inbox_messages', { inbox_id: inboxId, conversation_id: conversationId, body: 'y' }), '/conversation_id');
      assertInvalid(await h.post('/v0/inbox_messages', { inbox_id: inboxId, conversation_id: UNKNOWN_ID, body: 'y' }), '/conversation_id');
      const reply = await draft(h, { inbox_id: otherInboxId, conversation_id: conversationId, body: 'reply' });
      assert.equal(reply.subject, 'Sales thread');
      const ids = await listIds(h, `/v0/inbox_messages?conversation_id[eq]=${conversationId}`);
      assert.deepEqual(ids.sort(), [first.id, reply.id].sort());
    });

    it('a new draft creates a conversation: listed by inbox_id[eq] and filter[inbox_id][eq] whole, as retrieved (draft true)', async () => {
      const inbox = (await createInbox(h.store, h.orgId, { name: 'Fresh', email: 'fresh@tycho.test' })).id;
      assert.deepEqual(await listIds(h, `/v0/inbox_conversations?inbox_id[eq]=${inbox}`), []);
      const m = await draft(h, { inbox_id: inbox, subject: 'New thread', body: 'x' });
      const list = await h.get(`/v0/inbox_conversations?inbox_id[eq]=${inbox}`);
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.data.length, 1);
      const [pointer] = list.body.data;
      // Whole, as a retrieve without include[] shows it (was: only id and type, which the TypeScript, Python
      // and Go SDKs read as a conversation without subject or state).
      assert.deepEqual(pointer, (await h.get(`/v0/inbox_conversations/${pointer.id}`)).body);
      assert.equal(pointer.type, 'inbox_conversation');
      assert.deepEqual(await listIds(h, `/v0/inbox_conversations?filter[inbox_id][eq]=${inbox}`), [pointer.id]);
      // Not listed under another inbox.
      assert.equal((await listIds(h, `/v0/inbox_conversations?inbox_id[eq]=${inboxId}`)).includes(pointer.id), false);

      const c = await h.get(`/v0/inbox_conversations/${pointer.id}`);
      assert.equal(c.status, 200, c.text);
      assert.equal(c.body.id, pointer.id);
      assert.equal(c.body.type, 'inbox_conversation');
      assert.equal(c.body.subject, 'New thread');
      assert.equal(c.body.draft, true);
      assert.equal(c.body.last_message_at, m.created_at, 'the newest message (a draft) is the last message');
      assert.match(c.body.created_at, ISO_MS);
      assert.equal('messages' in c.body, false);
      assert.equal('inbox' in c.body, false);

      const withMessages = await h.get(`/v0/inbox_conversations/${pointer.id}?include[]=messages`);
      assert.equal(withMessages.status, 200, withMessages.text);
      assert.deepEqual(withMessages.body.messages.map((x: any) => [x.id, x.type, x.draft]), [[m.id, 'email_message', true]]);
      const withInbox = await h.get(`/v0/inbox_conversations/${pointer.id}?include[]=inbox`);
      assert.equal(withInbox.status, 200, withInbox.text);
      assert.equal(withInbox.body.inbox.id, inbox);
      assert.equal(withInbox.body.inbox.type, 'inbox');
      assertBareNotFound(await h.get(`/v0/inbox_conversations/${UNKNOWN_ID}`));
      assert.equal((await h.get(`/v0/inbox_conversations/${pointer.id}?include[]=bogus`)).status, 400);
    });

    it('GET /v0/inbox_messages lists whole messages, filtered by inbox_id[eq] and conversation_id[eq] (and the filter[…] spellings)', async () => {
      const inbox = (await createInbox(h.store, h.orgId, { name: 'Listing', email: 'listing@tycho.test' })).id;
      const a = await draft(h, { inbox_id: inbox, subject: 'A', body: 'a' });
      const b = await draft(h, { inbox_id: inbox, subject: 'B', body: 'b' });
      const elsewhere = await draft(h, { inbox_id: otherInboxId, subject: 'C', body: 'c' });
      const res = await h.get(`/v0/inbox_messages?inbox_id[eq]=${inbox}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.type, 'list');
      for (const p of res.body.data) assert.deepEqual(p, (await h.get(`/v0/inbox_messages/${p.id}`)).body);
      assert.deepEqual(res.body.data.map((p: any) => p.type), ['email_message', 'email_message']);
      assert.deepEqual(res.body.data.map((p: any) => p.id).sort(), [a.id, b.id].sort());
      assert.deepEqual((await listIds(h, `/v0/inbox_messages?filter[inbox_id][eq]=${inbox}`)).sort(), [a.id, b.id].sort());
      const conversationOfA = (await h.get(`/v0/inbox_messages/${a.id}?include[]=conversation`)).body.conversation.id;
      assert.deepEqual(await listIds(h, `/v0/inbox_messages?conversation_id[eq]=${conversationOfA}`), [a.id]);
      assert.deepEqual(await listIds(h, `/v0/inbox_messages?filter[conversation_id][eq]=${conversationOfA}`), [a.id]);
      const all = await listIds(h, '/v0/inbox_messages?limit=100');
      for (const id of [a.id, b.id, elsewhere.id]) assert.ok(all.includes(id));
      // A spelling the list does not read is a 400 naming it, not an unfiltered list.
      for (const [query, parameter] of [
        [`inbox_id=${inbox}`, 'inbox_id'],
        [`inbox_id[in][]=${inbox}`, 'inbox_id[in]'],
        [`filter[inbox][eq]=${inbox}`, 'filter[inbox]'],
      ]) {
        for (const path of ['/v0/inbox_messages', '/v0/inbox_conversations']) {
          const res = await h.get(`${path}?${query}`);
          assert.equal(res.status, 400, `${path}?${query}: ${res.text}`);
          assert.equal(errorOf(res).source?.parameter, parameter);
        }
      }
      assert.match(errorOf(await h.get(`/v0/inbox_messages?inbox_id=${inbox}`)).detail ?? '', /inbox_id must use \[eq\], as in inbox_id\[eq\]=/);
    });

    it('GET one: no includes by default; include[] addresses, attachments, conversation; unknown include → 400; unknown id → 404', async () => {
      const m = await draft(h, { inbox_id: inboxId, subject: 'Includes', body: 'x', to: [{ email: 'ada@analytical.test' }] });
      const plain = await h.get(`/v0/inbox_messages/${m.id}`);
      assert.equal(plain.status, 200, plain.text);
      assert.equal(plain.body.id, m.id);
      assert.equal(plain.body.draft, true);
      for (const k of ['addresses', 'attachments', 'conversation']) assert.equal(k in plain.body, false, k);
      const all = await h.get(`/v0/inbox_messages/${m.id}?include[]=addresses&include[]=attachments&include[]=conversation`);
      assert.equal(all.status, 200, all.text);
      assert.deepEqual(all.body.addresses, m.addresses);
      assert.deepEqual(all.body.attachments, []);
      assert.equal(all.body.conversation.type, 'inbox_conversation');
      assert.equal(all.body.conversation.subject, 'Includes');
      assert.equal(all.body.conversation.draft, true);
      const bad = await h.get(`/v0/inbox_messages/${m.id}?include[]=addresses&include[]=recipients`);
      assert.equal(bad.status, 400, bad.text);
      assert.equal(errorOf(bad).source?.parameter, 'include[]');
      assertBareNotFound(await h.get(`/v0/inbox_messages/${UNKNOWN_ID}`));
    });

    it('PATCH with the current lock_version → 200 and lock_version + 1; `to` replaces the recipients, omitted lists are kept', async () => {
      const m = await draft(h, { inbox_id: inboxId, subject: 'v0', body: 'v0', to: [{ email: 'one@elsewhere.test' }], cc: [{ email: 'cc@elsewhere.test' }] });
      const first = await h.patch(`/v0/inbox_messages/${m.id}`, { lock_version: 0, subject: 'v1', body: { markdown: 'v1' } });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.lock_version, 1);
      assert.equal(first.body.subject, 'v1');
      assert.deepEqual(first.body.body, { markdown: 'v1' });
      assert.deepEqual(first.body.addresses.map((a: any) => [a.role, a.email]), [
        ['from', 'support@tycho.test'],
        ['to', 'one@elsewhere.test'],
        ['cc', 'cc@elsewhere.test'],
      ]);
      const second = await h.patch(`/v0/inbox_messages/${m.id}`, { lock_version: 1, to: [{ email: 'two@elsewhere.test' }, { email: 'ada@analytical.test' }] });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.lock_version, 2);
      assert.equal(second.body.subject, 'v1');
      assert.deepEqual(second.body.addresses.map((a: any) => [a.role, a.email]), [
        ['from', 'support@tycho.test'],
        ['to', 'two@elsewhere.test'],
        ['to', 'ada@analytical.test'],
        ['cc', 'cc@elsewhere.test'],
      ]);
      assert.deepEqual(second.body.addresses[2].person, { id: ada.id, type: 'item', collection: people });
      const got = await h.get(`/v0/inbox_messages/${m.id}?include[]=addresses`);
      assert.equal(got.body.lock_version, 2);
      assert.deepEqual(got.body.addresses, second.body.addresses);
    });

    it('PATCH with a stale lock_version → 409 with x-should-retry: false, and nothing changes', async () => {
      const m = await draft(h, { inbox_id: inboxId, subject: 'orig', body: 'orig' });
      assert.equal((await h.patch(`/v0/inbox_messages/${m.id}`, { lock_version: 0, subject: 'next' })).status, 200);
      const stale = await h.patch(`/v0/inbox_messages/${m.id}`, { lock_version: 0, subject: 'stale' });
      assert.equal(stale.status, 409, stale.text);
      errorOf(stale);
      assert.equal(stale.headers['x-should-retry'], 'false');
      const got = await h.get(`/v0/inbox_messages/${m.id}`);
      assert.equal(got.body.subject, 'next');
      assert.equal(got.body.lock_version, 1);
      assertBareNotFound(await h.patch(`/v0/inbox_messages/${UNKNOWN_ID}`, { lock_version: 0, subject: 'x' }));
    });

    it('PATCH with a bad recipient → 422 at /to/0/email', async () => {
      const m = await draft(h, { inbox_id: inboxId, body: 'x' });
      assertInvalid(await h.patch(`/v0/inbox_messages/${m.id}`, { lock_version: 0, to: [{ email: 'bad' }] }), '/to/0/email');
      assert.equal((await h.get(`/v0/inbox_messages/${m.id}`)).body.lock_version, 0);
    });

    it('DELETE a draft → 204 with no body; then GET and DELETE → 404', async () => {
      const m = await draft(h, { inbox_id: inboxId, body: 'bye' });
      const res = await h.delete(`/v0/inbox_messages/${m.id}`);
      assert.equal(res.status, 204, res.text);
      assert.equal(res.text, '');
      assertBareNotFound(await h.get(`/v0/inbox_messages/${m.id}`));
      assertBareNotFound(await h.delete(`/v0/inbox_messages/${m.id}`));
      assert.equal((await listIds(h, '/v0/inbox_messages?limit=100')).includes(m.id), false);
    });

    it('a read-only key cannot create a draft (403)', async () => {
      const key = await h.readOnlyKey();
      const res = await h.post('/v0/inbox_messages', { inbox_id: inboxId, body: 'x' }, { key });
      assert.equal(res.status, 403, res.text);
    });
  });

  for (const blobs of BLOB_STORES) describe(`inbox messages: attachments (${engine}, ${blobs} store)`, () => {
    let h: Harness;
    let inboxId: string;
    before(async () => {
      h = await createHarness(engine, { blobs });
      inboxId = await supportInbox(h);
    });
    after(() => h.close());

    const attachmentsOf = async (id: string) => {
      const res = await h.get(`/v0/inbox_messages/${id}?include[]=attachments`);
      assert.equal(res.status, 200, res.text);
      return res.body.attachments as any[];
    };

    it('a multipart `file` → 201 message_attachment whose download works', async () => {
      const m = await draft(h, { inbox_id: inboxId, body: 'x' });
      const res = await postMultipart(h, `/v0/inbox_messages/${m.id}/attachments`, [filePart('invoice.txt', 'invoice body')]);
      assert.equal(res.status, 201, res.text);
      const a = res.body;
      assert.match(a.id, ID);
      assert.equal(a.type, 'message_attachment');
      assert.equal(a.filename, 'invoice.txt');
      assert.equal(a.size, 12);
      assert.match(a.created_at, ISO_MS);
      assert.deepEqual(Object.keys(a).sort(), ['created_at', 'download_url', 'filename', 'id', 'size', 'type']);
      const got = await download(h, a.download_url);
      assert.equal(got.status, 200);
      assert.equal(got.text, 'invoice body');
      assert.match(String(got.headers['content-disposition']), /invoice\.txt/);
      const listed = await attachmentsOf(m.id);
      assert.deepEqual(listed.map((x) => [x.id, x.filename, x.size]), [[a.id, 'invoice.txt', 12]]);
      assert.equal((await download(h, listed[0].download_url)).text, 'invoice body');
    });

    it('JSON {"file_id"} of an uploaded file → 201 with a copy of that file', async () => {
      const file = await postMultipart(h, '/v0/files', [filePart('shared.txt', 'shared contents')]);
      assert.equal(file.status, 201, file.text);
      const m = await draft(h, { inbox_id: inboxId, body: 'x' });
      const res = await h.post(`/v0/inbox_messages/${m.id}/attachments`, { file_id: file.body.id });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.type, 'message_attachment');
      assert.notEqual(res.body.id, file.body.id);
      assert.equal(res.body.filename, 'shared.txt');
      assert.equal(res.body.size, 15);
      assert.equal((await download(h, res.body.download_url)).text, 'shared contents');
      // A copy: deleting the file leaves the attachment's contents.
      assert.equal((await h.delete(`/v0/files/${file.body.id}`)).status, 204);
      assert.equal((await download(h, res.body.download_url)).text, 'shared contents');
    });

    it('a multipart `file_id` field → 201 with a copy of that file', async () => {
      const file = await postMultipart(h, '/v0/files', [filePart('ruby.txt', 'from ruby')]);
      const m = await draft(h, { inbox_id: inboxId, body: 'x' });
      const res = await postMultipart(h, `/v0/inbox_messages/${m.id}/attachments`, [{ name: 'file_id', value: file.body.id }]);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.filename, 'ruby.txt');
      assert.equal(res.body.size, 9);
      assert.equal((await download(h, res.body.download_url)).text, 'from ruby');
    });

    it('an unknown file_id → 422 at /file_id; neither file nor file_id → 422', async () => {
      const m = await draft(h, { inbox_id: inboxId, body: 'x' });
      assertInvalid(await h.post(`/v0/inbox_messages/${m.id}/attachments`, { file_id: UNKNOWN_ID }), '/file_id');
      assertInvalid(await h.post(`/v0/inbox_messages/${m.id}/attachments`, {}), '/file_id');
      assertInvalid(await postMultipart(h, `/v0/inbox_messages/${m.id}/attachments`, [{ name: 'other', value: 'x' }]), '/file');
      assert.deepEqual(await attachmentsOf(m.id), []);
    });

    it('adding to an unknown message → 404', async () => {
      assertBareNotFound(await postMultipart(h, `/v0/inbox_messages/${UNKNOWN_ID}/attachments`, [filePart('a.txt', 'a')]));
    });

    it('DELETE an attachment → 204 with no body; it is gone from include[]=attachments and its download', async () => {
      const m = await draft(h, { inbox_id: inboxId, body: 'x' });
      const keep = (await postMultipart(h, `/v0/inbox_messages/${m.id}/attachments`, [filePart('keep.txt', 'keep')])).body;
      const drop = (await postMultipart(h, `/v0/inbox_messages/${m.id}/attachments`, [filePart('drop.txt', 'drop')])).body;
      const res = await h.delete(`/v0/inbox_messages/${m.id}/attachments/${drop.id}`);
      assert.equal(res.status, 204, res.text);
      assert.equal(res.text, '');
      assert.deepEqual((await attachmentsOf(m.id)).map((a) => a.id), [keep.id]);
      assertBareNotFound(await download(h, drop.download_url));
      assertBareNotFound(await h.delete(`/v0/inbox_messages/${m.id}/attachments/${drop.id}`));
    });

    it('DELETE an unknown attachment, an attachment of another message, or on an unknown message → 404', async () => {
      const m = await draft(h, { inbox_id: inboxId, body: 'x' });
      const n = await draft(h, { inbox_id: inboxId, body: 'y' });
      const a = (await postMultipart(h, `/v0/inbox_messages/${m.id}/attachments`, [filePart('a.txt', 'a')])).body;
      assertBareNotFound(await h.delete(`/v0/inbox_messages/${m.id}/attachments/${UNKNOWN_ID}`));
      assertBareNotFound(await h.delete(`/v0/inbox_messages/${n.id}/attachments/${a.id}`));
      assertBareNotFound(await h.delete(`/v0/inbox_messages/${UNKNOWN_ID}/attachments/${a.id}`));
      assert.deepEqual((await attachmentsOf(m.id)).map((x) => x.id), [a.id]);
    });

    it('deleting a draft removes its attachments (download 404)', async () => {
      const m = await draft(h, { inbox_id: inboxId, body: 'x' });
      const a = (await postMultipart(h, `/v0/inbox_messages/${m.id}/attachments`, [filePart('a.txt', 'a')])).body;
      assert.equal((await download(h, a.download_url)).status, 200);
      assert.equal((await h.delete(`/v0/inbox_messages/${m.id}`)).status, 204);
      assertBareNotFound(await download(h, a.download_url));
    });

    it('an attachment to a sent message or an unknown message is refused and leaves no contents behind', async () => {
      const file = (await postMultipart(h, '/v0/files', [filePart('f.txt', 'f')])).body;
      const sent = await draft(h, { inbox_id: inboxId, body: 'x', to: [{ email: 'ann@example.com' }] });
      assert.equal((await h.post(`/v0/tycho/inbox_messages/${sent.id}/send`)).status, 200);
      assert.equal((await postMultipart(h, `/v0/inbox_messages/${sent.id}/attachments`, [filePart('late.txt', 'late')])).status, 422);
      assert.equal((await h.post(`/v0/inbox_messages/${sent.id}/attachments`, { file_id: file.id })).status, 422);
      assertBareNotFound(await postMultipart(h, `/v0/inbox_messages/${UNKNOWN_ID}/attachments`, [filePart('lost.txt', 'lost')]));
      assert.deepEqual(await storedKeys(h), await referencedKeys(h));
    });

    it('the store holds the contents of exactly the files and attachments that exist: deleted ones are removed', async () => {
      const keys = await storedKeys(h);
      assert.ok(keys.length > 0);
      assert.deepEqual(keys, await referencedKeys(h));
    });
  });

  describe(`inbox messages: sending (Tycho extension) (${engine})`, () => {
    let h: Harness;
    let inboxId: string;
    before(async () => {
      h = await createHarness(engine);
      inboxId = await supportInbox(h);
    });
    after(() => h.close());

    it('POST /v0/tycho/inbox_messages/{id}/send → 200 with draft false; records exactly one activity/inbox_message_sent', async () => {
      const m = await draft(h, { inbox_id: inboxId, subject: 'Send me', body: 'x', to: [{ email: 'to@elsewhere.test' }] });
      const beforeCount = (await sentActivities(h)).length;
      const res = await h.post(`/v0/tycho/inbox_messages/${m.id}/send`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, m.id);
      assert.equal(res.body.type, 'email_message');
      assert.equal(res.body.draft, false);
      assert.equal((await h.get(`/v0/inbox_messages/${m.id}`)).body.draft, false);
      const all = await sentActivities(h);
      assert.equal(all.length, beforeCount + 1);
      const mine = all.filter((a) => a.constituents.some((c: any) => c.relation === 'object' && c.entity.id === m.id));
      assert.equal(mine.length, 1, JSON.stringify(all));
      assert.equal(mine[0].type, 'activity/inbox_message_sent');
      assert.match(mine[0].occurred_at, ISO_MS);
      assert.deepEqual(mine[0].constituents, [
        { type: 'constituent', relation: 'object', entity: { id: m.id, type: 'email_message' } },
      ]);
    });

    it('a draft without recipients → 422 and stays a draft; sending twice → 422 and records no second activity', async () => {
      const bare = await draft(h, { inbox_id: inboxId, body: 'nobody' });
      assert422(await h.post(`/v0/tycho/inbox_messages/${bare.id}/send`), /recipient/);
      assert.equal((await h.get(`/v0/inbox_messages/${bare.id}`)).body.draft, true);
      const m = await draft(h, { inbox_id: inboxId, body: 'x', bcc: [{ email: 'hidden@elsewhere.test' }] });
      assert.equal((await h.post(`/v0/tycho/inbox_messages/${m.id}/send`)).status, 200);
      const count = (await sentActivities(h)).length;
      assert422(await h.post(`/v0/tycho/inbox_messages/${m.id}/send`));
      assert.equal((await sentActivities(h)).length, count);
      assertBareNotFound(await h.post(`/v0/tycho/inbox_messages/${UNKNOWN_ID}/send`));
    });

    it('after sending: PATCH, DELETE, adding and removing attachments → 422 (attachments: only on draft messages)', async () => {
      const m = await draft(h, { inbox_id: inboxId, subject: 'Locked', body: 'x', to: [{ email: 'to@elsewhere.test' }] });
      const a = (await postMultipart(h, `/v0/inbox_messages/${m.id}/attachments`, [filePart('a.txt', 'a')])).body;
      assert.equal((await h.post(`/v0/tycho/inbox_messages/${m.id}/send`)).status, 200);
      assert422(await h.patch(`/v0/inbox_messages/${m.id}`, { lock_version: 0, subject: 'changed' }));
      assert422(await h.delete(`/v0/inbox_messages/${m.id}`));
      assert422(await postMultipart(h, `/v0/inbox_messages/${m.id}/attachments`, [filePart('b.txt', 'b')]), /attachments can only be managed on draft messages/);
      assert422(await h.delete(`/v0/inbox_messages/${m.id}/attachments/${a.id}`), /attachments can only be managed on draft messages/);
      // Whichever attachment id is asked for: the message's state is what refuses it.
      assert422(await h.delete(`/v0/inbox_messages/${m.id}/attachments/1ChFLYDsNehG6QDPrqx815`), /attachments can only be managed on draft messages/);
      const got = await h.get(`/v0/inbox_messages/${m.id}?include[]=attachments`);
      assert.equal(got.body.subject, 'Locked');
      assert.equal(got.body.draft, false);
      assert.deepEqual(got.body.attachments.map((x: any) => x.id), [a.id]);
    });

    it('the conversation of a sent message shows draft false and a last_message_at', async () => {
      const m = await draft(h, { inbox_id: inboxId, subject: 'Convo', body: 'x', to: [{ email: 'to@elsewhere.test' }] });
      const conversationId = (await h.get(`/v0/inbox_messages/${m.id}?include[]=conversation`)).body.conversation.id;
      const beforeSend = (await h.get(`/v0/inbox_conversations/${conversationId}`)).body;
      assert.equal(beforeSend.draft, true);
      assert.equal(beforeSend.last_message_at, m.created_at);
      assert.equal((await h.post(`/v0/tycho/inbox_messages/${m.id}/send`)).status, 200);
      const afterSend = (await h.get(`/v0/inbox_conversations/${conversationId}`)).body;
      assert.equal(afterSend.draft, false);
      assert.match(afterSend.last_message_at, ISO_MS);
      assert.ok(afterSend.last_message_at >= beforeSend.last_message_at);
      // A new draft reply in the conversation makes it draft again.
      await draft(h, { inbox_id: inboxId, conversation_id: conversationId, body: 'reply' });
      assert.equal((await h.get(`/v0/inbox_conversations/${conversationId}`)).body.draft, true);
    });

    it('a read-only key cannot send (403)', async () => {
      const m = await draft(h, { inbox_id: inboxId, body: 'x', to: [{ email: 'to@elsewhere.test' }] });
      const res = await h.post(`/v0/tycho/inbox_messages/${m.id}/send`, undefined, { key: await h.readOnlyKey() });
      assert.equal(res.status, 403, res.text);
      assert.equal((await h.get(`/v0/inbox_messages/${m.id}`)).body.draft, true);
    });
  });

  describe(`inbox lists: the filters and includes of every SDK generation (${engine})`, () => {
    let h: Harness;
    let inboxA: string;
    let inboxB: string;
    /** c1: a sent message m1 and a draft reply m1b; c2: the draft m2; c3 (inbox B): the draft m3 with an attachment. */
    let c1: string, c2: string, c3: string;
    let m1: any, m1b: any, m2: any, m3: any;
    let attachment: any;
    const conversationOf = async (m: any) => (await h.get(`/v0/inbox_messages/${m.id}?include[]=conversation`)).body.conversation.id as string;
    const conversations = (query: string) => listIds(h, `/v0/inbox_conversations?limit=100&${query}`);
    const messages = (query: string) => listIds(h, `/v0/inbox_messages?limit=100&${query}`);
    const sorted = (ids: string[]) => [...ids].sort();

    before(async () => {
      h = await createHarness(engine);
      inboxA = await supportInbox(h);
      inboxB = (await createInbox(h.store, h.orgId, { name: 'Sales', email: 'sales@tycho.test' })).id;
      await makeItem(h, 'people', { name: text('Ada Lovelace'), email: [email('ada@analytical.test')] });
      m1 = await draft(h, { inbox_id: inboxA, subject: 'One', body: 'one', to: [{ email: 'ada@analytical.test' }] });
      assert.equal((await h.post(`/v0/tycho/inbox_messages/${m1.id}/send`)).status, 200);
      c1 = await conversationOf(m1);
      m1b = await draft(h, { inbox_id: inboxA, conversation_id: c1, body: 'reply', cc: [{ email: 'cc@elsewhere.test' }] });
      m2 = await draft(h, { inbox_id: inboxA, subject: 'Two', body: 'two' });
      c2 = await conversationOf(m2);
      m3 = await draft(h, { inbox_id: inboxB, subject: 'Three', body: 'three', to: [{ email: 'buyer@elsewhere.test' }] });
      c3 = await conversationOf(m3);
      attachment = (await postMultipart(h, `/v0/inbox_messages/${m3.id}/attachments`, [filePart('quote.txt', 'quote')])).body;
    });
    after(() => h.close());

    it('bug: filter[conversation_id][eq] on GET /inbox_conversations was ignored — it narrows the list to that conversation', async () => {
      assert.deepEqual(sorted(await conversations('')), sorted([c1, c2, c3]));
      assert.deepEqual(await conversations(`filter[conversation_id][eq]=${c2}`), [c2]);
      assert.deepEqual(await conversations(`filter[conversation_id][eq]=${c3}&filter[inbox_id][eq]=${inboxB}`), [c3]);
      assert.deepEqual(await conversations(`filter[conversation_id][eq]=${c3}&filter[inbox_id][eq]=${inboxA}`), []);
      assert.deepEqual(await conversations(`filter[conversation_id][eq]=${UNKNOWN_ID}`), []);
      // The flat spelling as well.
      assert.deepEqual(await conversations(`conversation_id[eq]=${c1}`), [c1]);
      assert.deepEqual(await conversations(`conversation_id[eq]=${c1}&inbox_id[eq]=${inboxB}`), []);
    });

    it('inbox[] and conversation[] (the oldest SDKs) take several ids; every filter given applies', async () => {
      assert.deepEqual(sorted(await conversations(`inbox[]=${inboxA}&inbox[]=${inboxB}`)), sorted([c1, c2, c3]));
      assert.deepEqual(await conversations(`inbox[]=${inboxB}`), [c3]);
      // Repeated keys without brackets (the Ruby SDK before 0.1.0-alpha.10) are the same list.
      assert.deepEqual(sorted(await conversations(`inbox=${inboxA}&inbox=${inboxB}`)), sorted([c1, c2, c3]));
      assert.deepEqual(await conversations(`inbox_id[eq]=${inboxA}&inbox[]=${inboxB}`), []);
      assert.deepEqual(sorted(await conversations(`inbox_id[eq]=${inboxA}&inbox[]=${inboxA}&inbox[]=${inboxB}`)), sorted([c1, c2]));

      assert.deepEqual(sorted(await messages(`conversation[]=${c1}&conversation[]=${c3}`)), sorted([m1.id, m1b.id, m3.id]));
      assert.deepEqual(await messages(`inbox[]=${inboxB}`), [m3.id]);
      assert.deepEqual(sorted(await messages(`inbox[]=${inboxA}&inbox[]=${inboxB}&conversation_id[eq]=${c1}`)), sorted([m1.id, m1b.id]));
      assert.deepEqual(await messages(`conversation_id[eq]=${c1}&conversation[]=${c3}`), []);
      assert.deepEqual(await messages(`filter[inbox_id][eq]=${inboxA}&filter[conversation_id][eq]=${c3}`), []);
    });

    it('an empty filter value is a 400 naming the parameter', async () => {
      for (const [url, parameter] of [
        ['/v0/inbox_conversations?inbox_id[eq]=', 'inbox_id[eq]'],
        ['/v0/inbox_conversations?filter[conversation_id][eq]=', 'filter[conversation_id][eq]'],
        ['/v0/inbox_messages?conversation_id[eq]=', 'conversation_id[eq]'],
        ['/v0/inbox_messages?filter[inbox_id][eq]=', 'filter[inbox_id][eq]'],
      ] as const) {
        const res = await h.get(url);
        assert.equal(res.status, 400, `${url}: ${res.text}`);
        assert.equal(errorOf(res).source?.parameter, parameter);
      }
      const list = await h.get('/v0/inbox_messages?inbox[]=');
      assert.equal(list.status, 400, list.text);
      assert.match(errorOf(list).source?.parameter ?? '', /^inbox\[\d*\]$/);
    });

    it('bug: include[] on GET /inbox_conversations was ignored — with it the list holds full conversations and what was asked for', async () => {
      // Without include[]: whole conversations without the includable properties.
      const plain = await h.get(`/v0/inbox_conversations?inbox_id[eq]=${inboxA}`);
      for (const p of plain.body.data) for (const key of ['inbox', 'messages', 'addresses']) assert.equal(key in p, false, key);

      const url = `/v0/inbox_conversations?inbox_id[eq]=${inboxA}&include[]=inbox&include[]=messages.addresses`;
      const res = await h.get(url);
      assert.equal(res.status, 200, res.text);
      const [one, two] = res.body.data;
      assert.deepEqual([one.id, two.id], [c1, c2]);
      for (const c of res.body.data) {
        assert.equal(c.type, 'inbox_conversation');
        assert.match(c.last_message_at, ISO_MS);
        assert.deepEqual(c.tags, []);
        assert.equal(c.inbox.id, inboxA);
        assert.equal(c.inbox.type, 'inbox');
        // The same object a retrieve with the same includes answers.
        assert.deepEqual(c, (await h.get(`/v0/inbox_conversations/${c.id}?include[]=inbox&include[]=messages.addresses`)).body);
      }
      assert.equal(one.subject, 'One');
      assert.equal(one.draft, true);
      assert.deepEqual(one.messages.map((m: any) => [m.id, m.draft]), [[m1.id, false], [m1b.id, true]]);
      assert.deepEqual(one.messages[0].addresses.map((a: any) => [a.role, a.email]), [['from', 'support@tycho.test'], ['to', 'ada@analytical.test']]);
      assert.deepEqual(two.messages.map((m: any) => m.id), [m2.id]);

      // `messages` without their addresses; `tags` alone gives full conversations too.
      const bare = (await h.get(`/v0/inbox_conversations?filter[conversation_id][eq]=${c1}&include[]=messages`)).body.data[0];
      assert.deepEqual(bare.messages.map((m: any) => m.id), [m1.id, m1b.id]);
      for (const m of bare.messages) assert.equal('addresses' in m, false);
      assert.equal('inbox' in bare, false);
      const tagged = (await h.get(`/v0/inbox_conversations?filter[conversation_id][eq]=${c2}&include[]=tags`)).body.data[0];
      assert.equal(tagged.subject, 'Two');
      assert.deepEqual(tagged.tags, []);
      assert.equal('messages' in tagged, false);

      // The oldest SDKs' `addresses`: everyone the messages were from or to, once each.
      const withAddresses = (await h.get(`/v0/inbox_conversations?filter[conversation_id][eq]=${c1}&include[]=addresses&include[]=tags`)).body.data[0];
      assert.deepEqual(withAddresses.addresses.map((a: any) => [a.type, a.role, a.email]), [
        ['message_address', 'from', 'support@tycho.test'],
        ['message_address', 'to', 'ada@analytical.test'],
        ['message_address', 'cc', 'cc@elsewhere.test'],
      ]);
      assert.equal(withAddresses.addresses[1].person.type, 'item');
      assert.deepEqual((await h.get(`/v0/inbox_conversations/${c1}?include[]=addresses`)).body.addresses, withAddresses.addresses);

      // Pages keep their includes.
      const pages = await walkForward((q) => h.get(`/v0/inbox_conversations?limit=1&inbox_id[eq]=${inboxA}&include[]=messages${q ? `&${q}` : ''}`));
      assert.deepEqual(pages.map((p) => p.data.map((c: any) => [c.id, c.messages.length])), [[[c1, 2]], [[c2, 1]]]);

      const bad = await h.get('/v0/inbox_conversations?include[]=messages&include[]=participants');
      assert.equal(bad.status, 400, bad.text);
      assert.equal(errorOf(bad).source?.parameter, 'include[]');
      assert.match(errorOf(bad).detail!, /inbox, messages, messages\.addresses, addresses, tags/);
    });

    it('bug: include[] on GET /inbox_messages was ignored — with it the list holds full messages with addresses, attachments, conversation', async () => {
      const res = await h.get(`/v0/inbox_messages?inbox_id[eq]=${inboxB}&include[]=addresses&include[]=attachments&include[]=conversation`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.length, 1);
      const [m] = res.body.data;
      assert.equal(m.id, m3.id);
      assert.equal(m.subject, 'Three');
      assert.deepEqual(m.body, { markdown: 'three' });
      assert.deepEqual(m.addresses, m3.addresses);
      assert.deepEqual(m.attachments.map((a: any) => [a.id, a.filename, a.size]), [[attachment.id, 'quote.txt', 5]]);
      assert.equal(typeof m.attachments[0].download_url, 'string');
      assert.equal(m.conversation.id, c3);
      assert.equal(m.conversation.subject, 'Three');

      const withConversation = await h.get(`/v0/inbox_messages?filter[conversation_id][eq]=${c1}&include[]=conversation`);
      assert.deepEqual(withConversation.body.data.map((x: any) => [x.id, x.conversation.id, 'addresses' in x, 'attachments' in x]), [
        [m1.id, c1, false, false],
        [m1b.id, c1, false, false],
      ]);
      for (const x of withConversation.body.data) assert.deepEqual(x, (await h.get(`/v0/inbox_messages/${x.id}?include[]=conversation`)).body);
      // Without include[]: whole messages without the includable properties.
      for (const p of (await h.get(`/v0/inbox_messages?conversation_id[eq]=${c1}`)).body.data) for (const key of ['addresses', 'attachments', 'conversation']) assert.equal(key in p, false, key);

      const bad = await h.get('/v0/inbox_messages?include[]=recipients');
      assert.equal(bad.status, 400, bad.text);
      assert.equal(errorOf(bad).source?.parameter, 'include[]');
    });

    it('the Ruby SDK 0.1.0-alpha.3 to alpha.9 sent filter as a printed Ruby hash: both lists read it', async () => {
      const printed = (text: string) => `filter=${encodeURIComponent(text)}`;
      assert.deepEqual(await conversations(printed(`{:inbox_id=>{:eq=>"${inboxB}"}}`)), [c3]);
      assert.deepEqual(await conversations(printed(`{inbox_id: {eq: "${inboxA}"}, conversation_id: {eq: "${c2}"}}`)), [c2]);
      assert.deepEqual(sorted(await messages(printed(`{:conversation_id=>{:eq=>"${c1}"}}`))), sorted([m1.id, m1b.id]));
      // With its includes, which it sent as repeated keys.
      const full = await h.get(`/v0/inbox_conversations?${printed(`{:conversation_id=>{:eq=>"${c3}"}}`)}&include=inbox&include=messages`);
      assert.equal(full.status, 200, full.text);
      assert.deepEqual(full.body.data.map((c: any) => [c.id, c.inbox.id, c.messages.length]), [[c3, inboxB, 1]]);
      // Not a hash: a 400 naming filter.
      for (const text of ['{:inbox_id=>', 'inbox']) {
        const res = await h.get(`/v0/inbox_conversations?${printed(text)}`);
        assert.equal(res.status, 400, res.text);
        assert.equal(errorOf(res).source?.parameter, 'filter');
      }
    });

    it('GET one conversation takes the older include[] values addresses and tags', async () => {
      const res = await h.get(`/v0/inbox_conversations/${c3}?include[]=addresses&include[]=tags`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.tags, []);
      assert.deepEqual(res.body.addresses.map((a: any) => [a.role, a.email]), [['from', 'sales@tycho.test'], ['to', 'buyer@elsewhere.test']]);
    });
  });

  describe(`inbox conversations: last_message_at (${engine})`, () => {
    let h: Harness;
    let inboxId: string;
    let now = Date.parse('2025-06-01T09:00:00.000Z');
    const at = (seconds: number) => new Date(Date.parse('2025-06-01T09:00:00.000Z') + seconds * 1000).toISOString();
    const set = (seconds: number) => {
      now = Date.parse(at(seconds));
    };
    const conversation = async (id: string) => {
      const res = await h.get(`/v0/inbox_conversations/${id}`);
      assert.equal(res.status, 200, res.text);
      return res.body;
    };

    before(async () => {
      h = await createHarness(engine, { clock: () => new Date(now) });
      inboxId = await supportInbox(h);
    });
    after(() => h.close());

    it('bug: last_message_at was null while a conversation held only drafts — it is always the newest message time, drafts included', async () => {
      set(0);
      const first = await draft(h, { inbox_id: inboxId, subject: 'Thread', body: 'x', to: [{ email: 'to@elsewhere.test' }] });
      const id = (await h.get(`/v0/inbox_messages/${first.id}?include[]=conversation`)).body.conversation.id;
      const c = await conversation(id);
      assert.equal(c.last_message_at, at(0));
      assert.equal(c.created_at, at(0));
      // Every place a conversation is shown has it: list with include[], a message's include[]=conversation.
      assert.equal((await h.get(`/v0/inbox_conversations?filter[conversation_id][eq]=${id}&include[]=tags`)).body.data[0].last_message_at, at(0));
      assert.equal((await h.get(`/v0/inbox_messages/${first.id}?include[]=conversation`)).body.conversation.last_message_at, at(0));

      set(10);
      const reply = await draft(h, { inbox_id: inboxId, conversation_id: id, body: 'draft reply' });
      assert.equal((await conversation(id)).last_message_at, at(10), 'a new draft is the newest message');
      set(20);
      assert.equal((await h.delete(`/v0/inbox_messages/${reply.id}`)).status, 204);
      assert.equal((await conversation(id)).last_message_at, at(0), 'deleting it falls back to the newest remaining message');
      set(30);
      assert.equal((await h.post(`/v0/tycho/inbox_messages/${first.id}/send`)).status, 200);
      assert.equal((await conversation(id)).last_message_at, at(30), 'a sent message counts from its sending');
      set(40);
      const late = await draft(h, { inbox_id: inboxId, conversation_id: id, body: 'another' });
      assert.equal((await conversation(id)).last_message_at, at(40));
      set(50);
      assert.equal((await h.delete(`/v0/inbox_messages/${late.id}`)).status, 204);
      assert.equal((await conversation(id)).last_message_at, at(30));
    });

    it('a conversation whose only draft was deleted shows its creation time', async () => {
      set(100);
      const only = await draft(h, { inbox_id: inboxId, subject: 'Abandoned', body: 'x' });
      const id = (await h.get(`/v0/inbox_messages/${only.id}?include[]=conversation`)).body.conversation.id;
      set(110);
      assert.equal((await h.delete(`/v0/inbox_messages/${only.id}`)).status, 204);
      const c = await conversation(id);
      assert.equal(c.last_message_at, at(100));
      assert.equal(c.created_at, at(100));
      assert.equal(c.draft, false);
    });

    it('a conversation stored without last_message_at (by an earlier version) reads as its creation time', async () => {
      set(200);
      const m = await draft(h, { inbox_id: inboxId, subject: 'Legacy', body: 'x' });
      const id = (await h.get(`/v0/inbox_messages/${m.id}?include[]=conversation`)).body.conversation.id;
      const stored = (await h.store.conversations.find(h.orgId, id))!;
      await h.store.conversations.update({ ...stored, lastMessageAt: null as unknown as string });
      assert.equal((await conversation(id)).last_message_at, at(200));
    });
  });

  describe(`inbox messages: organization isolation (${engine})`, () => {
    let h: Harness;
    let other: { orgId: string; key: string };
    let m: any;
    let conversationId: string;
    let attachment: any;
    let inboxId: string;
    before(async () => {
      h = await createHarness(engine);
      inboxId = await supportInbox(h);
      other = await h.newOrg();
      m = await draft(h, { inbox_id: inboxId, subject: 'Ours', body: 'x', to: [{ email: 'to@elsewhere.test' }] });
      conversationId = (await h.get(`/v0/inbox_messages/${m.id}?include[]=conversation`)).body.conversation.id;
      attachment = (await postMultipart(h, `/v0/inbox_messages/${m.id}/attachments`, [filePart('a.txt', 'a')])).body;
    });
    after(() => h.close());

    it("another organization's key → 404 for the message (GET, PATCH, DELETE, send)", async () => {
      const key = other.key;
      assertBareNotFound(await h.get(`/v0/inbox_messages/${m.id}`, { key }));
      assertBareNotFound(await h.patch(`/v0/inbox_messages/${m.id}`, { lock_version: 0, subject: 'theirs' }, { key }));
      assertBareNotFound(await h.delete(`/v0/inbox_messages/${m.id}`, { key }));
      assertBareNotFound(await h.post(`/v0/tycho/inbox_messages/${m.id}/send`, undefined, { key }));
      assert.deepEqual(await listIds(h, '/v0/inbox_messages?limit=100', key), []);
      const ours = await h.get(`/v0/inbox_messages/${m.id}`);
      assert.equal(ours.body.draft, true);
      assert.equal(ours.body.subject, 'Ours');
    });

    it("another organization's key → 404 for the conversation, and it is not listed", async () => {
      assertBareNotFound(await h.get(`/v0/inbox_conversations/${conversationId}`, { key: other.key }));
      assert.deepEqual(await listIds(h, `/v0/inbox_conversations?inbox_id[eq]=${inboxId}`, other.key), []);
      assert.deepEqual(await listIds(h, '/v0/inbox_conversations?limit=100', other.key), []);
    });

    it("another organization's key → 404 for adding and removing attachments; its inbox is unknown (422)", async () => {
      assertBareNotFound(await postMultipart(h, `/v0/inbox_messages/${m.id}/attachments`, [filePart('b.txt', 'b')], other.key));
      assertBareNotFound(await h.delete(`/v0/inbox_messages/${m.id}/attachments/${attachment.id}`, { key: other.key }));
      const theirDraft = await draft(h, { inbox_id: (await createInbox(h.store, other.orgId, { name: 'Theirs', email: 'theirs@tycho.test' })).id, body: 'x' }, other.key);
      assertBareNotFound(await h.delete(`/v0/inbox_messages/${theirDraft.id}/attachments/${attachment.id}`, { key: other.key }));
      assertInvalid(await h.post('/v0/inbox_messages', { inbox_id: inboxId, body: 'x' }, { key: other.key }), '/inbox_id');
      // A file of ours cannot be attached by them.
      const ours = await postMultipart(h, '/v0/files', [filePart('ours.txt', 'ours')]);
      assertInvalid(await h.post(`/v0/inbox_messages/${theirDraft.id}/attachments`, { file_id: ours.body.id }, { key: other.key }), '/file_id');
      const attachments = (await h.get(`/v0/inbox_messages/${m.id}?include[]=attachments`)).body.attachments;
      assert.deepEqual(attachments.map((a: any) => a.id), [attachment.id]);
    });
  });
}
