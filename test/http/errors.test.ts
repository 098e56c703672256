import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness, type Response } from '../helpers/harness.ts';

const JSON_TYPE = /^application\/json\b/;
const ERROR_MEMBERS = new Set(['type', 'status', 'title', 'detail', 'code', 'source']);

/** The error envelope, with nothing but the documented members (so no stack, message or cause leaks). */
function assertCleanError(res: Response): ReturnType<typeof errorOf> {
  const error = errorOf(res);
  assert.deepEqual(Object.keys(res.body), ['type', 'errors']);
  for (const key of Object.keys(error)) assert.ok(ERROR_MEMBERS.has(key), `unexpected error member ${key}: ${res.text}`);
  assert.doesNotMatch(res.text, /\bat [^\s]+ \(|\.ts:\d+|node_modules|"stack"/, `looks like a stack trace: ${res.text}`);
  assert.match(String(res.headers['content-type']), JSON_TYPE);
  return error;
}

async function countCollections(h: Harness): Promise<number> {
  const res = await h.get('/v0/collections?limit=100');
  assert.equal(res.status, 200);
  return res.body.data.length;
}

for (const engine of ENGINES) {
  describe(`errors (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    describe('request bodies', () => {
      it('answers 400 invalid_json for malformed JSON', async () => {
        for (const payload of ['{"name":', '{name: "x"}', "{'name': 'x'}", '{"name": "x",}', 'nul']) {
          const res = await h.request('POST', '/v0/collections', { payload, headers: { 'content-type': 'application/json' } });
          assert.equal(res.status, 400, `${payload}: ${res.text}`);
          const error = assertCleanError(res);
          assert.equal(error.title, 'Bad Request');
          assert.equal(error.code, 'invalid_json');
          assert.equal(typeof error.detail, 'string');
        }
      });

      it('answers 400 invalid_json for a body that is not UTF-8, and writes nothing', async () => {
        const before = await countCollections(h);
        // Latin-1 "café", a lone continuation byte, and an overlong encoding of "/".
        for (const bytes of [[0xe9], [0x80], [0xc0, 0xaf]]) {
          const payload = Buffer.concat([Buffer.from('{"name":"caf'), Buffer.from(bytes), Buffer.from('"}')]);
          const res = await h.request('POST', '/v0/collections', { payload, headers: { 'content-type': 'application/json' } });
          assert.equal(res.status, 400, res.text);
          const error = assertCleanError(res);
          assert.equal(error.code, 'invalid_json');
          assert.match(error.detail ?? '', /UTF-8/);
        }
        assert.equal(await countCollections(h), before);
        const ok = await h.request('POST', '/v0/collections', { payload: Buffer.from('{"name":"Café ☕"}'), headers: { 'content-type': 'application/json' } });
        assert.equal(ok.status, 201, ok.text);
        assert.equal(ok.body.name, 'Café ☕');
      });

      for (const [label, body] of [
        ['an array', [{ name: 'x' }]],
        ['a string', 'Leads'],
        ['a number', 42],
        ['null', null],
      ] as const) {
        it(`answers 400 invalid_body for ${label} instead of an object`, async () => {
          const res = await h.post('/v0/collections', body);
          assert.equal(res.status, 400, res.text);
          const error = assertCleanError(res);
          assert.equal(error.code, 'invalid_body');
          assert.equal(error.source?.pointer, undefined);
        });
      }

      it('answers 400 when the body is missing, with or without a JSON content type', async () => {
        for (const headers of [{ 'content-type': 'application/json' }, {}] as Record<string, string>[]) {
          const res = await h.request('POST', '/v0/collections', { headers });
          assert.equal(res.status, 400, res.text);
          assert.equal(assertCleanError(res).code, 'invalid_body');
        }
        const whitespace = await h.request('POST', '/v0/collections', { payload: '  \n', headers: { 'content-type': 'application/json' } });
        assert.equal(whitespace.status, 400);
      });

      it('accepts application/json with a charset parameter', async () => {
        const res = await h.request('POST', '/v0/collections', {
          payload: JSON.stringify({ name: 'Charset Ok' }),
          headers: { 'content-type': 'application/json; charset=utf-8' },
        });
        assert.equal(res.status, 201, res.text);
      });

      it('answers 415 for a media type other than JSON, and creates nothing', async () => {
        const count = await countCollections(h);
        const res = await h.request('POST', '/v0/collections', { payload: '<name>x</name>', headers: { 'content-type': 'application/xml' } });
        assert.equal(res.status, 415, res.text);
        const error = assertCleanError(res);
        assert.equal(error.title, 'Unsupported Media Type');
        assert.equal(error.code, 'unsupported_media_type');
        assert.equal(await countCollections(h), count);
      });

      it(
        'answers 415 for a text/plain body',
        async () => {
          const count = await countCollections(h);
          const res = await h.request('POST', '/v0/collections', { payload: 'name=Leads', headers: { 'content-type': 'text/plain' } });
          assert.equal(res.status, 415, res.text);
          assert.equal(assertCleanError(res).code, 'unsupported_media_type');
          assert.equal(await countCollections(h), count);
        },
      );

      it('answers 422 with a pointer and a detail naming the property when name is not a string', async () => {
        const res = await h.post('/v0/collections', { name: 123 });
        assert.equal(res.status, 422, res.text);
        const error = assertCleanError(res);
        assert.equal(error.title, 'Unprocessable Entity');
        assert.equal(error.source?.pointer, '/name');
        assert.match(error.detail ?? '', /\bname\b/);
      });

      it('answers 422 with pointer /name when name is missing', async () => {
        const res = await h.post('/v0/collections', { description: 'no name' });
        assert.equal(res.status, 422, res.text);
        const error = assertCleanError(res);
        assert.equal(error.source?.pointer, '/name');
        assert.match(error.detail ?? '', /\bname\b/);
      });

      it('says what a missing property must be: its type, or its choices', async () => {
        // Regression: the detail was only "<property> is required", without the accepted shape.
        const cases: [string, Record<string, unknown>, string][] = [
          ['/v0/collections', {}, 'name is required; it must be a string'],
          ['/v0/program_messages', { program_template_id: 'x' }, 'person is required; it must be a JSON object'],
          ['/v0/calls', { participants: [] }, 'direction is required; it must be one of: incoming, outgoing'],
        ];
        for (const [url, payload, detail] of cases) {
          const res = await h.post(url, payload);
          assert.equal(res.status, 422, res.text);
          assert.equal(errorOf(res).detail, detail);
        }
      });

      it('answers 422 with the pointer of the offending optional property', async () => {
        const res = await h.post('/v0/collections', { name: 'Ok', description: 5 });
        assert.equal(res.status, 422, res.text);
        assert.equal(assertCleanError(res).source?.pointer, '/description');
      });
    });

    describe('routes and envelopes', () => {
      it('answers an unknown route with the 404 envelope', async () => {
        for (const [method, url] of [['GET', '/v0/nope'], ['POST', '/v0/nope'], ['DELETE', '/v0/collections'], ['GET', '/nope']]) {
          const res = await h.request(method!, url!, method === 'POST' ? { body: {} } : {});
          assert.equal(res.status, 404, `${method} ${url}: ${res.text}`);
          const error = assertCleanError(res);
          assert.equal(error.title, 'Not Found');
        }
      });

      it('carries x-request-id and a JSON content type on 200, 401, 404 and 422 responses', async () => {
        const responses: Response[] = [
          await h.get('/v0/collections'),
          await h.get('/v0/collections', { key: null }),
          await h.get('/v0/collections/missing_one'),
          await h.post('/v0/collections', { name: 123 }),
        ];
        assert.deepEqual(responses.map((r) => r.status), [200, 401, 404, 422]);
        const ids = new Set<string>();
        for (const res of responses) {
          const id = res.headers['x-request-id'];
          assert.equal(typeof id, 'string', `status ${res.status} has no x-request-id`);
          assert.ok((id as string).length > 0);
          ids.add(id as string);
          assert.match(String(res.headers['content-type']), JSON_TYPE);
        }
        assert.equal(ids.size, responses.length, 'every request gets its own id');
      });

      it('echoes a well-formed incoming x-request-id', async () => {
        for (const incoming of ['abc-123', 'trace:4bf92f3577b34da6a3ce929d0e0e4736', 'a'.repeat(200)]) {
          const ok = await h.get('/v0/collections', { headers: { 'x-request-id': incoming } });
          assert.equal(ok.headers['x-request-id'], incoming);
          const failed = await h.get('/v0/nope', { headers: { 'x-request-id': incoming } });
          assert.equal(failed.headers['x-request-id'], incoming);
        }
      });

      it('replaces a malformed incoming x-request-id with a fresh one', async () => {
        for (const incoming of ['has spaces in it', 'a'.repeat(300), '<script>', 'semi;colon', 'quote"d']) {
          const res = await h.get('/v0/collections', { headers: { 'x-request-id': incoming } });
          assert.equal(res.status, 200);
          const id = res.headers['x-request-id'];
          assert.equal(typeof id, 'string');
          assert.notEqual(id, incoming);
          assert.match(id as string, /^[A-Za-z0-9._:@/+=-]{1,200}$/);
        }
      });

      it('never puts a stack trace or internals into an error body', async () => {
        const responses = [
          await h.request('POST', '/v0/collections', { payload: '{"name":', headers: { 'content-type': 'application/json' } }),
          await h.post('/v0/collections', [1, 2]),
          await h.post('/v0/collections', { name: 123 }),
          await h.get('/v0/collections?limit=abc'),
          await h.get('/v0/collections?after=forged.cursor'),
          await h.get('/v0/collections', { key: 'nope-nope-nope-nope' }),
          await h.get('/v0/collections/unknown'),
          await h.get('/v0/unknown'),
          await h.request('GET', '/v0/%E0%A4%A'),
        ];
        for (const res of responses) {
          assert.ok(res.status >= 400, res.text);
          assertCleanError(res);
        }
      });
    });

    describe('body size limit', () => {
      let small: Harness;
      before(async () => {
        small = await createHarness(engine, { env: { TYCHO_BODY_LIMIT: '2048' } });
      });
      after(() => small.close());

      it('answers 413 for a body over TYCHO_BODY_LIMIT, and creates nothing', async () => {
        const count = await countCollections(small);
        const res = await small.post('/v0/collections', { name: 'Too Big', description: 'x'.repeat(3000) });
        assert.equal(res.status, 413, res.text);
        const error = assertCleanError(res);
        assert.equal(error.title, 'Payload Too Large');
        assert.equal(await countCollections(small), count);
        assert.equal((await small.get('/v0/collections/too_big')).status, 404);
      });

      it('still accepts a body under the limit', async () => {
        const res = await small.post('/v0/collections', { name: 'Small Enough', description: 'x'.repeat(1500) });
        assert.equal(res.status, 201, res.text);
      });

      it('uses the configured limit, not the 1 MiB default', async () => {
        // The same body is fine for the default harness.
        const res = await h.post('/v0/collections', { name: 'Default Limit', description: 'x'.repeat(3000) });
        assert.equal(res.status, 201, res.text);
      });
    });

    describe('unexpected failures', () => {
      it('answers 500 Internal Server Error without detail, hiding the message', async () => {
        const collections = h.store.collections as { list: (...args: any[]) => Promise<unknown> };
        const original = collections.list;
        collections.list = async () => {
          throw new Error('boom');
        };
        try {
          const res = await h.get('/v0/collections');
          assert.equal(res.status, 500, res.text);
          const error = assertCleanError(res);
          assert.equal(error.title, 'Internal Server Error');
          assert.equal(error.detail, undefined);
          assert.equal(error.code, undefined);
          assert.ok(!res.text.includes('boom'), res.text);
          assert.equal(typeof res.headers['x-request-id'], 'string');
        } finally {
          collections.list = original;
        }
        assert.equal((await h.get('/v0/collections')).status, 200);
      });
    });
  });
}
