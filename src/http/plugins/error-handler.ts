// The one place a failure becomes an HTTP answer: domain errors, schema validation failures, framework
// errors and unexpected exceptions all leave as the `errors` envelope with the right status.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { validationError } from '../validation.ts';

export interface ErrorObject {
  type: 'error';
  status: string;
  title: string;
  detail?: string;
  code?: string;
  source?: { pointer?: string; parameter?: string };
}

/** Statuses whose bodies stay bare: the hosted service sends neither detail nor code with them. */
const BARE = new Set([401, 403, 404, 429, 500]);

export function errorBody(error: AppError): { type: 'errors'; errors: ErrorObject[] } {
  const object: ErrorObject = { type: 'error', status: String(error.status), title: titleOf(error.status) };
  if (error.detail !== undefined && (error.status === 401 || !BARE.has(error.status))) object.detail = error.detail;
  if (!BARE.has(error.status) && error.status !== 503) object.code = error.code;
  if (error.source) object.source = error.source;
  return { type: 'errors', errors: [object] };
}

/** The conflicts a later try of the same request gets past. */
const RESOLVES_ITSELF = new Set<string>(['idempotency_key_in_use', 'write_contention']);

function titleOf(status: number): string {
  return status === 422 ? 'Unprocessable Entity' : (STATUS_CODES[status] ?? 'Error');
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  // A 409 will not resolve itself; without this header every official SDK would re-send the request twice.
  // Those that do are an Idempotency-Key still being answered and a write that kept colliding with others:
  // there the SDKs' retry with backoff is right.
  if (error.status === 409) reply.header('x-should-retry', RESOLVES_ITSELF.has(error.code) ? 'true' : 'false');
  return reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error));
}

/** Maps anything thrown while handling a request to an AppError, logging what was not expected. */
export function toAppError(error: unknown, request: FastifyRequest): AppError {
  if (error instanceof AppError) {
    // The database or the blob store failing: the client gets a bare retry-later 503, the log the reason.
    if (error.cause !== undefined) request.log.warn({ err: error.cause }, 'a service Tycho depends on is unavailable');
    return error;
  }
  const e = error as FastifyError;
  if (e.validation) return validationError(e.validation, e.validationContext);
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', `the request body is larger than the limit of ${request.routeOptions.bodyLimit ?? 'the configured'} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', `unsupported Content-Type "${request.headers['content-type'] ?? ''}"; send application/json`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_body', 'the request body is empty; send a JSON object');
    case 'FST_ERR_BAD_URL':
      return new AppError('bad_request', 'the request URL is not valid');
  }
  if (e.statusCode === 413) return new AppError('payload_too_large', `the upload is larger than the limit (${e.message})`);
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError('bad_request', e.message);
  }
  request.log.error({ err: error }, 'unhandled error');
  return new AppError('internal');
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendError(reply, toAppError(error, request)));
  app.setNotFoundHandler((request, reply) => sendError(reply, routeNotFound(request)));
}

/** The answer to a request no route takes. */
export const routeNotFound = (request: FastifyRequest): AppError => new AppError('route_not_found', `no route ${request.method} ${request.url.split('?')[0]}`);
