// /v0/program_templates: list (newest first) and retrieve, `include[]=program`; and the Tycho extension
// /v0/tycho/program_templates that creates and updates them. Subjects and bodies are Liquid, refused with the
// parser's message when they do not parse.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createTemplate, getTemplate, listTemplates, programsByIds, updateTemplate } from '../../domain/programs.ts';
import { errorResponses, ListOf, PageQuery } from '../schemas/common.ts';
import { CreateTemplateBody, ProgramTemplateWire, renderProgramTemplate, TEMPLATE_INCLUDES, UpdateTemplateBody } from '../schemas/programs.ts';
import { Include, includesOf } from '../list-query.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });
const IncludeProgram = Type.Object({ include: Include(TEMPLATE_INCLUDES) });
const TAGS = ['Programs'];
const EXTENSION = ['Tycho extensions'];

export const programTemplateRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock }) => {
  app.get(
    '/program_templates',
    {
      schema: {
        summary: 'List program templates',
        description: 'Templates of the organization, newest first; `include[]=program` adds each one\'s program.',
        tags: TAGS,
        querystring: Type.Object({ ...PageQuery.properties, ...IncludeProgram.properties }),
        response: { 200: ListOf(ProgramTemplateWire), ...errorResponses(400) },
      },
    },
    async (req) => {
      const { include, ...pageQuery } = req.query;
      const { orgId } = req.principal;
      const page = await listTemplates(store, orgId, listing.page(req, pageQuery, 'program_templates'));
      const programs = includesOf(include) ? await programsByIds(store, orgId, page.rows.map((t) => t.programId)) : new Map();
      return listing.envelope(req, 'program_templates', page, (t) => renderProgramTemplate(t, programs.get(t.programId)));
    },
  );

  app.get(
    '/program_templates/:id',
    {
      schema: {
        summary: 'Retrieve a program template',
        description: 'One template; `include[]=program` adds its program.',
        tags: TAGS,
        params: Params,
        querystring: IncludeProgram,
        response: { 200: ProgramTemplateWire, ...errorResponses(400, 404) },
      },
    },
    async (req) => {
      const { orgId } = req.principal;
      const template = await getTemplate(store, orgId, req.params.id);
      const programs = includesOf(req.query.include) ? await programsByIds(store, orgId, [template.programId]) : new Map();
      return renderProgramTemplate(template, programs.get(template.programId));
    },
  );

  app.post(
    '/tycho/program_templates',
    {
      schema: {
        summary: 'Create a program template (Tycho extension)',
        description: 'Creates the template of a program (one per program): a Liquid `subject` and `body.markdown`.',
        tags: EXTENSION,
        body: CreateTemplateBody,
        response: { 201: ProgramTemplateWire, ...errorResponses(400, 409, 422) },
      },
    },
    async (req, reply) => reply.code(201).send(renderProgramTemplate(await createTemplate(store, req.principal.orgId, req.body, clock))),
  );

  app.patch(
    '/tycho/program_templates/:id',
    {
      schema: {
        summary: 'Update a program template (Tycho extension)',
        description: 'Changes the subject and/or body of a template; both are Liquid, checked when saved.',
        tags: EXTENSION,
        params: Params,
        body: UpdateTemplateBody,
        response: { 200: ProgramTemplateWire, ...errorResponses(400, 404, 422) },
      },
    },
    async (req) => renderProgramTemplate(await updateTemplate(store, req.principal.orgId, req.params.id, req.body, clock)),
  );
};
