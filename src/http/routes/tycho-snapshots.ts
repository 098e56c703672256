// Tycho extension: /v0/tycho/snapshots and /v0/tycho/reset — save the caller's organization under a name,
// list, delete and restore snapshots, and reset it to its empty initial state. For admin keys and sandboxes'
// keys.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { deleteSnapshot, listSnapshots, requireToolkitAccess, resetOrganization, restoreSnapshot, saveSnapshot } from '../../domain/snapshots.ts';
import { PlainList, SnapshotBody, SnapshotWire, renderSnapshot, toolkitSchema } from '../schemas/tycho.ts';
import { NoContent } from '../schemas/common.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ name: Type.String() });
const ACCESS = 'Admin keys, and write keys of a sandbox.';

export const snapshotRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, blobs, clock }) => {
  app.addHook('preHandler', async (req) => requireToolkitAccess(store, req.principal));

  app.post(
    '/tycho/snapshots',
    {
      schema: toolkitSchema(
        'Save a snapshot',
        `${ACCESS} Saves the organization's whole state (every record, files' contents included) under a name, replacing a snapshot of that name.`,
        [422],
        { body: SnapshotBody, response: { 201: SnapshotWire } },
      ),
    },
    async (req, reply) => reply.code(201).send(renderSnapshot(await saveSnapshot(store, blobs, req.principal.orgId, req.body.name, clock))),
  );

  app.get(
    '/tycho/snapshots',
    { schema: toolkitSchema('List snapshots', `${ACCESS} The organization's snapshots, oldest first.`, [], { response: { 200: PlainList(SnapshotWire) } }) },
    async (req) => ({ type: 'list' as const, data: (await listSnapshots(store, req.principal.orgId)).map(renderSnapshot) }),
  );

  app.delete(
    '/tycho/snapshots/:name',
    { schema: toolkitSchema('Delete a snapshot', `${ACCESS} Deletes the snapshot and its copies of files' contents.`, [404], { params: Params, response: { 204: NoContent } }) },
    async (req, reply) => {
      await deleteSnapshot(store, blobs, req.principal.orgId, req.params.name);
      return reply.code(204).send();
    },
  );

  app.post(
    '/tycho/snapshots/:name/restore',
    {
      schema: toolkitSchema(
        'Restore a snapshot',
        `${ACCESS} Replaces the organization's state by the snapshot's: every id and cursor behaves as when it was taken. API keys, the clock, snapshots, the journal and Idempotency-Key answers are kept.`,
        [404],
        { params: Params, response: { 200: SnapshotWire } },
      ),
    },
    async (req) => renderSnapshot(await restoreSnapshot(store, blobs, req.principal.orgId, req.params.name)),
  );

  app.post(
    '/tycho/reset',
    {
      schema: toolkitSchema(
        'Reset the organization',
        `${ACCESS} Deletes every record of the organization (files' contents included), leaving the system collections of a new organization. API keys, the clock, snapshots, the journal and Idempotency-Key answers are kept.`,
        [],
        { response: { 204: NoContent } },
      ),
    },
    async (req, reply) => {
      await resetOrganization(store, blobs, req.principal.orgId, clock);
      return reply.code(204).send();
    },
  );
};
