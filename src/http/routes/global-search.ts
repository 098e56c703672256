// POST /v0/search?query=… (reference §5.20): items and files of the organization matching the text, as
// `{type: "list", data: [{type: "search_result", data: Item | File}]}`, ranked, capped, not paginated.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { globalSearch } from '../../domain/global-search.ts';
import { ItemWire } from '../schemas/items.ts';
import { servedJson } from '../../domain/item-wire.ts';
import { sendJson } from '../pagination.ts';
import { FileWire, renderFile } from '../schemas/files.ts';
import { withDownloadUrls } from './downloads.ts';
import type { RouteDeps } from '../route-deps.ts';
import { doc, exampleOf, listExamples } from '../schemas/common.ts';

const SearchQuery = Type.Object({ query: Type.Optional(Type.String({ maxLength: 2000 })) });

const GlobalSearchResult = Type.Object(
  { type: Type.Literal('search_result'), data: Type.Union([ItemWire, FileWire]) },
  { examples: [{ type: 'search_result', data: exampleOf(ItemWire) }] },
);
const GlobalSearchList = Type.Object({ type: Type.Literal('list'), data: Type.Array(GlobalSearchResult) }, listExamples(GlobalSearchResult));

const docs = {
  searchEverything: doc('Search', 'Search everything',
    'Finds the items of every collection and the files whose text matches the query, best matches first (not paginated).'),
};

export const globalSearchRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.post(
    '/search',
    {
      config: { access: 'read' },
      schema: { ...docs.searchEverything, querystring: SearchQuery, response: { 200: GlobalSearchList } },
      // No body is sent (the SDKs put the text in the query string); an empty or JSON body is ignored.
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req, reply) => {
      const hits = await globalSearch(deps.store, req.principal.orgId, req.query.query);
      const files = await withDownloadUrls(req, deps)(hits.flatMap((hit) => (hit.type === 'file' ? [hit.file] : [])), renderFile);
      // Items as stored (or rendered), files through their own serialiser: the list's serialiser would try
      // both members of the union on every result.
      const fileJson = reply.compileSerializationSchema(FileWire as unknown as Record<string, unknown>);
      const results = hits.map((hit) => `{"type":"search_result","data":${hit.type === 'item' ? servedJson(hit.item, hit.schema) : fileJson(files.shift()!)}}`);
      return sendJson(reply, `{"type":"list","data":[${results.join(',')}]}`);
    },
  );
};
