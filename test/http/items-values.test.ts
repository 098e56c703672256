// Item values through HTTP (reference §6.2–6.3): every one of the 20 value types accepted and normalised, or
// refused with a 422 pointing at the value; cardinality leniency; null, unknown and readonly refs; required,
// unique and default values.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, type Harness } from '../helpers/harness.ts';
import { assertInvalid, email, makeCollection, makeField, makeItem, text, val } from '../helpers/items.ts';

const NOW = '2025-03-04T10:00:00.000Z';
const clock = () => new Date(NOW);

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const engine of ENGINES) {
  describe(`item values of every type (${engine})`, () => {
    let h: Harness;
    let cid: string;
    let items: string;
    let tier: any;
    let stage: any;
    let orgsId: string;
    let orgItem: any;
    let personItem: any;

    /** POSTs an item with these values. */
    const create = (values: Record<string, unknown>) => h.post(items, { values });

    /** Creates an item holding `value` in `ref` and returns the response value of `ref`. */
    const roundTrip = async (ref: string, value: unknown): Promise<any> => {
      const res = await create({ [ref]: value });
      assert.equal(res.status, 201, res.text);
      return res.body.values[ref];
    };

    /** A request with `value` in `ref` answers 422 at `pointer` (default `/values/<ref>`) naming the field. */
    const rejects = async (ref: string, value: unknown, pointer = `/values/${ref}`): Promise<string> => {
      const detail = assertInvalid(await create({ [ref]: value }), pointer);
      assert.ok(detail.includes(ref), `detail names the field ${ref}: ${detail}`);
      return detail;
    };

    before(async () => {
      h = await createHarness(engine, { clock });
      const collection = await makeCollection(h, 'Specimens');
      cid = collection.id;
      items = `/v0/collections/${cid}/items`;
      orgsId = (await h.get('/v0/collections/organizations')).body.id;
      const fields: [string, Record<string, unknown>][] = [
        ['title', { type: 'field/text/single_line' }],
        ['notes', { type: 'field/text/multi_line' }],
        ['external_id', { type: 'field/identifier' }],
        ['count', { type: 'field/number/unitless_integer' }],
        ['ratio', { type: 'field/number/unitless_float' }],
        ['price', { type: 'field/number/monetary', default_unit: 'USD' }],
        ['share', { type: 'field/number/percentage' }],
        ['active', { type: 'field/boolean' }],
        ['contact', { type: 'field/email' }],
        ['website', { type: 'field/uri/url' }],
        ['domain', { type: 'field/uri/domain' }],
        ['x_profile', { type: 'field/uri/social_x' }],
        ['linkedin', { type: 'field/uri/social_linked_in' }],
        ['phone', { type: 'field/telephone_number' }],
        ['location', { type: 'field/geo' }],
        ['birthday', { type: 'field/date' }],
        ['met_at', { type: 'field/datetime' }],
        ['tier', { type: 'field/choice', options: [{ name: 'Gold', color: 'amber' }, { name: 'Silver', color: 'sky' }] }],
        ['stage', { type: 'field/stage', stages: [{ name: 'Lead', step_type: 'active' }, { name: 'Won', step_type: 'success' }] }],
        ['org', { type: 'field/relation', relation_type: 'one_way', allowed_collections: [{ type: 'collection', ref: 'organizations' }] }],
        ['emails', { type: 'field/email', cardinality: 'many' }],
        ['labels', { type: 'field/choice', cardinality: 'many', options: [{ name: 'Red', color: 'red' }, { name: 'Blue', color: 'blue' }] }],
        ['scores', { type: 'field/number/unitless_integer', cardinality: 'many' }],
        ['orgs', { type: 'field/relation', cardinality: 'many', relation_type: 'one_way', allowed_collections: [{ type: 'collection', ref: 'organizations' }] }],
      ];
      for (const [name, body] of fields) {
        const field = await makeField(h, cid, { name, ...body });
        assert.equal(field.ref, name);
        if (name === 'tier') tier = field;
        if (name === 'stage') stage = field;
      }
      orgItem = await makeItem(h, 'organizations', { name: text('Aperture Science') });
      personItem = await makeItem(h, 'people', { name: text('Cave Johnson') });
    });
    after(() => h.close());

    it('returns a created item with type, collection pointer and the system timestamps', async () => {
      const res = await create({ title: text('Specimen A') });
      assert.equal(res.status, 201);
      assert.equal(res.body.type, 'item');
      assert.match(res.body.id, /^[1-9A-HJ-NP-Za-km-z]{22}$/);
      assert.deepEqual(res.body.collection, { id: cid, type: 'collection', ref: 'specimens' });
      assert.deepEqual(res.body.values.title, text('Specimen A'));
      assert.deepEqual(res.body.values.created_at, { type: 'value/datetime', data: NOW });
      assert.deepEqual(res.body.values.updated_at, { type: 'value/datetime', data: NOW });
      // Unset fields are omitted, never null.
      assert.equal('notes' in res.body.values, false);
      const got = await h.get(`${items}/${res.body.id}`);
      assert.equal(got.body.values.created_at.type, 'value/datetime');
      assert.match(got.body.values.created_at.data, TIMESTAMP);
      assert.match(got.body.values.updated_at.data, TIMESTAMP);
    });

    describe('text', () => {
      it('single_line: accepted; over 1024 characters or with a line break → 422', async () => {
        assert.deepEqual(await roundTrip('title', text('Portal gun')), text('Portal gun'));
        assert.deepEqual(await roundTrip('title', text('x'.repeat(1024))), text('x'.repeat(1024)));
        await rejects('title', text('x'.repeat(1025)));
        // Characters, not UTF-16 units: 1024 emoji fit, as JSON Schema's maxLength counts them.
        assert.deepEqual(await roundTrip('title', text('😀'.repeat(1024))), text('😀'.repeat(1024)));
        assert.match(await rejects('title', text('😀'.repeat(1025))), /at most 1024 characters long, got 1025/);
        await rejects('title', text('two\nlines'));
        await rejects('title', text('carriage\rreturn'));
      });

      it('multi_line: accepts line breaks; a non-string → 422', async () => {
        assert.deepEqual(await roundTrip('notes', val('text/multi_line', 'line one\nline two')), val('text/multi_line', 'line one\nline two'));
        await rejects('notes', val('text/multi_line', 42));
        await rejects('notes', val('text/multi_line', 'x'.repeat(65537)));
      });

      it('identifier: stored verbatim; over 255 characters → 422', async () => {
        assert.deepEqual(await roundTrip('external_id', val('identifier', 'AbC-123_x')), val('identifier', 'AbC-123_x'));
        await rejects('external_id', val('identifier', 'i'.repeat(256)));
      });

      it('geo: free-form text accepted; a non-string → 422', async () => {
        assert.deepEqual(await roundTrip('location', val('geo', 'Upper Michigan, USA')), val('geo', 'Upper Michigan, USA'));
        await rejects('location', val('geo', { lat: 1, lng: 2 }));
      });
    });

    describe('numbers and booleans', () => {
      it('integer: whole numbers; 1.5 → 422', async () => {
        assert.deepEqual(await roundTrip('count', val('number/unitless_integer', -42)), val('number/unitless_integer', -42));
        await rejects('count', val('number/unitless_integer', 1.5));
        await rejects('count', val('number/unitless_integer', '3'));
        // Regression: a whole number too large for JSON clients was refused as "must be a whole number".
        assert.match(await rejects('count', val('number/unitless_integer', 1e20)), /whole number from -9007199254740991 to 9007199254740991 \(e\.g\. 42\), got 100000000000000000000/);
      });

      it('float: 1.5 accepted; a string → 422', async () => {
        assert.deepEqual(await roundTrip('ratio', val('number/unitless_float', 1.5)), val('number/unitless_float', 1.5));
        await rejects('ratio', val('number/unitless_float', '1.5'));
      });

      it('monetary: {currency, in_minor_units}; a fractional amount or an unknown currency → 422', async () => {
        const money = { currency: 'USD', in_minor_units: 1000 };
        assert.deepEqual(await roundTrip('price', val('number/monetary', money)), val('number/monetary', money));
        await rejects('price', val('number/monetary', { currency: 'USD', in_minor_units: 10.5 }));
        await rejects('price', val('number/monetary', { currency: 'DOLLARS', in_minor_units: 1000 }));
        await rejects('price', val('number/monetary', { currency: 'usd', in_minor_units: 1000 }));
        await rejects('price', val('number/monetary', 1000));
      });

      it('percentage: percentage points (50.21); a string → 422', async () => {
        assert.deepEqual(await roundTrip('share', val('number/percentage', 50.21)), val('number/percentage', 50.21));
        await rejects('share', val('number/percentage', '50%'));
      });

      it('boolean: true/false; "yes" → 422', async () => {
        assert.deepEqual(await roundTrip('active', val('boolean', false)), val('boolean', false));
        assert.deepEqual(await roundTrip('active', val('boolean', true)), val('boolean', true));
        await rejects('active', val('boolean', 'yes'));
        await rejects('active', val('boolean', 1));
      });
    });

    describe('addresses', () => {
      it('email: a valid address accepted; bad syntax → 422', async () => {
        assert.deepEqual(await roundTrip('contact', email('glados@aperture.com')), email('glados@aperture.com'));
        assert.deepEqual(await roundTrip('contact', email('glados@ＡＰＥＲＴＵＲＥ.com')), email('glados@aperture.com'), 'a full-width domain is the same domain');
        await rejects('contact', email('not-an-email'));
        await rejects('contact', email('two@@at.com'));
        await rejects('contact', email('jane@'));
        await rejects('contact', email('jane doe@example.com'));
      });

      it('url: needs a scheme', async () => {
        assert.deepEqual(await roundTrip('website', val('uri/url', 'https://aperture.com/portal')), val('uri/url', 'https://aperture.com/portal'));
        assert.deepEqual(await roundTrip('website', val('uri/url', 'mailto:cave@aperture.com')), val('uri/url', 'mailto:cave@aperture.com'));
        await rejects('website', val('uri/url', 'aperture.com/portal'));
        await rejects('website', val('uri/url', 'www.aperture.com'));
      });

      it('domain: lower-cased; a scheme or a path → 422; IDN accepted', async () => {
        assert.deepEqual(await roundTrip('domain', val('uri/domain', 'Example.COM')), val('uri/domain', 'example.com'));
        assert.deepEqual(await roundTrip('domain', val('uri/domain', 'bücher.de')), val('uri/domain', 'bücher.de'));
        // Full-width letters are the same name (IDNA maps them): stored as one, so unique and eq see one domain.
        assert.deepEqual(await roundTrip('domain', val('uri/domain', 'ＥＸＡＭＰＬＥ.com')), val('uri/domain', 'example.com'));
        await rejects('domain', val('uri/domain', 'https://example.com'));
        await rejects('domain', val('uri/domain', 'example.com/about'));
        await rejects('domain', val('uri/domain', 'localhost'));
      });

      it('telephone: strict E.164', async () => {
        assert.deepEqual(await roundTrip('phone', val('telephone_number', '+14155552671')), val('telephone_number', '+14155552671'));
        // Trimmed like every one-line value (was: 422).
        assert.deepEqual(await roundTrip('phone', val('telephone_number', ' +14155552671\t')), val('telephone_number', '+14155552671'));
        const detail = await rejects('phone', val('telephone_number', '+1 415 555 2671'));
        assert.match(detail, /E\.164/);
        await rejects('phone', val('telephone_number', '4155552671'));
        await rejects('phone', val('telephone_number', '(415) 555-2671'));
      });
    });

    describe('social profiles', () => {
      it('social_x: a url gets its username, a username (with @) gets its url', async () => {
        assert.deepEqual(await roundTrip('x_profile', val('uri/social_x', { url: 'https://x.com/jack' })), val('uri/social_x', { url: 'https://x.com/jack', username: 'jack' }));
        const fromName = await roundTrip('x_profile', val('uri/social_x', { username: '@jack' }));
        assert.equal(fromName.type, 'value/uri/social_x');
        assert.equal(fromName.data.username, 'jack');
        assert.match(fromName.data.url, /^https:\/\/(www\.)?(x|twitter)\.com\/jack$/);
        // Answered as https://x.com/<username> however the profile URL was written.
        for (const url of ['x.com/jack', 'http://x.com/jack', 'https://twitter.com/jack', 'https://mobile.twitter.com/jack?s=1', 'https://www.x.com/@jack/']) {
          assert.deepEqual(await roundTrip('x_profile', val('uri/social_x', { url })), val('uri/social_x', { url: 'https://x.com/jack', username: 'jack' }), url);
        }
        await rejects('x_profile', val('uri/social_x', { url: 'https://facebook.com/jack' }));
        await rejects('x_profile', val('uri/social_x', { username: 'a_username_far_too_long' }));
        await rejects('x_profile', val('uri/social_x', {}));
      });

      it('social_linked_in: the username keeps its in/ or company/ prefix', async () => {
        assert.deepEqual(
          await roundTrip('linkedin', val('uri/social_linked_in', { url: 'https://linkedin.com/company/aperturescience' })),
          val('uri/social_linked_in', { url: 'https://linkedin.com/company/aperturescience', username: 'company/aperturescience' }),
        );
        assert.deepEqual(
          await roundTrip('linkedin', val('uri/social_linked_in', { url: 'www.linkedin.com/in/ada-lovelace' })),
          val('uri/social_linked_in', { url: 'https://www.linkedin.com/in/ada-lovelace', username: 'in/ada-lovelace' }),
          'a URL without a scheme gets https://',
        );
        const fromName = await roundTrip('linkedin', val('uri/social_linked_in', { username: 'in/jane-doe' }));
        assert.equal(fromName.data.username, 'in/jane-doe');
        assert.match(fromName.data.url, /^https:\/\/(www\.)?linkedin\.com\/in\/jane-doe\/?$/);
        await rejects('linkedin', val('uri/social_linked_in', { url: 'https://example.com/in/jane-doe' }));
        // Regression: a `%` that starts no escape in the path threw out of the parser (500).
        await rejects('linkedin', val('uri/social_linked_in', { url: 'https://linkedin.com/in/100%' }));
        await rejects('x_profile', val('uri/social_x', { url: 'https://x.com/%E0%A4%A' }));
      });
    });

    describe('dates', () => {
      it('date: YYYY-MM-DD that exists', async () => {
        assert.deepEqual(await roundTrip('birthday', val('date', '2024-02-29')), val('date', '2024-02-29'));
        await rejects('birthday', val('date', '2025-02-30'));
        await rejects('birthday', val('date', '2025-02-29'));
        await rejects('birthday', val('date', '17/02/2025'));
      });

      it('datetime: normalised to UTC with milliseconds; a zone is required', async () => {
        assert.deepEqual(await roundTrip('met_at', val('datetime', '2025-02-17T16:00:00Z')), val('datetime', '2025-02-17T16:00:00.000Z'));
        assert.deepEqual(await roundTrip('met_at', val('datetime', '2025-02-17T18:00:00+02:00')), val('datetime', '2025-02-17T16:00:00.000Z'));
        // The Ruby SDK writes a Time into a JSON body as Time#to_s does.
        assert.deepEqual(await roundTrip('met_at', val('datetime', '2025-02-17 16:00:00 UTC')), val('datetime', '2025-02-17T16:00:00.000Z'));
        assert.deepEqual(await roundTrip('met_at', val('datetime', '2025-02-17 11:00:00 -0500')), val('datetime', '2025-02-17T16:00:00.000Z'));
        await rejects('met_at', val('datetime', '2025-02-17T16:00:00'));
        await rejects('met_at', val('datetime', '2025-02-17 16:00:00'));
        await rejects('met_at', val('datetime', 'yesterday'));
      });
    });

    describe('pointers', () => {
      it('choice: an option pointer comes back as the full option; an unknown option → 422', async () => {
        const option = tier.options[1];
        const out = await roundTrip('tier', val('choice', { type: 'choice_field_option', id: option.id }));
        assert.deepEqual(out, val('choice', { id: option.id, type: 'choice_field_option', name: 'Silver', color: 'sky' }));
        await rejects('tier', val('choice', { type: 'choice_field_option', id: 'no-such-option' }));
        await rejects('tier', val('choice', { type: 'funnel_step', id: option.id }));
      });

      it('stage: a step pointer comes back as the full step, type value/funnel_step', async () => {
        const step = stage.funnel.steps.find((s: any) => s.name === 'Won');
        assert.ok(step, 'the stage field response lists its funnel steps');
        const out = await roundTrip('stage', val('funnel_step', { type: 'funnel_step', id: step.id }));
        assert.equal(out.type, 'value/funnel_step');
        assert.deepEqual(out.data, { id: step.id, type: 'funnel_step', name: 'Won', step_type: 'success', color: step.color });
        await rejects('stage', val('funnel_step', { type: 'funnel_step', id: tier.options[0].id }));
        await rejects('stage', val('stage', { type: 'funnel_step', id: step.id }));
      });

      it('relation: an item pointer comes back with its collection', async () => {
        const out = await roundTrip('org', val('relation', { type: 'item', id: orgItem.id }));
        assert.deepEqual(out, val('relation', { id: orgItem.id, type: 'item', collection: { id: orgsId, type: 'collection', ref: 'organizations' } }));
      });

      it('relation: a missing item, an item of a collection not allowed, or another organization\'s item → 422', async () => {
        await rejects('org', val('relation', { type: 'item', id: '1ChFEsgexNKTAqYqRGhYeA' }));
        await rejects('org', val('relation', { type: 'item', id: personItem.id }));
        const other = await h.newOrg();
        const foreign = await makeItem(h, 'organizations', { name: text('Black Mesa') }, { key: other.key });
        await rejects('org', val('relation', { type: 'item', id: foreign.id }));
        // Inside a many field the error points at the field and names the element.
        const detail = assertInvalid(
          await create({ orgs: [val('relation', { type: 'item', id: orgItem.id }), val('relation', { type: 'item', id: foreign.id })] }),
          '/values/orgs',
        );
        assert.match(detail, /^orgs\[1\] /);
      });
    });

    describe('type and shape', () => {
      it('a value whose type does not match the field → 422', async () => {
        await rejects('title', email('a@example.com'));
        await rejects('count', val('number/unitless_float', 3));
        await rejects('contact', val('text/single_line', 'a@example.com'));
      });

      it('a value that is not a {type, data} object → 422', async () => {
        await rejects('title', 'bare string');
        await rejects('title', { type: 'value/text/single_line' });
      });
    });

    describe('cardinality', () => {
      it('a many field is an array in responses, even holding one value sent as a single object', async () => {
        const res = await create({ emails: email('one@example.com'), scores: [val('number/unitless_integer', 7)] });
        assert.equal(res.status, 201, res.text);
        assert.deepEqual(res.body.values.emails, [email('one@example.com')]);
        assert.deepEqual(res.body.values.scores, [val('number/unitless_integer', 7)]);
        const got = await h.get(`${items}/${res.body.id}`);
        assert.deepEqual(got.body.values.emails, [email('one@example.com')]);
      });

      it('a many field keeps several values in order; choice elements are expanded', async () => {
        const [red, blue] = (await h.get(`/v0/collections/${cid}/fields/labels`)).body.options;
        const res = await create({
          emails: [email('a@example.com'), email('b@example.com')],
          labels: [val('choice', { type: 'choice_field_option', id: blue.id }), val('choice', { type: 'choice_field_option', id: red.id })],
        });
        assert.equal(res.status, 201, res.text);
        assert.deepEqual(res.body.values.emails, [email('a@example.com'), email('b@example.com')]);
        assert.deepEqual(
          res.body.values.labels.map((v: any) => [v.type, v.data.name, v.data.color]),
          [['value/choice', 'Blue', 'blue'], ['value/choice', 'Red', 'red']],
        );
      });

      it('a one field accepts a one-element array and answers with a single object', async () => {
        assert.deepEqual(await roundTrip('title', [text('Boxed')]), text('Boxed'));
      });

      it('two values for a one field → 422 at the field', async () => {
        const detail = assertInvalid(await create({ title: [text('a'), text('b')] }), '/values/title');
        assert.ok(detail.includes('title'));
      });

      it('an invalid element of a many field points at the field (reference A.5) and the detail names its index', async () => {
        const detail = assertInvalid(await create({ emails: [email('ok@example.com'), email('broken')] }), '/values/emails');
        assert.match(detail, /^emails\[1\] /);
        assert.match(assertInvalid(await create({ scores: [val('number/unitless_integer', 1.5)] }), '/values/scores'), /^scores /);
        // A single object for a many field points at the field itself.
        assertInvalid(await create({ emails: email('broken') }), '/values/emails');
      });

      it('null clears a field on PATCH; other values stay', async () => {
        const created = await makeItem(h, cid, { title: text('Clear me'), emails: [email('x@example.com')], count: val('number/unitless_integer', 3) });
        const res = await h.patch(`${items}/${created.id}`, { values: { title: null, emails: null } });
        assert.equal(res.status, 200, res.text);
        assert.equal('title' in res.body.values, false);
        assert.equal('emails' in res.body.values, false);
        assert.deepEqual(res.body.values.count, val('number/unitless_integer', 3));
        const got = await h.get(`${items}/${created.id}`);
        assert.equal('title' in got.body.values, false);
        assert.equal('emails' in got.body.values, false);
      });

      it('an unknown ref → 422 at /values/<ref>', async () => {
        const detail = assertInvalid(await create({ nope: text('x') }), '/values/nope');
        assert.ok(detail.includes('nope'));
        // Regression: the refs suggested included the readonly created_at and updated_at, which are refused.
        const suggested = detail.split('such as ')[1]?.split(', ') ?? [];
        assert.ok(suggested.length > 0, detail);
        assert.ok(!suggested.includes('created_at') && !suggested.includes('updated_at'), detail);
      });

      it('writing the readonly created_at or updated_at → 422', async () => {
        assertInvalid(await create({ created_at: val('datetime', '2020-01-01T00:00:00Z') }), '/values/created_at');
        assertInvalid(await create({ updated_at: val('datetime', '2020-01-01T00:00:00Z') }), '/values/updated_at');
        const created = await makeItem(h, cid, { title: text('Timestamps') });
        assertInvalid(await h.patch(`${items}/${created.id}`, { values: { created_at: val('datetime', '2020-01-01T00:00:00Z') } }), '/values/created_at');
      });

      it('refuses a whole body when one value is invalid: nothing is written', async () => {
        const before = (await h.post(`${items}/search`, { filter: { op: 'eq', field: 'title', value: 'Atomic' } })).body.data.length;
        assertInvalid(await create({ title: text('Atomic'), count: val('number/unitless_integer', 0.5) }), '/values/count');
        const afterwards = (await h.post(`${items}/search`, { filter: { op: 'eq', field: 'title', value: 'Atomic' } })).body.data.length;
        assert.equal(afterwards, before);
      });
    });

    describe('required, unique and default values', () => {
      let strict: string;
      before(async () => {
        strict = `/v0/collections/${(await makeCollection(h, 'Strict')).id}/items`;
        const sid = strict.split('/')[3]!;
        await makeField(h, sid, { name: 'code', type: 'field/identifier', required: true });
        await makeField(h, sid, { name: 'handle', type: 'field/text/single_line', unique: true });
        await makeField(h, sid, { name: 'aliases', type: 'field/email', cardinality: 'many', unique: true });
        await makeField(h, sid, { name: 'status', type: 'field/text/single_line', default_values: [text('new')] });
        await makeField(h, sid, { name: 'since', type: 'field/date', default_values: [{ type: 'current_date' }] });
        await makeField(h, sid, { name: 'seen_at', type: 'field/datetime', default_values: [{ type: 'current_datetime' }] });
      });

      it('a required field missing on create → 422 at /values/<ref>', async () => {
        const detail = assertInvalid(await h.post(strict, { values: { name: text('No code') } }), '/values/code');
        assert.ok(detail.includes('code'));
        assert.equal((await h.post(strict, { values: { code: val('identifier', 'C-1') } })).status, 201);
      });

      it('a required field cannot be cleared with null', async () => {
        const created = (await h.post(strict, { values: { code: val('identifier', 'C-2') } })).body;
        assertInvalid(await h.patch(`${strict}/${created.id}`, { values: { code: null } }), '/values/code');
      });

      it('a unique text field refuses the same value on a second item, whatever its case', async () => {
        assert.equal((await h.post(strict, { values: { code: val('identifier', 'U-1'), handle: text('Chell') } })).status, 201);
        const detail = assertInvalid(await h.post(strict, { values: { code: val('identifier', 'U-2'), handle: text('CHELL') } }), '/values/handle');
        assert.ok(detail.includes('handle'));
        // The same item may keep its own value.
        const other = (await h.post(strict, { values: { code: val('identifier', 'U-3'), handle: text('Wheatley') } })).body;
        const same = await h.patch(`${strict}/${other.id}`, { values: { handle: text('Wheatley'), name: text('Core') } });
        assert.equal(same.status, 200, same.text);
        assertInvalid(await h.patch(`${strict}/${other.id}`, { values: { handle: text('chell') } }), '/values/handle');
      });

      it(
        'a unique field compares whole values, not their first 512 characters',
        async () => {
          const prefix = 'h'.repeat(600);
          assert.equal((await h.post(strict, { values: { code: val('identifier', 'L-1'), handle: text(`${prefix}1`) } })).status, 201);
          const second = await h.post(strict, { values: { code: val('identifier', 'L-2'), handle: text(`${prefix}2`) } });
          assert.equal(second.status, 201, second.text);
        },
      );

      it('a unique many field: the error points at the field and names the duplicated value', async () => {
        assert.equal((await h.post(strict, { values: { code: val('identifier', 'U-4'), aliases: [email('dup@example.com')] } })).status, 201);
        const detail = assertInvalid(
          await h.post(strict, { values: { code: val('identifier', 'U-5'), aliases: [email('fresh@example.com'), email('dup@example.com')] } }),
          '/values/aliases',
        );
        assert.match(detail, /"dup@example\.com"/);
      });

      it('default values apply on create: static text, current_date and current_datetime', async () => {
        const res = await h.post(strict, { values: { code: val('identifier', 'D-1') } });
        assert.equal(res.status, 201, res.text);
        assert.deepEqual(res.body.values.status, text('new'));
        assert.deepEqual(res.body.values.since, val('date', NOW.slice(0, 10)));
        assert.deepEqual(res.body.values.seen_at, val('datetime', NOW));
      });

      it('a value sent on create wins over the default, and defaults do not apply on update', async () => {
        const res = await h.post(strict, { values: { code: val('identifier', 'D-2'), status: text('old'), since: val('date', '2020-01-01') } });
        assert.deepEqual(res.body.values.status, text('old'));
        assert.deepEqual(res.body.values.since, val('date', '2020-01-01'));
        const cleared = await h.patch(`${strict}/${res.body.id}`, { values: { status: null } });
        assert.equal(cleared.status, 200, cleared.text);
        assert.equal('status' in cleared.body.values, false);
      });
    });
  });
}
