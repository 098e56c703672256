// /v0/programs: list and retrieve (`include[]` ∈ activity_metrics, program_template); and the Tycho extension
// /v0/tycho/programs that creates and updates them (the hosted API has no such calls).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createProgram, getProgram, listPrograms, programMetrics, templatesOfPrograms, updateProgram } from '../../domain/programs.ts';
import { errorResponses, ListOf, PageQuery } from '../schemas/common.ts';
import { CreateProgramBody, PROGRAM_INCLUDES, ProgramWire, renderProgram, UpdateProgramBody } from '../schemas/programs.ts';
import { Include, includesOf } from '../list-query.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });
const TAGS = ['Programs'];
const EXTENSION = ['Tycho extensions'];

export const programRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get(
    '/programs',
    {
      schema: {
        summary: 'List programs',
        description: 'Marketing programs of the organization, oldest first.',
        tags: TAGS,
        querystring: PageQuery,
        response: { 200: ListOf(ProgramWire), ...errorResponses(400) },
      },
    },
    async (req) => listing.envelope(req, 'programs', await listPrograms(store, req.principal.orgId, listing.page(req, req.query, 'programs')), (p) => renderProgram(p)),
  );

  app.get(
    '/programs/:id',
    {
      schema: {
        summary: 'Retrieve a program',
        description: 'One program; `include[]=activity_metrics` adds the counts of its messages, `include[]=program_template` its template.',
        tags: TAGS,
        params: Params,
        querystring: Type.Object({ include: Include(PROGRAM_INCLUDES) }),
        response: { 200: ProgramWire, ...errorResponses(400, 404) },
      },
    },
    async (req) => {
      const { orgId } = req.principal;
      const include = includesOf(req.query.include) ?? new Set();
      const program = await getProgram(store, orgId, req.params.id);
      return renderProgram(program, {
        ...(include.has('activity_metrics') ? { metrics: await programMetrics(store, orgId, program.id) } : {}),
        ...(include.has('program_template') ? { template: (await templatesOfPrograms(store, orgId, [program.id])).get(program.id) } : {}),
      });
    },
  );

  app.post(
    '/tycho/programs',
    {
      schema: {
        summary: 'Create a program (Tycho extension)',
        description: 'Creates a program: `status` (default draft), `trigger` (default api), tracking flags, `scheduled_at` for broadcasts.',
        tags: EXTENSION,
        body: CreateProgramBody,
        response: { 201: ProgramWire, ...errorResponses(400, 422) },
      },
    },
    async (req, reply) => reply.code(201).send(renderProgram(await createProgram(store, req.principal.orgId, req.body, clock))),
  );

  app.patch(
    '/tycho/programs/:id',
    {
      schema: {
        summary: 'Update a program (Tycho extension)',
        description: 'Changes the given properties of a program; `null` clears display_name and scheduled_at.',
        tags: EXTENSION,
        params: Params,
        body: UpdateProgramBody,
        response: { 200: ProgramWire, ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => renderProgram(await updateProgram(store, req.principal.orgId, req.params.id, req.body, clock)),
  );
};
