// A sample integration test against Tycho as a stand-in for the hosted Moonbase API: a sandbox per test,
// a frozen clock, and assertions on the request journal. Plain fetch and node:test, no dependencies.
//
//   TYCHO_ADMIN_KEY=tycho_admin_key_for_tests npm start            # in one terminal
//   TYCHO_URL=http://127.0.0.1:8080 TYCHO_ADMIN_KEY=tycho_admin_key_for_tests node --test examples/
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';

const BASE = process.env.TYCHO_URL ?? 'http://127.0.0.1:8080';
const ADMIN_KEY = process.env.TYCHO_ADMIN_KEY;

/** One call to the API with a key; the JSON answer (or null) and the status. */
async function api(key, method, path, body) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}

/** The code under test: what your integration would do — here, log a contact and a note about them. */
async function logContact(key, name, email) {
  const person = await api(key, 'POST', '/v0/collections/people/items', {
    values: { name: { type: 'value/text/single_line', data: name }, email: { type: 'value/email', data: email } },
  });
  const note = await api(key, 'POST', '/v0/notes', { body: `Met ${name}`, associations: [{ type: 'item', id: person.body.id }] });
  return { person: person.body, note: note.body };
}

describe('logging a contact', { skip: ADMIN_KEY ? false : 'set TYCHO_ADMIN_KEY (and TYCHO_URL) to run against a Tycho server' }, () => {
  let sandbox;

  beforeEach(async () => {
    // A fresh, isolated organization for this test, with its own key.
    const created = await api(ADMIN_KEY, 'POST', '/v0/tycho/admin/sandboxes', {});
    assert.equal(created.status, 201);
    sandbox = created.body;
    // Time stands still in this sandbox until the test moves it.
    await api(sandbox.api_key, 'POST', '/v0/tycho/clock/freeze', { at: '2030-01-01T09:00:00Z' });
    // The journal should show only what the code under test sends.
    await api(sandbox.api_key, 'DELETE', '/v0/tycho/journal');
  });

  afterEach(async () => {
    await api(ADMIN_KEY, 'DELETE', `/v0/tycho/admin/sandboxes/${sandbox.id}`);
  });

  it('creates the person and a note linked to them, at the frozen time', async () => {
    const { person, note } = await logContact(sandbox.api_key, 'Ada Lovelace', 'ada@example.com');
    assert.equal(note.created_at, '2030-01-01T09:00:00.000Z');
    assert.deepEqual(note.associations.map((a) => a.id), [person.id]);
  });

  it('sends exactly two writes, in order, and nothing that failed', async () => {
    await logContact(sandbox.api_key, 'Grace Hopper', 'grace@example.com');
    const journal = await api(sandbox.api_key, 'GET', '/v0/tycho/journal?method=POST');
    const sent = journal.body.data.reverse();
    assert.deepEqual(sent.map((r) => `${r.method} ${r.path} ${r.status}`), ['POST /v0/collections/people/items 201', 'POST /v0/notes 201']);
    assert.equal(JSON.parse(sent[0].request_body).values.email.data, 'grace@example.com');
    assert.equal(sent[0].request_headers.authorization, '[redacted]');
  });

  it('sees time pass only when the test says so', async () => {
    const { note } = await logContact(sandbox.api_key, 'Alan Turing', 'alan@example.com');
    await api(sandbox.api_key, 'POST', '/v0/tycho/clock/advance', { days: 1 });
    const later = await api(sandbox.api_key, 'PATCH', `/v0/notes/${note.id}`, { body: { markdown: 'Met Alan again' }, lock_version: note.lock_version });
    assert.equal(later.status, 200);
    assert.equal(later.body.created_at, '2030-01-01T09:00:00.000Z');
    assert.equal(later.body.updated_at, '2030-01-02T09:00:00.000Z');
  });
});
