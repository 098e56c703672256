// Tycho extension: GET /tycho/downloads/{org}/{id}?expires=…&signature=… serves the contents of a file or a
// message attachment to whoever holds a signed URL from a response (no bearer token: the signature is the
// credential). A forged or expired link answers 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../domain/errors.ts';
import { DOWNLOAD_PATH, downloadUrl, findDownload, type Downloadable } from '../../domain/downloads.ts';
import { clockFor } from '../../domain/org-clock.ts';
import type { RouteDeps } from '../route-deps.ts';
import { isMediaType } from '../uploads.ts';
import { originOf } from '../plugins/request-context.ts';
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
      // Expiry is read on the organization's clock, which signed the link.
      const now = (await clockFor(store, org, clock))().getTime() / 1000;
      if (!downloads.verify(org, id, req.query.expires, req.query.signature, now)) throw new AppError('not_found');
      const download = await findDownload(store, blobs, org, id);
      if (!download) throw new AppError('not_found');
      return reply
        // Uploads are refused without a valid media type; one stored before that rule is served as bytes.
        .type(isMediaType(download.contentType) ? download.contentType : 'application/octet-stream')
        .header('content-length', download.size)
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(download.filename)}`)
        .send(download.stream);
    },
  );
};

/** Renders rows that carry a download URL, the URLs made first (a bucket pre-signs them asynchronously). */
export function withDownloadUrls(request: FastifyRequest, { blobs, downloads, clock }: RouteDeps) {
  return async <T extends Downloadable, W>(rows: T[], render: (row: T, url: string) => W): Promise<W[]> => {
    const base = originOf(request);
    const now = clock();
    return Promise.all(rows.map(async (row) => render(row, await downloadUrl(blobs, downloads, base, row, now))));
  };
}
