// Per-request plumbing: a request id (an incoming well-formed `x-request-id` is kept, otherwise one is made)
// echoed on every response, and strict JSON body parsing.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';

const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,200}$/;

export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : `req_${newId()}`;
}

export function registerRequestContext(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // JSON only: any other body type is refused with 415 before validation.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    // An empty body is "no body": schemas that need one answer 400 on their own.
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, sjson.parse(text, { protoAction: 'remove', constructorAction: 'remove' }));
    } catch (error) {
      done(new AppError('invalid_json', `the request body is not valid JSON: ${(error as Error).message}`) as never, undefined);
    }
  });
}
