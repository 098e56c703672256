import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ENGINES, createHarness, type Harness } from '../helpers/harness.ts';

/** Routes that are not API operations: the document itself, the docs page, the console, metrics, the index. */
const NOT_OPERATIONS = [/^\/$/, /^\/openapi\.json$/, /^\/metrics$/, /^\/docs\b/, /^\/console\b/];

/** Every `METHOD /path` Fastify has registered (parameters as `{}`), read from printRoutes' tree. */
function registeredRoutes(tree: string): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ├└─]*)(\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!match) continue;
    stack.length = match[1]!.length / 4;
    stack.push(match[2]!);
    const path = stack.join('').replace(/:[^/]+/g, '{}');
    for (const method of match[3]?.split(', ') ?? []) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${path}`);
  }
  return routes;
}

for (const engine of ENGINES) {
  describe(`OpenAPI document (${engine})`, () => {
    let h: Harness;
    let document: any;
    const operations: { name: string; path: string; method: string; op: any }[] = [];
    before(async () => {
      h = await createHarness(engine);
      document = (await h.get('/openapi.json', { key: null })).body;
      for (const [path, item] of Object.entries<any>(document.paths)) {
        for (const [method, op] of Object.entries<any>(item)) operations.push({ name: `${method.toUpperCase()} ${path}`, path, method, op });
      }
    });
    after(() => h.close());

    it('is served without auth as OpenAPI 3.1 and describes the routes from their schemas', async () => {
      assert.equal(document.openapi, '3.1.0');
      const paths = document.paths;
      for (const path of ['/v0/collections', '/v0/collections/{collection_id}/fields', '/v0/collections/{collection_id}/items/search', '/v0/funnels']) {
        assert.ok(paths[path], `${path} is documented`);
      }
      const create = paths['/v0/collections'].post;
      assert.deepEqual(create.requestBody.content['application/json'].schema.required, ['name']);
      assert.ok(create.responses['201']);
    });

    it('lists every registered route, each with a summary, description, tags, operation id and a success answer', () => {
      const documented = new Set(operations.map((o) => `${o.method.toUpperCase()} ${o.path.replace(/\{[^}]+\}/g, '{}')}`));
      const routes = registeredRoutes(h.app.printRoutes({ commonPrefix: false }));
      assert.ok(routes.includes('GET /v0/collections/{}/items/{}') && routes.includes('GET /healthz'), routes.join('\n'));
      assert.ok(routes.length > 50, `read ${routes.length} routes from printRoutes`);
      for (const route of routes) {
        if (NOT_OPERATIONS.some((pattern) => pattern.test(route.split(' ')[1]!))) continue;
        assert.ok(documented.has(route), `${route} appears in /openapi.json`);
      }
      const ids = new Set<string>();
      for (const { name, path, op } of operations) {
        assert.ok(op.summary, `${name} has a summary`);
        assert.ok(op.description, `${name} has a description`);
        assert.ok(op.tags?.length === 1, `${name} has a tag`);
        assert.equal(op.tags[0] === 'Tycho extensions', /^\/(v0\/)?tycho\//.test(path), `${name}: extensions, and only they, are tagged "Tycho extensions"`);
        assert.ok(op.operationId && !ids.has(op.operationId), `${name} has a unique operation id`);
        ids.add(op.operationId);
        assert.ok(Object.keys(op.responses).some((s) => /^2\d\d$/.test(s)), `${name} documents its success`);
      }
    });

    it('documents every 4xx/5xx with the errors envelope and every 204 without a body', () => {
      const responses = document.components.responses;
      for (const { name, path, op } of operations) {
        for (const [status, response] of Object.entries<any>(op.responses)) {
          if (status === '204') assert.equal(response.content, undefined, `${name}: 204 has no body`);
          if (Number(status) < 400) continue;
          const resolved = response.$ref ? responses[response.$ref.split('/').pop()] : response;
          assert.equal(resolved.content['application/json'].schema.$ref, '#/components/schemas/Errors', `${name} ${status}`);
          assert.equal(resolved.content['application/json'].example.errors[0].status, status, `${name} ${status} example`);
        }
        for (const status of ['400', '500', '503']) assert.ok(op.responses[status], `${name} documents ${status}`);
        if (path.startsWith('/v0/')) assert.ok(op.responses['401'] && op.responses['429'], `${name} documents 401 and 429`);
        else assert.deepEqual(op.security, [], `${name} needs no credentials`);
        if (op.parameters?.some((p: any) => p.in === 'path')) assert.ok(op.responses['404'], `${name} documents 404`);
        if (op.requestBody) assert.ok(op.responses['422'] && op.responses['415'], `${name} documents 415 and 422`);
      }
      assert.equal(document.paths['/v0/notes/{id}'].delete.responses['204'].description, 'No Content');
      assert.equal(document.paths['/v0/notes/{id}'].get.responses['403'], undefined, 'reads are never forbidden');
      assert.ok(document.paths['/v0/notes/{id}'].patch.responses['403'], 'writes may be forbidden to read-only keys');
      assert.equal(document.paths['/v0/collections/{collection_id}/items/search'].post.responses['403'], undefined, 'search reads');
    });

    it('shows a request example for every body and a response example for every success answer with a body', () => {
      // On the media object, or (OpenAPI 3.1) as the schema's own `examples` where the generator leaves them.
      const hasExample = (media: any) => media.example !== undefined || Object.keys(media.examples ?? {}).length > 0 || media.schema?.examples?.length > 0;
      const missing: string[] = [];
      for (const { name, op } of operations) {
        for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) if (!hasExample(media)) missing.push(`${name} request ${type}`);
        for (const [status, response] of Object.entries<any>(op.responses)) {
          if (!/^2\d\d$/.test(status)) continue;
          for (const [type, media] of Object.entries<any>(response.content ?? {})) if (!hasExample(media)) missing.push(`${name} ${status} ${type}`);
        }
      }
      assert.deepEqual(missing, []);
    });

    it('request examples are accepted as written (was: a tagset example and a meeting recording the API refuses)', async () => {
      const example = (path: string, method: string) => {
        const media = document.paths[path][method].requestBody.content['application/json'];
        return media.example ?? media.schema.examples[0];
      };
      const tagset = await h.post('/v0/tagsets', example('/v0/tagsets', 'post'));
      assert.equal(tagset.status, 201, tagset.text);
      const meeting = await h.post('/v0/tycho/meetings', { i_cal_uid: `example-${engine}`, start_at: '2030-03-10T09:00:00Z', end_at: '2030-03-10T10:00:00Z', time_zone: 'UTC' });
      assert.equal(meeting.status, 201, meeting.text);
      const patched = await h.patch(`/v0/meetings/${meeting.body.id}`, example('/v0/meetings/{id}', 'patch'));
      assert.equal(patched.status, 200, patched.text);
    });

    it('names every value an operation takes in include[] in its description', () => {
      // Regression: calls and meetings promised participants, recordings and tags, which include[] refuses.
      const unnamed: string[] = [];
      for (const { name, op } of operations) {
        const include = (op.parameters ?? []).find((p: any) => p.in === 'query' && p.name === 'include');
        for (const value of include?.schema?.items?.enum ?? []) {
          // As a word of its own: `messages` is not named by `messages.addresses`.
          const named = new RegExp(`(?<![\\w.])${value.replace('.', '\\.')}(?!\\w|\\.\\w)`);
          if (!named.test(op.description)) unnamed.push(`${name} ${value}`);
        }
      }
      assert.deepEqual(unnamed, []);
    });

    it('shows item values as the discriminated union of the 20 value types, and the filter language', () => {
      const { schemas } = document.components;
      const value = schemas.Value;
      assert.equal(value.oneOf.length, 20);
      assert.equal(value.discriminator.propertyName, 'type');
      assert.equal(value.discriminator.mapping['value/funnel_step'], '#/components/schemas/FunnelStepValue');
      assert.deepEqual(schemas.NumberMonetaryValue.properties.data.required, ['in_minor_units']);
      const item = document.paths['/v0/collections/{collection_id}/items/{id}'];
      const values = item.get.responses['200'].content['application/json'].schema.properties.values;
      assert.deepEqual(values.additionalProperties.anyOf[0], { $ref: '#/components/schemas/Value' });
      assert.ok(values.examples[0].name.type.startsWith('value/'), 'an example value map');
      const body = item.patch.requestBody.content['application/json'].schema.properties.values;
      assert.ok(body.additionalProperties.anyOf.some((s: any) => s.type === 'null'), 'null clears a value');
      assert.deepEqual(item.patch.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name).sort(), ['update-many-strategy', 'update-one-strategy']);
      const search = document.paths['/v0/collections/{collection_id}/items/search'].post;
      assert.equal(search.requestBody.content['application/json'].schema.properties.filter.$ref, '#/components/schemas/Filter');
      assert.equal(schemas.Filter.discriminator.propertyName, 'op');
      assert.ok(JSON.stringify(document).includes('x-tycho-doc-only') === false, 'no markers for the compilers leak');
    });

    it('keeps validating and serialising values as before: the domain checks them, responses pass them through', async () => {
      const wrong = await h.post('/v0/collections/people/items', { values: { name: { type: 'value/number/unitless_integer', data: 1 } } });
      assert.equal(wrong.status, 422);
      assert.match(wrong.body.errors[0].detail, /send a value such as/);
      const created = await h.post('/v0/collections/people/items', { values: { name: { type: 'value/text/single_line', data: 'Ada' } } });
      assert.equal(created.status, 201);
      assert.deepEqual(created.body.values.name, { type: 'value/text/single_line', data: 'Ada' });
    });

    it('declares security schemes for API keys and JWTs', () => {
      assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['apiKey', 'jwt']);
      assert.deepEqual(document.security, [{ apiKey: [] }, { jwt: [] }]);
    });

    if (engine === 'sqlite') {
      it("passes Redocly's recommended rules with no errors and no warnings", async () => {
        const dir = mkdtempSync(join(tmpdir(), 'tycho-openapi-'));
        try {
          const file = join(dir, 'openapi.json');
          writeFileSync(file, JSON.stringify(document));
          const cli = join(import.meta.dirname, '../../node_modules/@redocly/cli/bin/cli.js');
          const run = promisify(execFile)(process.execPath, [cli, 'lint', file, '--extends', 'recommended', '--format', 'json', '--max-problems', '1000'], {
            env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
            maxBuffer: 64 * 1024 * 1024,
          });
          const { stdout } = await run.catch((error: { stdout: string }) => ({ stdout: error.stdout }));
          const problems = JSON.parse(stdout).problems as { ruleId: string; message: string; severity: string }[];
          assert.deepEqual(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`), []);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
}
