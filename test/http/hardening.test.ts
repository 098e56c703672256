// Regressions from the hardening round: inputs that answered 500 (or held the database) must be 4xx in the
// errors envelope, with a pointer or parameter, and write nothing — alike on every engine.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, ENGINES, errorOf, type Harness } from '../helpers/harness.ts';
import { createCollection, createField } from '../helpers/fields.ts';
import { postMultipart } from '../helpers/multipart.ts';

const text = (data: string) => ({ type: 'value/text/single_line', data });

for (const engine of ENGINES) {
  describe(`hardening: no 5xx from hostile input (${engine})`, () => {
    let h: Harness;
    let itemCount: () => Promise<number>;

    before(async () => {
      h = await createHarness(engine);
      await createCollection(h, 'Projects');
      await createField(h, 'projects', { type: 'field/number/unitless_integer', name: 'Score' });
      await createField(h, 'projects', { type: 'field/text/multi_line', name: 'Body' });
      await createField(h, 'projects', { type: 'field/uri/url', name: 'Link' });
      await createField(h, 'projects', { type: 'field/identifier', name: 'Code', unique: true });
      await createField(h, 'projects', { type: 'field/choice', name: 'Priority', options: [{ name: 'High' }, { name: 'Low' }] });
      itemCount = async () => {
        let count = 0;
        for (const collection of ['people', 'projects']) {
          const res = await h.get(`/v0/collections/${collection}/items?limit=100`);
          count += res.body.data.length;
        }
        return count;
      };
    });
    after(() => h.close());

    const expectError = (res: { status: number; text: string; body: any }, status: number, source: { pointer?: string; parameter?: string }) => {
      assert.equal(res.status, status, res.text);
      assert.deepEqual(errorOf(res as never).source, source, res.text);
    };

    it('a value object without "type" is a 422 at the value, showing the accepted shape (create, upsert, identifiers, defaults)', async () => {
      const before = await itemCount();
      let res = await h.post('/v0/collections/people/items', { values: { name: { data: 'x' } } });
      expectError(res, 422, { pointer: '/values/name' });
      assert.match(errorOf(res).detail!, /\{"type": "value\/text\/single_line", "data": "Acme"\}/);
      res = await h.post('/v0/collections/people/items/upsert', { identifiers: { email: { data: 'x@example.com' } }, values: {} });
      expectError(res, 422, { pointer: '/identifiers/email' });
      res = await h.post('/v0/collections/people/items/upsert', { identifiers: { email: {} }, values: {} });
      expectError(res, 422, { pointer: '/identifiers/email' });
      res = await h.post('/v0/collections/people/items/upsert', { identifiers: { email: [{ type: 'value/email', data: 'a@example.com' }, {}] }, values: {} });
      expectError(res, 422, { pointer: '/identifiers/email' });
      assert.match(errorOf(res).detail!, /^email\[1\] /);
      res = await h.post('/v0/collections/projects/fields', { type: 'field/text/single_line', name: 'Dv', default_values: [{}] });
      expectError(res, 422, { pointer: '/default_values/0' });
      assert.equal(await itemCount(), before);
      const collection = await h.get('/v0/collections/projects');
      assert.ok(!collection.body.fields.some((f: { ref: string }) => f.ref === 'dv'), 'no field was created');
    });

    it('every value error shows the whole accepted value, so a choice pointer is not mistaken for the value', async () => {
      const res = await h.post('/v0/collections/projects/items', { values: { priority: { type: 'choice_field_option', id: 'x' } } });
      expectError(res, 422, { pointer: '/values/priority' });
      assert.match(errorOf(res).detail!, /\{"type": "value\/choice", "data": \{"type": "choice_field_option", "id": "[^"]+"\}\}/);
      const wrongData = await h.post('/v0/collections/projects/items', { values: { priority: { type: 'value/choice', data: 'High' } } });
      assert.match(errorOf(wrongData).detail!, /send a value such as \{"type": "value\/choice", "data": \{"type": "choice_field_option"/);
    });

    it('one request cannot give a field thousands of values, nor an upsert hundreds of identifiers', async () => {
      const emails = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ type: 'value/email', data: `${tag}${i}@example.com` }));
      const before = await itemCount();
      expectError(await h.post('/v0/collections/people/items', { values: { email: emails(1001, 'a') } }), 422, { pointer: '/values/email' });
      expectError(await h.post('/v0/collections/people/items/upsert', { identifiers: { email: emails(101, 'b') }, values: {} }), 422, { pointer: '/identifiers' });
      assert.equal(await itemCount(), before);
      const many = await h.post('/v0/collections/people/items', { values: { email: emails(1000, 'c') } });
      assert.equal(many.status, 201, many.text);
      await h.delete(`/v0/collections/people/items/${many.body.id}`);
    });

    it('a tagset holds at most 1,000 tags, a funnel 1,000 steps, a choice field 1,000 options (was: 60,000 tags made a page of tagsets 140 MB)', async () => {
      const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ name: `${prefix} ${i}`, step_type: 'active' }));
      expectError(await h.post('/v0/tagsets', { name: 'Big', tags: many(1001, 'T') }), 422, { pointer: '/tags' });
      expectError(await h.post('/v0/funnels', { name: 'Long', steps: many(1001, 'S') }), 422, { pointer: '/steps' });
      expectError(await h.post('/v0/collections/people/fields', { type: 'field/choice', name: 'Wide', options: many(1001, 'O') }), 422, { pointer: '/options' });
      expectError(await h.post('/v0/collections/people/fields', { type: 'field/stage', name: 'Long stage', stages: many(1001, 'S') }), 422, { pointer: '/stages' });
      const full = await h.post('/v0/collections/people/fields', { type: 'field/choice', name: 'Full', options: many(1000, 'O') });
      assert.equal(full.status, 201, full.text);
      // The operation form adds to the current set: the set it would make is what counts.
      const grown = await h.patch(`/v0/collections/people/fields/${full.body.id}`, { type: 'field/choice', options: [{ op: 'add', name: 'One more' }] });
      expectError(grown, 422, { pointer: '/options' });
      assert.equal((await h.post('/v0/tagsets', { name: 'Fits', tags: many(1000, 'T') })).status, 201);
    });

    it('names of tags, funnel steps and choice options are at most 255 characters, like the names of what holds them (were unbounded)', async () => {
      const long = 'n'.repeat(256);
      expectError(await h.post('/v0/tagsets', { name: 'Named', tags: [{ name: 'ok' }, { name: long }] }), 422, { pointer: '/tags/1/name' });
      expectError(await h.post('/v0/funnels', { name: 'Named', steps: [{ name: long, step_type: 'active' }] }), 422, { pointer: '/steps/0/name' });
      expectError(await h.post('/v0/collections/people/fields', { type: 'field/choice', name: 'Named', options: [{ name: long }] }), 422, { pointer: '/options/0/name' });
      // 255 characters, an emoji counting as one, fit.
      const fits = await h.post('/v0/tagsets', { name: 'Fits 255', tags: [{ name: `${'n'.repeat(254)}🙂` }] });
      assert.equal(fits.status, 201, fits.text);
    });

    it('a deeply nested body is refused before parsing, in linear time (no quadratic walk, no stack overflow)', async () => {
      for (const payload of ['['.repeat(200_000) + ']'.repeat(200_000), `{"steps":${'['.repeat(101)}"\\u0000"${']'.repeat(101)}}`]) {
        const res = await h.request('POST', '/v0/funnels', { payload, headers: { 'content-type': 'application/json' } });
        assert.equal(res.status, 400, res.text);
        assert.equal(errorOf(res).code, 'invalid_body');
      }
      // A filter at the deepest nesting the filter language allows still parses.
      let filter: unknown = { field: 'name', op: 'eq', value: 'x' };
      for (let i = 0; i < 32; i++) filter = { op: 'and', filters: [filter] };
      assert.equal((await h.post('/v0/collections/people/items/search', { filter })).status, 200);
    });

    it('limit=Infinity, -Infinity, NaN and 1e999 — and, bug: 0x5, +5, 1e1 and " 5", which read as numbers — are a 400 naming limit on every list and search', async () => {
      const doc = (await h.get('/openapi.json', { key: null })).body;
      const lists = Object.entries(doc.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>)
        .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })))
        .filter(({ op }) => op.parameters?.some((p) => p.in === 'query' && p.name === 'limit'));
      assert.ok(lists.length >= 10, `found only ${lists.length} operations with a limit`);
      for (const { path, method } of lists) {
        const url = path.replace('{collection_id}', 'people').replace(/\{[^}]+\}/g, 'x');
        for (const limit of ['Infinity', '-Infinity', 'NaN', '1e999', '0x5', '%2B5', '1e1', '%205', '5.0']) {
          const res = await h.request(method.toUpperCase(), `${url}?limit=${limit}`, method === 'post' ? { body: {} } : {});
          expectError(res, 400, { parameter: 'limit' });
        }
      }
      assert.equal((await h.get('/v0/collections/people/items?limit=05')).status, 200);
    });

    it('more sort keys than the limit are refused before any query runs', async () => {
      const nine = Array.from({ length: 9 }, () => 'sort[]=name').join('&');
      expectError(await h.get(`/v0/collections/people/items?${nine}`), 400, { parameter: 'sort' });
      const res = await h.post('/v0/collections/people/items/search', { sort: Array(9).fill('name') });
      expectError(res, 422, { pointer: '/sort' });
      assert.equal((await h.get(`/v0/collections/people/items?${Array(8).fill('sort[]=-name').join('&')}`)).status, 200);
    });

    it('filters are bounded: a long contains value, too many conditions, too deep', async () => {
      const search = (filter: unknown) => h.post('/v0/collections/people/items/search', { filter });
      expectError(await search({ field: 'name', op: 'contains', value: 'a%_'.repeat(17_000) }), 422, { pointer: '/filter/value' });
      expectError(await search({ field: 'name', op: 'eq', value: 'x'.repeat(70_000) }), 422, { pointer: '/filter/value' });
      const wide = { op: 'or', filters: Array.from({ length: 80 }, () => ({ field: 'name', op: 'eq', value: 'x' })) };
      const res = await search(wide);
      assert.equal(res.status, 422, res.text);
      assert.match(errorOf(res).source!.pointer!, /^\/filter\/filters\/\d+$/);
      let deep: unknown = { field: 'name', op: 'eq', value: 'x' };
      for (let i = 0; i < 40; i++) deep = { op: 'not', filter: deep };
      assert.equal((await search(deep)).status, 422);
      assert.equal((await search({ field: 'name', op: 'contains', value: 'a'.repeat(256) })).status, 200);
    });

    it('a filter holds at most 4 contains/not_contains conditions, which no index answers (was: 63 of them held the database for seconds)', async () => {
      const search = (filter: unknown) => h.post('/v0/collections/people/items/search', { filter });
      const substrings = (n: number) => Array.from({ length: n }, (_, i) => ({ field: 'name', op: i % 2 ? 'not_contains' : 'contains', value: 'x'.repeat(200 + i) }));
      assert.equal((await search({ op: 'or', filters: substrings(4) })).status, 200);
      const wide = await search({ op: 'or', filters: [{ field: 'name', op: 'eq', value: 'x' }, ...substrings(63)] });
      expectError(wide, 422, { pointer: '/filter/filters/5/op' });
      assert.match(errorOf(wide).detail!, /at most 4 contains\/not_contains conditions/);
      // Counted across the whole filter, however nested.
      const nested = { op: 'and', filters: [{ op: 'or', filters: substrings(3) }, { op: 'not', filter: { op: 'or', filters: substrings(2) } }] };
      expectError(await search(nested), 422, { pointer: '/filter/filters/1/filter/filters/1/op' });
    });

    it('a filter value of the wrong kind is a 422 at the value; one that says the same in another JSON type is taken', async () => {
      const search = (filter: unknown) => h.post('/v0/collections/projects/items/search', { filter });
      expectError(await search({ field: 'name', op: 'eq', value: true }), 422, { pointer: '/filter/value' });
      expectError(await search({ field: 'score', op: 'eq', value: 'seven' }), 422, { pointer: '/filter/value' });
      expectError(await search({ field: 'score', op: 'eq', value: '7 apples' }), 422, { pointer: '/filter/value' });
      expectError(await search({ field: 'score', op: 'eq', value: true }), 422, { pointer: '/filter/value' });
      assert.equal((await search({ field: 'name', op: 'gt', value: 3 })).status, 200, 'a number for text is its text');
      assert.equal((await search({ field: 'score', op: 'eq', value: '7' })).status, 200, 'a number as text (seed §4.4: values are strings)');
      expectError(await search({ op: 'and', filters: [{ field: 'priority', op: 'eq', value: 1 }] }), 422, { pointer: '/filter/filters/0/value' });
      assert.equal((await search({ field: 'score', op: 'eq', value: 7 })).status, 200);
    });

    it('a query-string array longer than 100 values, or indexed past them, is a 400 naming it and its limit (not "must be an array")', async () => {
      const many = Array.from({ length: 101 }, () => 'sort[]=name').join('&');
      for (const query of [many, 'sort[150]=name']) {
        const res = await h.get(`/v0/collections/people/items?${query}`);
        expectError(res, 400, { parameter: 'sort[]' });
        assert.match(errorOf(res as never).detail ?? '', /^sort\[\] takes at most 100 values/);
      }
      assert.equal((await h.get(`/v0/collections/people/items?${Array.from({ length: 3 }, () => 'sort[]=name').join('&')}`)).status, 200);
    });

    it('a number literal too large for a double (1e400) is a 422 at the value that says so, not "got null"', async () => {
      for (const literal of ['1e400', '-1e400']) {
        const payload = `{"values":{"score":{"type":"value/number/unitless_integer","data":${literal}}}}`;
        const res = await h.request('POST', '/v0/collections/projects/items', { payload, headers: { 'content-type': 'application/json' } });
        expectError(res, 422, { pointer: '/values/score' });
        assert.match(errorOf(res as never).detail ?? '', /got a number too large to represent/);
      }
    });

    it('U+0000 is refused alike on every engine: 422 in bodies, 400 in queries, 404 in path ids', async () => {
      const before = await itemCount();
      expectError(await h.post('/v0/collections/people/items', { values: { name: text('a\u0000b') } }), 422, { pointer: '/values/name/data' });
      expectError(await h.post('/v0/collections/projects/items/upsert', { identifiers: { code: { type: 'value/identifier', data: '\u0000' } }, values: {} }), 422, {
        pointer: '/identifiers/code/data',
      });
      expectError(await h.post('/v0/collections/people/items', { values: { ['na\u0000me']: text('x') } }), 422, { pointer: '/values/na\u0000me' });
      expectError(await h.post('/v0/notes', { body: 'hi\u0000' }), 422, { pointer: '/body' });
      expectError(await h.post('/v0/collections', { name: 'N\u0000' }), 422, { pointer: '/name' });
      expectError(await h.post('/v0/tagsets', { name: 'T\u0000', tags: [] }), 422, { pointer: '/name' });
      expectError(
        await h.post('/v0/collections/people/items/search', { filter: { field: 'name', op: 'eq', value: '\u0000' } }),
        422,
        { pointer: '/filter/value' },
      );
      expectError(await h.get('/v0/activities?type[eq]=%00'), 400, { parameter: 'type[eq]' });
      // A parameter without a name reaches no route (ignored, as on lists); a NUL in a name is named as such.
      assert.equal((await h.request('PUT', '/v0/files/nope?=a%00b')).status, 404);
      const inName = await h.get('/v0/activities?ty%00pe=x');
      expectError(inName, 400, { parameter: 'ty\u0000pe' });
      assert.match(errorOf(inName as never).detail ?? '', /^a query parameter's name must not contain the NUL character/);
      assert.equal((await h.get('/v0/collections/people/items/%00')).status, 404);
      assert.equal((await h.get('/v0/collections/peo%00ple')).status, 404);
      assert.equal((await h.request('DELETE', '/v0/notes/%00')).status, 404);
      assert.equal(await itemCount(), before);
    });

    it('an unpaired surrogate (JSON escape "\\ud800" alone) is refused alike on every engine; a whole pair is stored as sent', async () => {
      const before = await itemCount();
      const unpaired = (res: Awaited<ReturnType<typeof h.post>>, pointer: string) => {
        expectError(res, 422, { pointer });
        assert.match(errorOf(res as never).detail ?? '', /unpaired surrogate/);
      };
      unpaired(await h.post('/v0/collections/people/items', { values: { name: text('a\ud800b') } }), '/values/name/data');
      unpaired(await h.post('/v0/collections/people/items', { values: { name: text('\udc00') } }), '/values/name/data');
      unpaired(await h.post('/v0/collections/people/items', { values: { ['na\ud83dme']: text('x') } }), '/values/na\ud83dme');
      unpaired(await h.post('/v0/collections', { name: 'N\ud800' }), '/name');
      unpaired(await h.post('/v0/collections/people/items/search', { filter: { field: 'name', op: 'eq', value: '\ude00' } }), '/filter/value');
      assert.equal(await itemCount(), before);
      const created = await h.post('/v0/collections/people/items', { values: { name: text('rocket \ud83d\ude80') } });
      assert.equal(created.status, 201, created.text);
      const read = await h.get(`/v0/collections/people/items/${created.body.id}`);
      assert.equal(read.body.values.name.data, 'rocket 🚀');
    });

    it('more than 1,000 query parameters → 400 naming the first one over, not a list with its filter cut off', async () => {
      const padding = Array.from({ length: 1000 }, (_, i) => `z${i}=1`).join('&');
      const res = await h.get(`/v0/activities?${padding}&type[eq]=activity/item_created`);
      expectError(res, 400, { parameter: 'type[eq]' });
      assert.equal(errorOf(res).code, 'invalid_parameter');
      assert.match(errorOf(res).detail!, /at most 1000 parameters/);
      // 1,000 are still read (the unknown ones then answer as unknown parameters do).
      assert.notEqual((await h.get(`/v0/activities?${Array.from({ length: 999 }, (_, i) => `limit=${i % 2 === 0 ? 1 : 2}`).join('&')}&type[eq]=x`)).status, 500);
    });

    it('a multipart body to an operation that reads JSON → 415, as any other non-JSON body (was: 400 "must be a JSON object")', async () => {
      const before = await itemCount();
      const res = await postMultipart(h, '/v0/collections/projects/items', [{ name: 'values', value: '{}' }]);
      assert.equal(res.status, 415, res.text);
      assert.equal(errorOf(res).code, 'unsupported_media_type');
      assert.equal((await postMultipart(h, '/v0/collections', [{ name: 'name', value: 'X' }])).status, 415);
      assert.equal(await itemCount(), before);
    });

    it('a body with a Content-Encoding (gzip, br) → 415 naming it, nothing written; identity is plain', async () => {
      const before = await itemCount();
      for (const coding of ['gzip', 'br', 'gzip, identity']) {
        const res = await h.post('/v0/collections/projects/items', { values: {} }, { headers: { 'content-encoding': coding } });
        assert.equal(res.status, 415, res.text);
        assert.match(errorOf(res).detail!, /Content-Encoding/);
      }
      assert.equal(await itemCount(), before);
      assert.equal((await h.post('/v0/collections/projects/items', { values: {} }, { headers: { 'content-encoding': 'identity' } })).status, 201);
    });

    it('a JSON key "__proto__" (or a "constructor" holding "prototype") → 400 invalid_body, nothing written (was: dropped silently)', async () => {
      const before = await itemCount();
      for (const payload of ['{"values":{"__proto__":{"code":{"type":"value/identifier","data":"c1"}}}}', '{"values":{},"constructor":{"prototype":{"x":1}}}']) {
        const res = await h.post('/v0/collections/projects/items', undefined, { payload, headers: { 'content-type': 'application/json' } });
        assert.equal(res.status, 400, res.text);
        assert.equal(errorOf(res).code, 'invalid_body');
        assert.match(errorOf(res).detail!, /__proto__/);
      }
      assert.equal(await itemCount(), before);
      // A field ref that merely looks like a prototype property is an unknown field like any other.
      expectError(await h.post('/v0/collections/projects/items', { values: { constructor: { type: 'value/number/unitless_integer', data: 1 } } }), 422, { pointer: '/values/constructor' });
    });

    it('U+0000 in a multipart upload (filename, Content-Type, form fields) is a 422 and stores no file', async () => {
      const files = async () => (await h.get('/v0/files?limit=100')).body.data.length;
      const before = await files();
      const file = { name: 'file', filename: 'a.txt', content: 'hello' };
      expectError(await postMultipart(h, '/v0/files', [{ ...file, filename: 'a\u0000.txt' }]), 422, { pointer: '/file' });
      expectError(await postMultipart(h, '/v0/files', [{ ...file, contentType: 'text/pl\u0000ain' }]), 422, { pointer: '/file' });
      expectError(await postMultipart(h, '/v0/files', [file, { name: 'name', value: 'n\u0000' }]), 422, { pointer: '/name' });
      expectError(await postMultipart(h, '/v0/files', [file, { name: 'associations[][id]', value: 'x\u0000' }]), 422, { pointer: '/associations[][id]' });
      assert.equal(await files(), before);
    });

    it('a file part without a filename is stored under a default name (was a 500)', async () => {
      const payload = '--XB\r\nContent-Disposition: form-data; name="file"\r\nContent-Type: application/octet-stream\r\n\r\nx\r\n--XB--\r\n';
      const res = await h.request('POST', '/v0/files', { payload, headers: { 'content-type': 'multipart/form-data; boundary=XB' } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.filename, 'upload');
    });

    it('texts longer than an index key keep exact equality and prefix search (2,001-line text, 8 kB URL, 667 €)', async () => {
      const body = 'line\n'.repeat(2001);
      const link = `https://example.com/${'p'.repeat(8000)}`;
      const euros = '€'.repeat(667);
      const cases = [
        { field: 'body', value: { type: 'value/text/multi_line', data: body }, eq: body },
        { field: 'link', value: { type: 'value/uri/url', data: link }, eq: link },
        { field: 'name', value: text(euros), eq: euros },
        { field: 'code', value: { type: 'value/identifier', data: `K${'é'.repeat(254)}` }, eq: `K${'é'.repeat(254)}` },
      ];
      for (const c of cases) {
        const created = await h.post('/v0/collections/projects/items', { values: { [c.field]: c.value } });
        assert.equal(created.status, 201, created.text);
        const search = (op: string, value: string) =>
          h.post('/v0/collections/projects/items/search', { filter: { field: c.field, op, value } });
        const ids = (res: { body: any }) => res.body.data.map((r: { data: { id: string } }) => r.data.id);
        assert.deepEqual(ids(await search('eq', c.eq.slice(0, c.eq.length / 2))), [], `${c.field}: a prefix is not equal`);
        assert.ok(ids(await search('starts_with', c.eq.slice(0, Math.min(1000, c.eq.length - 1)))).includes(created.body.id), `${c.field} starts_with`);
        assert.ok(ids(await search('ends_with', c.eq.slice(-Math.min(500, c.eq.length - 1)))).includes(created.body.id), `${c.field} ends_with`);
      }
      // Equality on the whole text goes through the key's digest: a unique identifier refuses the same long value.
      const again = await h.post('/v0/collections/projects/items', { values: { code: { type: 'value/identifier', data: `K${'é'.repeat(254)}` } } });
      expectError(again, 422, { pointer: '/values/code' });
    });
  });
}
