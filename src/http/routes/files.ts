// /v0/files: upload (multipart), list, retrieve, delete. Each response carries a fresh signed download URL.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { createFile, deleteFile, getFile, listFiles, type StoredFile } from '../../domain/files.ts';
import { ListOf, PageQuery } from '../schemas/common.ts';
import { FileWire, renderFile } from '../schemas/files.ts';
import { readUpload } from '../uploads.ts';
import { downloadUrl } from './downloads.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });

export const fileRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, listing, clock, blobs, downloads }) => {
  const render = (req: FastifyRequest) => (file: StoredFile) => renderFile(file, downloadUrl(req, downloads, clock, file.orgId, file.id));

  app.get('/files', { schema: { querystring: PageQuery, response: { 200: ListOf(FileWire) } } }, async (req) =>
    listing.envelope(req, 'files', await listFiles(store, req.principal.orgId, listing.page(req, req.query, 'files')), render(req)),
  );

  app.post('/files', { schema: { response: { 201: FileWire } } }, async (req, reply) => {
    const file = await createFile(store, blobs, req.principal, await readUpload(req), clock);
    return reply.code(201).send(render(req)(file));
  });

  app.get('/files/:id', { schema: { params: Params, response: { 200: FileWire } } }, async (req) =>
    render(req)(await getFile(store, req.principal.orgId, req.params.id)),
  );

  app.delete('/files/:id', { schema: { params: Params } }, async (req, reply) => {
    await deleteFile(store, blobs, req.principal.orgId, req.params.id);
    return reply.code(204).send();
  });
};
