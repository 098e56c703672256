// A request for an organization whose clock is controlled runs in a time context (domain/clock.ts) naming
// that clock. Entered after authentication, with `run` around the rest of the hook chain, and again before the
// handler, because a request body's stream events arrive outside the context the request started in.
//
// Requests on the real clock enter none: once entered anywhere, a context makes Node track every promise
// the process creates from then on (measured: 10–15 % of the CPU of a retrieve or a create).
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
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    if (request.timeContext.clock) runInTimeContext(request.timeContext, done);
    else done();
  });
}

/** On an authenticated scope, after authentication: the organization's clock (remembered while no clock changes). */
export function registerOrgClock(app: FastifyInstance, store: Store, base: Clock): void {
  const controlledClock = cachedClockReader(store, base);
  app.addHook('onRequest', (request, _reply, done) => {
    const context = request.timeContext;
    context.orgId = request.principal.orgId;
    controlledClock(context.orgId).then((clock) => {
      if (!clock) return done();
      context.clock = clock;
      runInTimeContext(context, done);
    }, done);
  });
}
