// Tycho extension, admin only: /v0/tycho/admin/sandboxes — create (empty or cloned from a snapshot), list and
// delete sandbox organizations.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { createSandbox, deleteSandbox, listSandboxes } from '../../domain/sandboxes.ts';
import { CreateSandboxBody, PlainList, SandboxWire, renderSandbox, renderSandboxOrg, toolkitSchema } from '../schemas/tycho.ts';
import { NoContent } from '../schemas/common.ts';
import type { RouteDeps } from '../route-deps.ts';

export const sandboxRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, blobs, clock }) => {
  app.post(
    '/tycho/admin/sandboxes',
    {
      schema: toolkitSchema(
        'Create a sandbox',
        'Admin keys only. Creates an isolated organization, empty (system collections only) or cloned from a named snapshot, and answers with its own read-write API key (shown once).',
        [409, 422],
        { body: CreateSandboxBody, response: { 201: SandboxWire } },
      ),
    },
    async (req, reply) => reply.code(201).send(renderSandbox(await createSandbox(store, blobs, req.principal, req.body ?? {}, clock))),
  );

  app.get(
    '/tycho/admin/sandboxes',
    { schema: toolkitSchema('List sandboxes', 'Admin keys only. Every sandbox organization, oldest first.', [], { response: { 200: PlainList(SandboxWire) } }) },
    async (req) => ({ type: 'list' as const, data: (await listSandboxes(store, req.principal)).map(renderSandboxOrg) }),
  );

  app.delete(
    '/tycho/admin/sandboxes/:id',
    {
      schema: toolkitSchema(
        'Delete a sandbox',
        'Admin keys only. Deletes the sandbox with all its data, keys, snapshots and journal, and the contents of its files.',
        [404, 422],
        { params: Type.Object({ id: Type.String() }), response: { 204: NoContent } },
      ),
    },
    async (req, reply) => {
      await deleteSandbox(store, blobs, req.principal, req.params.id);
      return reply.code(204).send();
    },
  );
};
