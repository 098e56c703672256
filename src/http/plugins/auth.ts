// Bearer authentication for /v0: resolves the principal (organization + scope) before anything else runs,
// and refuses writes to read-only keys. Routes that only read despite using POST declare `access: 'read'`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cachedAuthenticator, type Principal, type Scope } from '../../domain/api-keys.ts';
import { AppError } from '../../domain/errors.ts';
import { looksLikeJwt, type JwtVerifier } from '../../domain/jwt.ts';
import type { Store } from '../../domain/ports/store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    access?: Scope;
  }
}

const HEADER_FORMAT = "Send the header 'Authorization: Bearer <API key>' (or a bearer JWT where they are enabled).";
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

export function requiredScope(request: FastifyRequest): Scope {
  const declared = request.routeOptions.config.access;
  if (declared) return declared;
  return request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS' ? 'read' : 'write';
}

export function registerAuth(app: FastifyInstance, store: Store, jwt?: JwtVerifier): void {
  app.decorateRequest('principal', null as unknown as Principal);
  const authenticate = cachedAuthenticator(store);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw new AppError('unauthorized', `The Authorization header is missing. ${HEADER_FORMAT}`);
    }
    const match = BEARER.exec(header);
    if (!match) throw new AppError('unauthorized', `The Authorization header is malformed. ${HEADER_FORMAT}`);
    const token = match[1]!;
    const principal = jwt && looksLikeJwt(token) ? await jwt.verify(store, token) : await authenticate(token);
    if (!principal) throw new AppError('unauthorized', `The API key or token is not valid, has expired or has been revoked. ${HEADER_FORMAT}`);
    if (principal.scope === 'read' && requiredScope(request) === 'write') throw new AppError('forbidden');
    request.principal = principal;
  });
}
