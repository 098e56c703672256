// /v0/files: upload (multipart, streamed to the blob store), list, retrieve, delete. Each response carries a
// fresh download URL.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { contentSink, createFile, deleteFile, getFile, listFiles, type StoredFile } from '../../domain/files.ts';
import { ListOf, PageQuery } from '../schemas/common.ts';
import { FileWire, renderFile } from '../schemas/files.ts';
import { readUpload } from '../uploads.ts';
import { withDownloadUrls } from './downloads.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });

export const fileRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const { store, listing, clock, blobs } = deps;
  const render = (req: FastifyRequest, files: StoredFile[]) => withDownloadUrls(req, deps)(files, renderFile);

  app.get('/files', { schema: { querystring: PageQuery, response: { 200: ListOf(FileWire) } } }, async (req) => {
    const page = await listFiles(store, req.principal.orgId, listing.page(req, req.query, 'files'));
    return listing.envelope(req, 'files', { ...page, rows: await render(req, page.rows) }, (file) => file);
  });

  app.post('/files', { schema: { response: { 201: FileWire } } }, async (req, reply) => {
    const upload = await readUpload(req, contentSink(blobs, req.principal.orgId, 'file'));
    const [file] = await render(req, [await createFile(store, blobs, req.principal, upload, clock)]);
    return reply.code(201).send(file!);
  });

  app.get('/files/:id', { schema: { params: Params, response: { 200: FileWire } } }, async (req) =>
    (await render(req, [await getFile(store, req.principal.orgId, req.params.id)]))[0]!,
  );

  app.delete('/files/:id', { schema: { params: Params } }, async (req, reply) => {
    await deleteFile(store, blobs, req.principal.orgId, req.params.id);
    return reply.code(204).send();
  });
};
