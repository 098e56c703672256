// Operations: one structured access-log line per request (request id, organization, route, status, latency)
// and Prometheus metrics at /metrics — requests by route and status, a latency histogram, and the database
// pool's usage; and the webhook deliveries: attempts by outcome, their latency, and the queue depth.
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Store } from '../../domain/ports/store.ts';
import type { DeliveryObserver } from '../../domain/webhook-delivery.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Feeds the webhook delivery metrics; the delivery worker reports each attempt to it. */
    deliveryObserver: DeliveryObserver;
  }
}

export function registerObservability(app: FastifyInstance, store: Store): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tycho_' });
  const requests = new Counter({
    name: 'tycho_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'tycho_http_request_duration_seconds',
    help: 'HTTP request latency by method and route',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  new Gauge({
    name: 'tycho_db_pool_connections',
    help: 'Database pool connections by state (PostgreSQL; SQLite has one connection)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = store.poolStats();
      for (const [state, value] of Object.entries(stats)) this.set({ state }, value);
    },
  });

  // The store counts; the counter catches up with it when scraped.
  const retriesSeen = new Map<string, number>();
  new Counter({
    name: 'tycho_db_transaction_retries_total',
    help: 'Write transactions run again after a transient failure, by SQLSTATE (PostgreSQL: 40P01 deadlock, 40001 serialization failure, 23503 a referenced row deleted meanwhile)',
    labelNames: ['sqlstate'],
    registers: [registry],
    collect() {
      for (const [sqlstate, count] of Object.entries(store.transactionRetries())) {
        this.inc({ sqlstate }, count - (retriesSeen.get(sqlstate) ?? 0));
        retriesSeen.set(sqlstate, count);
      }
    },
  });

  const deliveries = new Counter({
    name: 'tycho_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retrying: failed with a retry scheduled, failed: no retry left)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const attemptLatency = new Histogram({
    name: 'tycho_webhook_attempt_duration_seconds',
    help: 'Webhook delivery attempt latency, until the answer or the failure',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  new Gauge({
    name: 'tycho_webhook_queue_depth',
    help: 'Webhook deliveries pending (due now or waiting for a retry), in every organization',
    registers: [registry],
    async collect() {
      this.set(await store.webhookDeliveries.pendingCount());
    },
  });
  app.decorate('deliveryObserver', {
    attempted(outcome, seconds) {
      deliveries.inc({ outcome });
      attemptLatency.observe(seconds);
    },
  } satisfies DeliveryObserver);

  app.addHook('onResponse', async (request, reply) => {
    // Unknown URLs share one label, so scanners cannot grow the series without bound.
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    latency.observe({ method: request.method, route }, seconds);
    request.log.info(
      {
        method: request.method,
        route,
        url: request.url,
        status: reply.statusCode,
        org: request.principal?.orgId,
        latencyMs: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    );
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
}
