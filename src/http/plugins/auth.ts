// Bearer authentication for /v0: resolves the principal (organization + scope) before anything else runs,
// and refuses writes to read-only keys. Routes that only read despite using POST declare `access: 'read'`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, type Principal, type Scope } from '../../domain/api-keys.ts';
import { AppError } from '../../domain/errors.ts';
import type { Store } from '../../store/store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    access?: Scope;
  }
}

const HEADER_FORMAT = "Send the header 'Authorization: Bearer <API key>'.";
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

export function requiredScope(request: FastifyRequest): Scope {
  const declared = request.routeOptions.config.access;
  if (declared) return declared;
  return request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS' ? 'read' : 'write';
}

export function registerAuth(app: FastifyInstance, store: Store): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw new AppError('unauthorized', `The Authorization header is missing. ${HEADER_FORMAT}`);
    }
    const match = BEARER.exec(header);
    if (!match) throw new AppError('unauthorized', `The Authorization header is malformed. ${HEADER_FORMAT}`);
    const principal = await authenticate(store, match[1]!);
    if (!principal) throw new AppError('unauthorized', `The API key is not valid or has been revoked. ${HEADER_FORMAT}`);
    if (principal.scope === 'read' && requiredScope(request) === 'write') throw new AppError('forbidden');
    request.principal = principal;
  });
}
