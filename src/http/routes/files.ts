// /v0/files: upload (multipart, streamed to the blob store), list, retrieve, delete. Each response carries a
// fresh download URL.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { contentSink, createFile, deleteFile, getFile, listFiles, type StoredFile } from '../../domain/files.ts';
import { ListOf, PageQuery, doc, NoContent } from '../schemas/common.ts';
import { FileWire, renderFile } from '../schemas/files.ts';
import { readUpload } from '../uploads.ts';
import { withDownloadUrls } from './downloads.ts';
import type { RouteDeps } from '../route-deps.ts';

const Params = Type.Object({ id: Type.String() });

const docs = {
  listFiles: doc('Files', 'List files',
    'Uploaded files in creation order, each with a signed download URL.'),
  uploadFile: doc('Files', 'Upload a file',
    'Uploads one file as `multipart/form-data` (part `file`), optionally with `associations`. Answers the file with a signed download URL.'),
  retrieveFile: doc('Files', 'Retrieve a file',
    'One file by id, with a fresh signed download URL.'),
  deleteFile: doc('Files', 'Delete a file',
    'Deletes the file and its contents.'),
};

export const fileRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const { store, listing, clock, blobs } = deps;
  const render = (req: FastifyRequest, files: StoredFile[]) => withDownloadUrls(req, deps)(files, renderFile);

  app.get('/files', { schema: { ...docs.listFiles, querystring: PageQuery, response: { 200: ListOf(FileWire) } } }, async (req) => {
    const page = await listFiles(store, req.principal.orgId, listing.page(req, req.query, 'files'));
    return listing.envelope(req, 'files', { ...page, rows: await render(req, page.rows) }, (file) => file);
  });

  app.post('/files', { schema: { ...docs.uploadFile, consumes: ['multipart/form-data'], response: { 201: FileWire } } }, async (req, reply) => {
    const upload = await readUpload(req, contentSink(blobs, req.principal.orgId, 'file'));
    const [file] = await render(req, [await createFile(store, blobs, req.principal, upload, clock)]);
    return reply.code(201).send(file!);
  });

  app.get('/files/:id', { schema: { ...docs.retrieveFile, params: Params, response: { 200: FileWire } } }, async (req) =>
    (await render(req, [await getFile(store, req.principal.orgId, req.params.id)]))[0]!,
  );

  app.delete('/files/:id', { schema: { ...docs.deleteFile, params: Params, response: { 204: NoContent } } }, async (req, reply) => {
    await deleteFile(store, blobs, req.principal.orgId, req.params.id);
    return reply.code(204).send();
  });
};
