// Per-request plumbing: a request id (an incoming well-formed `x-request-id` is kept, otherwise one is made)
// echoed on every response, and strict JSON body parsing.
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { queryLimitError } from '../query-string.ts';
import { routeNotFound } from './error-handler.ts';

const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,200}$/;

export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : `req_${newId()}`;
}

/**
 * Tells a client that sent `Expect: 100-continue` to send its body; once, only to such a client, never to an
 * HTTP/1.0 one (RFC 9110 §15.2: it has no 1xx), and not for a request to no route (its answer is the 404).
 */
export function sendContinue(request: FastifyRequest, reply: FastifyReply): void {
  if (request.headers.expect?.toLowerCase() !== '100-continue' || request.raw.httpVersion === '1.0' || request.is404) return;
  if (reply.raw.headersSent || continued.has(request.raw)) return;
  continued.add(request.raw);
  reply.raw.writeContinue();
}
const continued = new WeakSet<IncomingMessage>();

export function registerRequestContext(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // Requests refused before anything else runs, in one synchronous hook (it runs on every request): a Host
  // missing from HTTP/1.1, repeated or not a host (RFC 9112 §3.2: links in answers are made from it); a transfer
  // coding Node does not undo (it undoes `chunked` only, so a body sent `gzip, chunked` would be read as its
  // compressed bytes), or any in HTTP/1.0; the asterisk form but for OPTIONS; a query string over the
  // parameters read.
  app.addHook('onRequest', (request, reply, done) => {
    const framing = framingError(request.raw);
    if (framing) reply.header('connection', 'close');
    done(framing ?? queryLimitError(request.query));
  });

  // Bodies are read as sent: a compressed one would be parsed as its compressed bytes, and a plain one labelled
  // compressed accepted under a false label. Either way the client is told before anything is read.
  app.addHook('preParsing', async (request) => {
    const coding = request.headers['content-encoding']?.trim().toLowerCase();
    const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
    if (hasBody && coding !== undefined && coding !== '' && coding !== 'identity') {
      throw new AppError('unsupported_media_type', `Content-Encoding "${coding}" is not supported: send the body uncompressed, without Content-Encoding`);
    }
  });

  // `Expect: 100-continue`: the server does not answer 100 on arrival (`expectContinue`) but here, once every
  // check that needs no body has passed and the body is one that will be read: of a type parsed here, within
  // the limit. Multipart bodies are read by their handlers, after checks of their own (app.ts).
  app.server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => app.server.emit('request', request, response));
  app.addHook('preParsing', async (request, reply) => {
    if (request.headers.expect === undefined) return;
    // The 404 would otherwise come after a body the client holds back until it gets a 100.
    if (request.is404) throw routeNotFound(request);
    if (/^multipart\//i.test(request.headers['content-type'] ?? '')) return;
    const length = Number(request.headers['content-length'] ?? 0);
    const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (length > request.routeOptions.bodyLimit! || mediaType === '' || !request.server.hasContentTypeParser(mediaType)) return;
    sendContinue(request, reply);
  });

  // JSON only: any other body type is refused with 415 before validation.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    // Decoding would turn bytes that are not UTF-8 into U+FFFD and store that in place of what was sent.
    if (!isUtf8(body as Buffer)) {
      return done(new AppError('invalid_json', 'the request body is not valid UTF-8; send JSON as UTF-8 text') as never, undefined);
    }
    const text = (body as Buffer).toString('utf8');
    // An empty body is "no body": schemas that need one answer 400 on their own.
    if (text.trim() === '') return done(null, undefined);
    if (nestingDepth(text) > MAX_BODY_DEPTH) {
      return done(new AppError('invalid_body', `the request body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep; no request needs more`) as never, undefined);
    }
    let parsed: unknown;
    try {
      // Keys that would reach an object's prototype are refused, not dropped: dropping one would answer as if the
      // request had not held it (an item created without the values sent under it).
      parsed = sjson.parse(text, { protoAction: 'error', constructorAction: 'error' });
    } catch (error) {
      if (!/forbidden prototype property/.test((error as Error).message)) {
        return done(new AppError('invalid_json', `the request body is not valid JSON: ${(error as Error).message}`) as never, undefined);
      }
      const detail = 'the request body holds a key named "__proto__" (or a "constructor" holding "prototype"), which no request takes; remove or rename it';
      return done(new AppError('invalid_body', detail) as never, undefined);
    }
    done(null, parsed);
  });
}

