// Tycho extension: /v0/tycho/clock — read, freeze, set, advance, resume or release the caller's organization's
// clock. Advancing runs the work that became due (domain/due-work.ts) before answering.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../domain/clock.ts';
import { changeClock, getClock, type ClockChange } from '../../domain/org-clock.ts';
import type { DueWork } from '../../domain/due-work.ts';
import { requireToolkitAccess } from '../../domain/snapshots.ts';
import { AdvanceBody, ClockWire, FreezeBody, SetBody, advanceMilliseconds, renderClock, toolkitSchema } from '../schemas/tycho.ts';
import type { RouteDeps } from '../route-deps.ts';

export interface ClockRouteOptions extends RouteDeps {
  /** The clock organizations' clocks are offsets of (the system clock, or the tests' clock). */
  baseClock: Clock;
  /** What advancing runs before it answers. */
  dueWork: DueWork;
}

const ACCESS = 'Admin keys, and write keys of a sandbox.';

export const clockRoutes: FastifyPluginAsyncTypebox<ClockRouteOptions> = async (app, { store, baseClock, dueWork }) => {
  // The attempts an advance makes count in /metrics like the delivery thread's.
  const change = (orgId: string, what: ClockChange) => changeClock(store, orgId, what, baseClock, dueWork, app.deliveryObserver).then(renderClock);

  app.get(
    '/tycho/clock',
    { schema: toolkitSchema('Read the clock', "The organization's current time and whether it is frozen or offset.", [], { response: { 200: ClockWire } }) },
    async (req) => renderClock(await getClock(store, req.principal.orgId, baseClock)),
  );

  const preHandler = async (req: FastifyRequest) => requireToolkitAccess(store, req.principal);
  // `POST /tycho/clock/freeze` with no body at all freezes now.
  const preValidation = async (req: FastifyRequest) => {
    req.body ??= {};
  };
  app.post(
    '/tycho/clock/freeze',
    { preHandler, preValidation, schema: toolkitSchema('Freeze the clock', `${ACCESS} Stops the organization's clock at \`at\` (default: its current time).`, [422], { body: FreezeBody, response: { 200: ClockWire } }) },
    async (req) => change(req.principal.orgId, { action: 'freeze', ...(req.body.at !== undefined ? { at: req.body.at } : {}) }),
  );

  app.post(
    '/tycho/clock/set',
    {
      preHandler,
      schema: toolkitSchema('Set the clock', `${ACCESS} Sets the organization's time to \`to\`; frozen there, or running from there.`, [422], {
        body: SetBody,
        response: { 200: ClockWire },
      }),
    },
    async (req) => change(req.principal.orgId, { action: 'set', to: req.body.to, ...(req.body.frozen !== undefined ? { frozen: req.body.frozen } : {}) }),
  );

  app.post(
    '/tycho/clock/advance',
    {
      preHandler,
      schema: toolkitSchema(
        'Advance the clock',
        `${ACCESS} Moves the organization's clock forward by the sum of the given amounts, then runs what became due (meetings held, webhook retries, program messages) before answering.`,
        [422],
        { body: AdvanceBody, response: { 200: ClockWire } },
      ),
    },
    async (req) => change(req.principal.orgId, { action: 'advance', milliseconds: advanceMilliseconds(req.body ?? {}) }),
  );

  app.post(
    '/tycho/clock/resume',
    { preHandler, schema: toolkitSchema('Resume the clock', `${ACCESS} A frozen clock runs again from the time it shows.`, [], { response: { 200: ClockWire } }) },
    async (req) => change(req.principal.orgId, { action: 'resume' }),
  );

  app.delete(
    '/tycho/clock',
    { preHandler, schema: toolkitSchema('Release the clock', `${ACCESS} The organization follows the system clock again.`, [], { response: { 200: ClockWire } }) },
    async (req) => change(req.principal.orgId, { action: 'release' }),
  );
};
