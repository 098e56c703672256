// Every request runs in a time context (domain/clock.ts); after authentication it names the caller's
// organization and, when that organization's clock is controlled, its clock. Entered with `run` around the
// rest of the hook chain, and again before the handler, because a request body's stream events arrive
// outside the context the request started in.
import type { FastifyInstance } from 'fastify';
import { runInTimeContext, type Clock, type TimeContext } from '../../domain/clock.ts';
import { cachedClockReader } from '../../domain/org-clock.ts';
import type { Store } from '../../domain/ports/store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    timeContext: TimeContext;
  }
}

export function registerTimeContext(app: FastifyInstance): void {
  app.decorateRequest('timeContext', null as unknown as TimeContext);
  app.addHook('onRequest', (request, _reply, done) => {
    request.timeContext = {};
    runInTimeContext(request.timeContext, done);
  });
  app.addHook('preHandler', (request, _reply, done) => {
    runInTimeContext(request.timeContext, done);
  });
}

/** On an authenticated scope, after authentication: the organization's clock (remembered while no clock changes). */
export function registerOrgClock(app: FastifyInstance, store: Store, base: Clock): void {
  const controlledClock = cachedClockReader(store, base);
  app.addHook('onRequest', async (request) => {
    const orgId = request.principal.orgId;
    request.timeContext.orgId = orgId;
    const clock = await controlledClock(orgId);
    if (clock) request.timeContext.clock = clock;
  });
}
