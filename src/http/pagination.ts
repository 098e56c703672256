// The list mechanism every list endpoint shares: `limit`/`after`/`before` in, the `list` envelope with
// `meta.cursors.prev`/`next` out. Cursors are bound to the organization and the list they came from.
import type { FastifyRequest } from 'fastify';
import { badParameter } from '../domain/errors.ts';
import { DEFAULT_PAGE_LIMIT, type Page, type PageRequest } from '../domain/pagination.ts';
import type { CursorCodec } from '../domain/cursor.ts';

export interface PageQuery {
  after?: string;
  before?: string;
  limit?: number;
}

export interface ListEnvelope<T> {
  type: 'list';
  data: T[];
  meta: { cursors: { prev?: string; next?: string } };
}

const cursorScope = (request: FastifyRequest, list: string): string => `${request.principal.orgId}/${list}`;

export interface Listing {
  /** The page a list request asks for; a cursor from another list or organization is a 400. */
  page(request: FastifyRequest, query: PageQuery, list: string): PageRequest;
  envelope<T, W>(request: FastifyRequest, list: string, page: Page<T>, render: (row: T) => W): ListEnvelope<W>;
}

export function createListing(codec: CursorCodec): Listing {
  return {
    page(request, query, list) {
      if (query.after !== undefined && query.before !== undefined) {
        throw badParameter('before', 'after and before cannot be used together; pass one cursor', 'invalid_cursor');
      }
      const page: PageRequest = { limit: query.limit ?? DEFAULT_PAGE_LIMIT };
      for (const name of ['after', 'before'] as const) {
        const token = query[name];
        if (token === undefined) continue;
        const position = codec.decode(cursorScope(request, list), token);
        if (!position) {
          throw badParameter(name, `${name} is not a cursor of this list; pass a value from meta.cursors of a previous page`, 'invalid_cursor');
        }
        page[name] = position;
      }
      return page;
    },
    envelope(request, list, page, render) {
      const scope = cursorScope(request, list);
      const cursors: { prev?: string; next?: string } = {};
      if (page.hasPrev && page.start) cursors.prev = codec.encode(scope, page.start);
      if (page.hasNext && page.end) cursors.next = codec.encode(scope, page.end);
      return { type: 'list', data: page.rows.map(render), meta: { cursors } };
    },
  };
}
