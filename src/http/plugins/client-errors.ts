// Requests Node's HTTP parser rejects before Fastify ever sees them (a header section over the limit, broken
// body framing, forbidden bytes, a request that never finished arriving). They get the same `errors` envelope
// as every other answer, written on the raw socket with `Connection: close`; after a framing error nothing
// later on the connection can be trusted, so it is then closed.
import type { Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ConnectionError, FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { errorBody } from './error-handler.ts';

/** How long a closed-for-writing connection may keep sending before it is dropped (see `closeGently`). */
const LINGER_MS = 2000;

/** Node's parser error, with what it had read when it gave up. */
interface ParserError extends Error {
  code?: string;
  bytesParsed?: number;
  rawPacket?: Buffer;
}

/** Node's private per-socket HTTP state, read only to answer in order. */
interface HttpSocket extends Socket {
  parser?: { incoming?: IncomingMessage | null } | null;
  _httpMessage?: (ServerResponse & { req?: IncomingMessage }) | null;
}

const FRAMING = 'send one request line, `Name: value` header lines of visible characters, and a body framed by exactly one Content-Length or by Transfer-Encoding: chunked';

const transferEncodingError = () =>
  new AppError('bad_request', `the request is malformed: Transfer-Encoding is not "chunked" as the last coding, or comes with a Content-Length; ${FRAMING}`);

/** What each llhttp / Node error means for the client, in its terms; `inBody`: the headers were fine. */
export function clientErrorOf(error: ParserError, inBody: boolean): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError(
        'headers_too_large',
        'the request line and headers together are larger than 16384 bytes; send fewer or shorter headers',
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError('payload_too_large', 'the chunk extensions of the chunked request body are too long; send chunks as `<hex size>\\r\\n<data>\\r\\n` without extensions');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request_timeout', 'the request did not arrive completely in time; send the whole request promptly');
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return new AppError('bad_request', `the request is malformed: it has more than one Content-Length header; ${FRAMING}`);
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return transferEncodingError();
    case 'HPE_INVALID_CONTENT_LENGTH':
      // llhttp names whichever of the two came second when both are sent.
      if (/Transfer-Encoding/.test(error.message)) return transferEncodingError();
      return new AppError('bad_request', `the request is malformed: Content-Length is not a decimal number of bytes; ${FRAMING}`);
  }
  // Past the headers only a chunked body can be malformed (a Content-Length body is just counted).
  if (inBody) {
    return new AppError('bad_request', `the request is malformed: the chunked body is broken (each chunk is \`<hex size>\\r\\n<data>\\r\\n\`, ending with \`0\\r\\n\\r\\n\`); ${FRAMING}`);
  }
  switch (error.code) {
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return new AppError('bad_request', `the request is malformed: a header line has a forbidden character (such as NUL or a space before the colon); ${FRAMING}`);
    case 'HPE_PAUSED_H2_UPGRADE':
      return new AppError('bad_request', 'HTTP/2 without TLS is not served here; send HTTP/1.1');
  }
  return new AppError('bad_request', `the request is not valid HTTP/1.1 (${error.message.replace(/^Parse Error: /, '')}); ${FRAMING}`);
}

/** Fastify's `clientErrorHandler`: called with the Fastify instance as `this`. */
export function answerClientError(this: FastifyInstance, connectionError: ConnectionError, rawSocket: Socket): void {
  // Fastify's type describes rawPacket in its JSON form; Node hands over the Buffer itself.
  const error = connectionError as unknown as ParserError;
  const socket = rawSocket as HttpSocket;
  // A reset peer cannot be answered; a socket answered once stays answered (the parser may report again).
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || socket.destroyed || answered.has(socket)) return;
  answered.add(socket);

  const incoming = socket.parser?.incoming;
  // The request being parsed broke inside its body (its headers are in, it is not complete).
  const brokeInBody = incoming != null && !incoming.complete;
  const appError = clientErrorOf(error, brokeInBody);
  const requestId = `req_${newId()}`;
  this.log.info({ reqId: requestId, status: appError.status, parserCode: error.code, detail: appError.detail }, 'client error');
  const head = brokeInBody ? incoming.method === 'HEAD' : methodOf(error) === 'HEAD';
  const bytes = answerBytes(appError, requestId, head);
  const settle = (): void => {
    const current = socket._httpMessage;
    // The broken request's own response has not started: ours takes its place (whatever the route writes
    // later stays unsent on the closed connection).
    const ownUnstarted = brokeInBody && current?.req === incoming && !current.headersSent;
    if (current && !current.writableFinished && !ownUnstarted) {
      // Responses to earlier pipelined requests, or this request's own answer, go out first, in order.
      afterResponse(current, settle);
    } else if (brokeInBody && !ownUnstarted) {
      // The application has answered this very request already; a second answer would be unsolicited.
      closeGently(socket);
    } else {
      write(socket, bytes);
    }
  };
  settle();
}

const answered = new WeakSet<Socket>();

/**
 * Requests Node keeps from Fastify, answered in the same envelope: an `Expect` other than `100-continue`
 * (Node would send a bare 417) and `CONNECT` (Node would drop the connection). Both close the connection.
 */
export function answerUnservedRequests(server: Server): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const error = new AppError('expectation_failed', `Expect "${request.headers.expect}" is not supported; send the request without it, or with Expect: 100-continue`);
    const body = JSON.stringify(errorBody(error));
    response.shouldKeepAlive = false;
    response.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-request-id': `req_${newId()}` });
    response.end(body);
  });
  server.on('connect', (_request: IncomingMessage, socket: Socket) => {
    const error = new AppError('bad_request', 'CONNECT is not served here: Tycho is an API server, not a proxy; send GET, POST, PATCH or DELETE to an API path');
    write(socket, answerBytes(error, `req_${newId()}`, false));
  });
}

function answerBytes(error: AppError, requestId: string, head: boolean): string {
  const envelope = errorBody(error);
  const body = JSON.stringify(envelope);
  const headers = [
    `HTTP/1.1 ${error.status} ${envelope.errors[0]!.title}`,
    'Content-Type: application/json; charset=utf-8',
    // For HEAD the length is that of the body a GET would have had; the body itself is never sent.
    `Content-Length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    `Date: ${new Date().toUTCString()}`,
    'Connection: close',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${head ? '' : body}`;
}

function write(socket: Socket, bytes: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.write(bytes);
  closeGently(socket);
}

/**
 * Ends our side and lets the peer finish sending for a moment before dropping the connection: closing a
 * socket with unread input makes the kernel send a reset, which can discard the answer before the client
 * reads it.
 */
function closeGently(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/** Runs `then` once `response` is out (or abandoned), after Node has moved on to the next queued one. */
function afterResponse(response: ServerResponse, then: () => void): void {
  let done = false;
  const next = () => {
    if (done) return;
    done = true;
    setImmediate(then);
  };
  response.once('finish', next);
  response.once('close', next);
}

/**
 * The method of the request that broke, from the bytes the parser was given: the last request line before
 * the point of failure. Unknown when the request line came in an earlier packet; such a request is answered
 * as a GET would be, which is harmless since the connection closes right after.
 */
function methodOf(error: ParserError): string | undefined {
  const packet = error.rawPacket;
  if (!Buffer.isBuffer(packet)) return undefined;
  const text = packet.subarray(0, (error.bytesParsed ?? packet.length) + 1).toString('latin1');
  let method: string | undefined;
  for (const match of text.matchAll(/(?:^|\n)([A-Z]+) [^ \r\n]+ HTTP\/\d/g)) method = match[1];
  return method;
}