/** A URI authority's host and port (RFC 3986 §3.2): a name or IPv4 address, or an IPv6 address in brackets. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::\d{1,5})?$/;
const HOST_SHAPE = 'send one Host header naming the server, such as "Host: 127.0.0.1:8080"';

/** The singleton header (Host, Authorization) sent on more than one line, if any: Node keeps the first silently. */
function repeatedSingleton(rawHeaders: string[]): string | undefined {
  let host = 0;
  let authorization = 0;
  // Names and values alternate in `rawHeaders`.
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host' && ++host > 1) return 'Host';
    if (name.length === 13 && name.toLowerCase() === 'authorization' && ++authorization > 1) return 'Authorization';
  }
  return undefined;
}

function framingError(raw: IncomingMessage): AppError | undefined {
  const host = raw.headers.host;
  if (host === undefined) {
    return raw.httpVersion === '1.1' ? new AppError('bad_request', `an HTTP/1.1 request needs a Host header; ${HOST_SHAPE}`) : undefined;
  }
  const repeated = repeatedSingleton(raw.rawHeaders);
  if (repeated === 'Host') return new AppError('bad_request', `the request has more than one Host header; ${HOST_SHAPE}`);
  if (repeated === 'Authorization') {
    return new AppError('bad_request', "the request has more than one Authorization header; send one: 'Authorization: Bearer <API key>'");
  }
  if (host !== '' && !HOST.test(host)) return new AppError('bad_request', `Host ${JSON.stringify(host)} is not a host name or address with an optional port; ${HOST_SHAPE}`);
  // Links in answers (download URLs) are made from it: a port no client can connect to would be in them.
  const port = /:(\d+)$/.exec(host)?.[1];
  if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535)) {
    return new AppError('bad_request', `Host ${JSON.stringify(host)} has port ${port}; a port is 1 to 65535; ${HOST_SHAPE}`);
  }
  if (raw.url === '*' && raw.method !== 'OPTIONS') return new AppError('bad_request', `the request target "*" is for OPTIONS only; send ${raw.method} with a path such as /v0/collections`);
  const transferEncoding = raw.headers['transfer-encoding'];
  if (transferEncoding === undefined) return undefined;
  if (raw.httpVersion === '1.0' || transferEncoding.trim() === '') {
    // RFC 9112 §6.1: HTTP/1.0 has no transfer codings; such a body's framing cannot be trusted.
    return new AppError('bad_request', 'the body\'s framing is faulty: send Transfer-Encoding: chunked only with HTTP/1.1, or the body with Content-Length');
  }
  const unknown = transferEncoding.split(',').map((c) => c.trim().toLowerCase()).find((c) => c !== 'chunked' && c !== 'identity' && c !== '');
  if (unknown === undefined) return undefined;
  return new AppError('not_implemented', `Transfer-Encoding "${unknown}" is not supported: send the body as it is, with Content-Length or Transfer-Encoding: chunked`);
}

/**
 * Where links in an answer point (download URLs, form pages): the origin the client addressed — the target's
 * own authority in the absolute form (RFC 9112 §3.2.2), else the Host header — or, without either (HTTP/1.0),
 * the address the request arrived at.
 */
export function originOf(request: FastifyRequest): string {
  const target = request.raw.url ?? '';
  if (/^https?:\/\//i.test(target) && URL.canParse(target)) return new URL(target).origin;
  const host = request.headers.host;
  if (host) return `${request.protocol}://${host}`;
  const { localAddress, localPort } = request.raw.socket;
  const address = localAddress?.includes(':') ? `[${localAddress}]` : localAddress;
  return `${request.protocol}://${address}:${localPort}`;
}

/** Deeper than any request the API takes (a filter of 32 and/or levels nests 66 deep); refused before parsing. */
const MAX_BODY_DEPTH = 100;

/** How deeply arrays and objects nest in JSON text (text inside strings ignored); one linear pass. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
