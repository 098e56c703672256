// The list mechanism every list endpoint shares: `limit`/`after`/`before` in, the `list` envelope with
// `meta.cursors.prev`/`next` out. Cursors are bound to the organization and the list they came from.
import type { FastifyReply, FastifyRequest } from 'fastify';
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
  /** The envelope as JSON text, each row's JSON given as text (stored wire forms are spliced in as they are). */
  envelopeJson<T>(request: FastifyRequest, list: string, page: Page<T>, json: (row: T) => string): string;
}

/**
 * Sends JSON text that is the whole body. Fastify sends a string as it is, so the route's response schema
 * still documents the answer but is not run; the text must be what it would have produced, byte for byte
 * (the HTTP tests compare against rendered items).
 */
export function sendJson(reply: FastifyReply, json: string, status = 200): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(json);
}

export function createListing(codec: CursorCodec): Listing {
  const cursorsOf = (request: FastifyRequest, list: string, page: Page<unknown>) => {
    const scope = cursorScope(request, list);
    const cursors: { prev?: string; next?: string } = {};
    if (page.hasPrev && page.start) cursors.prev = codec.encode(scope, page.start);
    if (page.hasNext && page.end) cursors.next = codec.encode(scope, page.end);
    return cursors;
  };
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
      return { type: 'list', data: page.rows.map(render), meta: { cursors: cursorsOf(request, list, page) } };
    },
    envelopeJson(request, list, page, json) {
      // Property order as the ListOf schema has it, which is the order Fastify's serialiser writes.
      return `{"type":"list","data":[${page.rows.map(json).join(',')}],"meta":{"cursors":${JSON.stringify(cursorsOf(request, list, page))}}}`;
    },
  };
}
