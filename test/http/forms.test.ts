// Forms through HTTP (reference §5.12): the backing collection, pages_url, redirect_url as Liquid, updates,
// deletion that keeps the collection; and the public submission extension: JSON and URL-encoded bodies,
// validation with pointers, business_email_required, the item and activity/form_submitted, the rendered
// redirect with UTM parameters, and the per-form, per-address rate limit.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertBareNotFound, ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { assertInvalid, walkForward } from '../helpers/items.ts';
import { activitiesOf } from '../helpers/activities.ts';
import { SUBMISSIONS_PER_WINDOW } from '../../src/http/routes/form-submissions.ts';

async function makeForm(h: Harness, body: Record<string, unknown> = {}, key?: string): Promise<any> {
  const res = await h.post('/v0/forms', { name: 'Contact Us', ...body }, key ? { key } : {});
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** A public submission: no bearer token. */
function submit(h: Harness, formId: string, body: unknown, query = '') {
  return h.request('POST', `/tycho/forms/${formId}/submissions${query}`, { body, key: null });
}

function submitEncoded(h: Harness, formId: string, fields: Record<string, string>, query = '') {
  return h.request('POST', `/tycho/forms/${formId}/submissions${query}`, {
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    key: null,
  });
}

for (const engine of ENGINES) {
  describe(`forms (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('creates a form with its collection (Form: <name>, ref form_<id>, kind form, default fields) and pages_url', async () => {
      const form = await makeForm(h, { pages_enabled: true, redirect_url: 'https://example.com/thanks?e={{ submission.email | uri_encode }}' });
      assert.equal(form.type, 'form');
      assert.equal(form.name, 'Contact Us');
      assert.equal(form.pages_enabled, true);
      assert.equal(form.business_email_required, false);
      assert.equal(form.pages_url, `http://localhost:80/tycho/forms/${form.id}`, 'on the host the request came to');
      assert.equal(form.redirect_url, 'https://example.com/thanks?e={{ submission.email | uri_encode }}');
      assert.equal(form.collection.name, 'Form: Contact Us');
      assert.equal(form.collection.ref, `form_${form.id.toLowerCase()}`);
      assert.equal(form.collection.kind, 'form');
      assert.deepEqual(form.collection.fields.map((f: any) => f.ref), ['name', 'created_at', 'updated_at', 'email', 'message', 'country']);
      const got = await h.get(`/v0/forms/${form.id}`);
      assert.deepEqual(got.body, form);
      const collection = await h.get(`/v0/collections/${form.collection.ref}`);
      assert.equal(collection.status, 200);
      assert.equal(collection.body.id, form.collection.id);
      const plain = await makeForm(h, { name: 'No pages' });
      assert.equal(plain.pages_url, undefined);
      assert.equal(plain.redirect_url, undefined);
    });

    it('refuses a bad name or a redirect_url that is not a Liquid template', async () => {
      assert.equal(errorOf(await h.post('/v0/forms', {})).source?.pointer, '/name');
      assert.match(assertInvalid(await h.post('/v0/forms', { name: '  ' }), '/name'), /name must not be blank/);
      const detail = assertInvalid(await h.post('/v0/forms', { name: 'X', redirect_url: 'https://x.test/{{ submission.email ' }), '/redirect_url');
      assert.match(detail, /not closed/);
    });

    it('updates a form: the collection follows the name (ref kept), null clears redirect_url', async () => {
      const form = await makeForm(h, { redirect_url: 'https://example.com/a' });
      const res = await h.patch(`/v0/forms/${form.id}`, { name: 'Renamed', redirect_url: null, business_email_required: true, pages_enabled: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.name, 'Renamed');
      assert.equal(res.body.redirect_url, undefined);
      assert.equal(res.body.business_email_required, true);
      assert.ok(res.body.pages_url.endsWith(`/tycho/forms/${form.id}`));
      assert.equal(res.body.collection.name, 'Form: Renamed');
      assert.equal(res.body.collection.ref, form.collection.ref);
      assertInvalid(await h.patch(`/v0/forms/${form.id}`, { redirect_url: '{% if %}' }), '/redirect_url');
      assertBareNotFound(await h.patch('/v0/forms/nope', { name: 'x' }));
    });

    it('deletes a form (204) and keeps its collection and items', async () => {
      const form = await makeForm(h);
      assert.equal((await submit(h, form.id, { email: 'kept@acme.test' })).status, 201);
      const res = await h.delete(`/v0/forms/${form.id}`);
      assert.equal(res.status, 204);
      assertBareNotFound(await h.get(`/v0/forms/${form.id}`));
      assertBareNotFound(await h.delete(`/v0/forms/${form.id}`));
      const items = await h.get(`/v0/collections/${form.collection.ref}/items`);
      assert.equal(items.status, 200);
      assert.equal(items.body.data.length, 1);
      assertBareNotFound(await submit(h, form.id, { email: 'after@acme.test' }));
    });

    it('lists forms oldest first with cursors, per organization', async () => {
      const other = await createHarness(engine);
      try {
        const ids = [];
        for (let i = 0; i < 3; i++) ids.push((await makeForm(other, { name: `Form ${i}` })).id);
        const pages = await walkForward((q) => other.get(`/v0/forms?limit=2&${q}`));
        assert.deepEqual(pages.flatMap((p) => p.data.map((f: any) => f.id)), ids);
        const { key } = await other.newOrg();
        assert.deepEqual((await other.get('/v0/forms', { key })).body.data, []);
        assertBareNotFound(await other.get(`/v0/forms/${ids[0]}`, { key }));
      } finally {
        await other.close();
      }
    });

    it('takes a public JSON submission: item, activity/form_submitted, redirect rendered with UTM parameters appended', async () => {
      const form = await makeForm(h, { redirect_url: 'https://example.com/thanks?e={{ submission.email | uri_encode }}&n={{ submission.name }}' });
      const res = await submit(h, form.id, { name: 'Jane', email: 'jane+x@acme.test', message: 'Hello', utm_medium: 'email' }, '?utm_source=newsletter&utm_campaign=spring&other=1');
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.type, 'form_submission');
      assert.equal(res.body.item.collection.ref, form.collection.ref);
      const url = new URL(res.body.redirect_url);
      assert.equal(url.origin + url.pathname, 'https://example.com/thanks');
      assert.equal(url.searchParams.get('e'), 'jane+x@acme.test');
      assert.equal(url.searchParams.get('n'), 'Jane');
      assert.equal(url.searchParams.get('utm_source'), 'newsletter');
      assert.equal(url.searchParams.get('utm_medium'), 'email');
      assert.equal(url.searchParams.get('utm_campaign'), 'spring');
      assert.equal(url.searchParams.get('other'), null);
      const item = await h.get(`/v0/collections/${form.collection.ref}/items/${res.body.item.id}`);
      assert.equal(item.body.values.name.data, 'Jane');
      assert.equal(item.body.values.email.data, 'jane+x@acme.test');
      assert.equal(item.body.values.message.data, 'Hello');
      const activities = await activitiesOf(h, 'item', res.body.item.id);
      const submitted = activities.find((a) => a.type === 'activity/form_submitted');
      assert.ok(submitted, JSON.stringify(activities));
      assert.deepEqual(submitted.constituents.map((c: any) => `${c.relation}:${c.entity.type}`), ['object:item', 'target:collection']);
      assert.equal(submitted.constituents[1].entity.ref, form.collection.ref);
    });

    it('takes a URL-encoded browser post and redirects it (303); without a redirect it answers 201', async () => {
      const form = await makeForm(h, { redirect_url: 'https://example.com/done' });
      const res = await submitEncoded(h, form.id, { name: 'Bob', email: 'bob@acme.test', message: '', utm_content: 'hero' });
      assert.equal(res.status, 303, res.text);
      assert.equal(res.headers.location, 'https://example.com/done?utm_content=hero');
      const plain = await makeForm(h);
      const answered = await submitEncoded(h, plain.id, { email: 'bob@acme.test' });
      assert.equal(answered.status, 201, answered.text);
      assert.equal(answered.body.redirect_url, null);
    });

    it('validates submissions against the form fields with pointers; a redirect that renders to no URL fails it', async () => {
      const form = await makeForm(h, { redirect_url: '{{ submission.message }}' });
      assertInvalid(await submit(h, form.id, { email: 'not-an-address' }), '/email');
      assertInvalid(await submit(h, form.id, { nope: 'x' }), '/nope');
      assertInvalid(await submit(h, form.id, { created_at: '2020-01-01T00:00:00Z' }), '/created_at');
      const bad = await submit(h, form.id, { email: 'a@acme.test', message: 'x' });
      assert.equal(bad.status, 422);
      const unrenderable = await h.post('/v0/forms', { name: 'Bad redirect', redirect_url: 'not a url {{ submission.email }}' });
      const res = await submit(h, unrenderable.body.id, { email: 'a@acme.test' });
      assert.equal(res.status, 422, res.text);
      assert.match(errorOf(res).detail!, /redirect_url/);
      assert.equal((await h.get(`/v0/collections/${unrenderable.body.collection.ref}/items`)).body.data.length, 0, 'nothing was created');
      assertBareNotFound(await submit(h, 'unknown', { email: 'a@acme.test' }));
    });

    it('a URL-encoded submission loses no field on the way: prototype-like names are checked like any other, too many or __proto__ → 400', async () => {
      const form = await makeForm(h);
      const items = async () => (await h.get(`/v0/collections/${form.collection.ref}/items`)).body.data.length;
      const before = await items();
      for (const name of ['constructor', 'toString', 'hasOwnProperty']) assertInvalid(await submitEncoded(h, form.id, { email: 'a@acme.test', [name]: 'x' }), `/${name}`);
      const encoded = (payload: string) =>
        h.request('POST', `/tycho/forms/${form.id}/submissions`, { payload, headers: { 'content-type': 'application/x-www-form-urlencoded' }, key: null });
      const tooMany = await encoded(`${Array.from({ length: 1000 }, () => 'utm_term=a').join('&')}&email=real%40acme.test`);
      assert.equal(tooMany.status, 400, tooMany.text);
      assert.equal(errorOf(tooMany).code, 'invalid_body');
      for (const payload of ['email=a%40acme.test&__proto__%5Bname%5D=x', 'email=a%40acme.test&__proto__=x', 'email=a%40acme.test&__pro%74o__=x']) {
        const res = await encoded(payload);
        assert.equal(res.status, 400, res.text);
        assert.match(errorOf(res).detail!, /__proto__/);
      }
      // Text that is not UTF-8, percent-encoded or sent as bytes, is refused (was: stored as U+FFFD).
      for (const payload of ['email=a%40acme.test&utm_term=bad%FF', 'email=a%40acme.test&utm_term=100%', Buffer.from('email=a%40acme.test&utm_term=bad\xff', 'latin1')]) {
        const res = await encoded(payload as string);
        assert.equal(res.status, 400, res.text);
        assert.match(errorOf(res).detail!, /UTF-8/);
      }
      assert.equal(await items(), before, 'nothing was created');
      assert.equal((await submitEncoded(h, form.id, { email: 'ok@acme.test' })).status, 201);
      assert.equal((await encoded('email=ok2%40acme.test&utm_term=Z%C3%BCrich+Nord')).status, 201, 'UTF-8, percent-encoded, with + for spaces');
    });

    it('enforces business_email_required with the free and disposable provider lists', async () => {
      const form = await makeForm(h, { business_email_required: true });
      for (const address of ['someone@gmail.com', 'someone@GMail.COM', 'someone@yahoo.co.uk', 'throwaway@mailinator.com', 'x@eu.mailinator.com', 'x@xn--mll-hoa.email', 'x@müll.email']) {
        const detail = assertInvalid(await submit(h, form.id, { email: address }), '/email');
        assert.match(detail, /free or disposable/);
      }
      assertInvalid(await submit(h, form.id, { name: 'No email' }), '/email');
      assert.equal((await submit(h, form.id, { email: 'ceo@acme-industries.test' })).status, 201);
      assert.equal((await submit(h, form.id, { email: 'ceo@notgmail.com' })).status, 201, 'a domain that only ends like a listed one');
    });

    it(`rate-limits submissions per form and address (${SUBMISSIONS_PER_WINDOW} a minute)`, async () => {
      const form = await makeForm(h);
      const other = await makeForm(h);
      for (let i = 0; i < SUBMISSIONS_PER_WINDOW; i++) assert.equal((await submit(h, form.id, { email: `r${i}@acme.test` })).status, 201);
      const limited = await submit(h, form.id, { email: 'late@acme.test' });
      assert.equal(limited.status, 429);
      assert.equal(errorOf(limited).title, 'Too Many Requests');
      assert.equal((await submit(h, other.id, { email: 'other@acme.test' })).status, 201, 'another form has its own budget');
    });

    it('serves the form page when pages are enabled, and 404 otherwise', async () => {
      const form = await makeForm(h, { name: 'Say <hi>', pages_enabled: true });
      const page = await h.request('GET', `/tycho/forms/${form.id}`, { key: null });
      assert.equal(page.status, 200);
      assert.match(String(page.headers['content-type']), /text\/html/);
      assert.match(page.text, /<title>Say &#60;hi&#62;<\/title>/);
      assert.match(page.text, /name="email" type="email"/);
      assert.match(page.text, new RegExp(`action="/tycho/forms/${form.id}/submissions"`));
      const closed = await makeForm(h);
      assertBareNotFound(await h.request('GET', `/tycho/forms/${closed.id}`, { key: null }));
    });
  });
}
