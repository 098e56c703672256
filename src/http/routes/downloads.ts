// Tycho extension: GET /tycho/downloads/{org}/{id}?expires=…&signature=… serves the contents of a file or a
// message attachment to whoever holds a signed URL from a response (no bearer token: the signature is the
// credential). A forged or expired link answers 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { DOWNLOAD_PATH, findDownload, type DownloadSigner } from '../../domain/downloads.ts';
import type { Clock } from '../../domain/clock.ts';
import type { RouteDeps } from '../route-deps.ts';
import { doc, EXTENSIONS_TAG } from '../schemas/common.ts';

const docs = {
  downloadFile: doc(EXTENSIONS_TAG, 'Download a file',
    'Serves the contents of a file or message attachment to whoever holds a signed URL from a response (valid for an hour). No bearer token: the signature is the credential; a forged or expired link answers 404.'),
};

export const downloadRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, blobs, downloads, clock }) => {
  app.get(
    `${DOWNLOAD_PATH}/:org/:file`,
    {
      schema: {
        ...docs.downloadFile,
        params: Type.Object({ org: Type.String(), file: Type.String() }),
        querystring: Type.Object({ expires: Type.Integer(), signature: Type.String() }),
      },
    },
    async (req, reply) => {
      const { org, file: id } = req.params;
      if (!downloads.verify(org, id, req.query.expires, req.query.signature, clock().getTime() / 1000)) throw new AppError('not_found');
      const download = await findDownload(store, blobs, org, id);
      if (!download) throw new AppError('not_found');
      return reply
        .type(download.contentType)
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(download.filename)}`)
        .send(download.data);
    },
  );
};

/** An absolute signed download URL for a file or attachment, valid for an hour. */
export function downloadUrl(request: FastifyRequest, downloads: DownloadSigner, clock: Clock, orgId: string, id: string): string {
  return `${request.protocol}://${request.host}${downloads.path(orgId, id, clock().getTime() / 1000)}`;
}
