// Bearer JWTs as an alternative to API keys: HS256 with a shared secret, or RS256/ES256 with a public key or a
// JWKS file. The `org` claim names the organization (id or name), `scope` grants "read" or "write" (a
// space-separated list containing "write" is read-write); `sub` names the actor of writes.
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { Principal, Scope } from './api-keys.ts';
import type { Store } from './ports/store.ts';

export interface JwtSettings {
  secret?: string;
  publicKeyFile?: string;
  jwksFile?: string;
  issuer?: string;
  audience?: string;
}

export interface JwtVerifier {
  /** The principal the token stands for, or null when it is invalid, expired, not yet valid or for no known organization. */
  verify(store: Store, token: string): Promise<Principal | null>;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

export async function createJwtVerifier(settings: JwtSettings): Promise<JwtVerifier | undefined> {
  if (settings.secret === undefined && settings.publicKeyFile === undefined && settings.jwksFile === undefined) return undefined;
  // Loaded only where tokens are accepted: most servers take API keys alone.
  const { createLocalJWKSet, importSPKI, jwtVerify } = await import('jose');
  let key: Uint8Array | JWTVerifyGetKey | CryptoKey;
  let algorithms: string[];
  if (settings.secret !== undefined) {
    key = new TextEncoder().encode(settings.secret);
    algorithms = ['HS256'];
  } else if (settings.publicKeyFile !== undefined) {
    const pem = readFileSync(settings.publicKeyFile, 'utf8');
    algorithms = [algorithmOf(pem)];
    key = await importSPKI(pem, algorithms[0]!);
  } else {
    key = createLocalJWKSet(JSON.parse(readFileSync(settings.jwksFile!, 'utf8')));
    algorithms = ['RS256', 'ES256'];
  }
  const options = {
    algorithms,
    clockTolerance: 5,
    ...(settings.issuer ? { issuer: settings.issuer } : {}),
    ...(settings.audience ? { audience: settings.audience } : {}),
  };
  return {
    async verify(store, token) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, key as Uint8Array, options));
      } catch {
        return null;
      }
      const org = typeof payload.org === 'string' ? payload.org : undefined;
      const scope = scopeOf(payload.scope);
      if (!org || !scope) return null;
      const organization = (await store.organizations.findById(org)) ?? (await store.organizations.findByName(org));
      if (!organization) return null;
      return { orgId: organization.id, scope, actor: { id: typeof payload.sub === 'string' ? payload.sub : 'anonymous', type: 'jwt_subject' } };
    },
  };
}

function scopeOf(claim: unknown): Scope | undefined {
  if (typeof claim !== 'string') return undefined;
  const scopes = claim.split(/\s+/);
  if (scopes.includes('write')) return 'write';
  return scopes.includes('read') ? 'read' : undefined;
}

/** RS256 for RSA keys, ES256 for P-256 keys. */
function algorithmOf(pem: string): string {
  const type = createPublicKey(pem).asymmetricKeyType;
  if (type === 'rsa') return 'RS256';
  if (type === 'ec') return 'ES256';
  throw new Error(`unsupported public key type ${type}; use an RSA (RS256) or P-256 (ES256) key in PEM (SPKI) form`);
}
