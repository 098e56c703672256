import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { TEST_KEY } from '../helpers/harness.ts';
import type { FastifyInstance } from 'fastify';

describe('logs and metrics', () => {
  let runtime: Runtime;
  let app: FastifyInstance;
  const lines: any[] = [];
  before(async () => {
    runtime = await openRuntime(loadConfig({ DATABASE_URL: ':memory:', TYCHO_API_KEY: TEST_KEY }));
    app = await buildApp({
      store: runtime.store,
      cursorSecret: runtime.cursorSecret,
      downloadSecret: runtime.downloadSecret,
      blobs: runtime.blobs,
      logLevel: 'info',
      logStream: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await runtime.store.close();
  });

  it('writes one JSON line per request with request id, organization, route, status and latency', async () => {
    const res = await app.inject({ url: '/v0/collections/people', headers: { authorization: `Bearer ${TEST_KEY}`, 'x-request-id': 'trace-42' } });
    assert.equal(res.statusCode, 200);
    const line = lines.find((l) => l.msg === 'request' && l.reqId === 'trace-42');
    assert.ok(line, JSON.stringify(lines));
    assert.equal(line.org, runtime.defaultOrg.id);
    assert.equal(line.route, '/v0/collections/:id');
    assert.equal(line.status, 200);
    assert.equal(typeof line.latencyMs, 'number');
  });

  it('serves Prometheus metrics without auth: requests by route and status, latency, pool usage', async () => {
    await app.inject({ url: '/v0/collections', headers: { authorization: `Bearer ${TEST_KEY}` } });
    await app.inject({ url: '/v0/collections' });
    const res = await app.inject({ url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /text\/plain/);
    assert.match(res.body, /tycho_http_requests_total\{method="GET",route="\/v0\/collections",status="200"\} 1/);
    assert.match(res.body, /tycho_http_requests_total\{method="GET",route="\/v0\/collections",status="401"\} 1/);
    assert.match(res.body, /tycho_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v0\/collections"\}/);
    assert.match(res.body, /tycho_db_pool_connections\{state="total"\} 1/);
  });
});
