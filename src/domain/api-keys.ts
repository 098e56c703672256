// API keys: 256 random bits behind a recognisable prefix, stored only as a SHA-256 hash. A key belongs to one
// organization and grants read or read-write access until it is revoked.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors.ts';
import { encodeBase58, newId } from './ids.ts';
import { timestamp, type Clock } from './clock.ts';
import type { Store } from './ports/store.ts';
import { changeCache } from './change-cache.ts';

export interface ApiKey {
  id: string;
  orgId: string;
  name: string | null;
  /** The first characters of the key, safe to show and used to revoke it. */
  prefix: string;
  hash: string;
  readOnly: boolean;
  createdAt: string;
  revokedAt: string | null;
  /** May also make the toolkit's admin calls (sandboxes; any organization's snapshots and clock). */
  admin?: boolean;
}

export type Scope = 'read' | 'write';

/** Who a request acts for: resolved once by authentication, then passed to every use case. */
export interface Principal {
  orgId: string;
  scope: Scope;
  /**
   * Who made the request: the API key, or the JWT's subject. Neither is an entity of the documented
   * constituent types, so activities never name it (see activity.ts).
   */
  actor: { id: string; type: 'api_key' | 'jwt_subject' };
  /** An admin key (see ApiKey.admin). */
  admin?: boolean;
}

const TOKEN_PREFIX = 'tycho_';
const DISPLAY_PREFIX_LENGTH = TOKEN_PREFIX.length + 8;

export function generateToken(): string {
  return TOKEN_PREFIX + encodeBase58(BigInt('0x' + randomBytes(32).toString('hex')), 44);
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function prefixOf(token: string): string {
  return token.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** A token must be printable ASCII without spaces, long enough not to be guessable. */
export function checkTokenShape(token: string): string | null {
  if (!/^[\x21-\x7e]+$/.test(token)) return 'must be printable ASCII without spaces';
  if (token.length < 16 || token.length > 256) return 'must be 16 to 256 characters long';
  return null;
}

export async function createApiKey(
  store: Store,
  orgId: string,
  options: { name?: string | null; readOnly?: boolean; admin?: boolean; clock?: Clock } = {},
): Promise<{ key: ApiKey; token: string }> {
  const token = generateToken();
  const key: ApiKey = {
    id: newId(),
    orgId,
    name: options.name ?? null,
    prefix: prefixOf(token),
    hash: hashToken(token),
    readOnly: options.readOnly ?? false,
    createdAt: timestamp(options.clock),
    revokedAt: null,
    ...(options.admin ? { admin: true } : {}),
  };
  await store.apiKeys.insert(key);
  return { key, token };
}

/** Makes `token` a live read-write key of the organization, whatever state it was in before. */
/** `admin`: the key is the operator's admin key (TYCHO_ADMIN_KEY) rather than TYCHO_API_KEY. */
export async function ensureApiKey(store: Store, orgId: string, token: string, clock?: Clock, admin = false): Promise<ApiKey> {
  const variable = admin ? 'TYCHO_ADMIN_KEY' : 'TYCHO_API_KEY';
  const problem = checkTokenShape(token);
  if (problem) throw new AppError('validation_failed', `${variable} ${problem}`);
  return store.transaction(async (tx) => {
    const hash = hashToken(token);
    // Two processes starting on one new database with the same key: one inserts it, the other finds it.
    await tx.lock([`api-key:${hash}`]);
    const existing = await tx.apiKeys.findByHash(hash);
    if (existing) {
      const restored: ApiKey = { ...existing, orgId, readOnly: false, revokedAt: null, admin };
      await tx.apiKeys.update(restored);
      return restored;
    }
    const key: ApiKey = {
      id: newId(),
      orgId,
      name: variable,
      prefix: prefixOf(token),
      hash,
      readOnly: false,
      createdAt: timestamp(clock),
      revokedAt: null,
      admin,
    };
    await tx.apiKeys.insert(key);
    return key;
  });
}

/** The principal a bearer token stands for, or null when it is unknown or revoked. */
export async function authenticate(store: Store, token: string): Promise<Principal | null> {
  return principalOf(store, hashToken(token));
}

async function principalOf(store: Store, hash: string): Promise<Principal | null> {
  const key = await store.apiKeys.findByHash(hash);
  if (!key || key.revokedAt !== null) return null;
  if (!timingSafeEqual(Buffer.from(key.hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  return { orgId: key.orgId, scope: key.readOnly ? 'read' : 'write', actor: { id: key.id, type: 'api_key' }, ...(key.admin ? { admin: true } : {}) };
}

/** Live keys whose principals one process remembers; the least recently used goes first. */
const CACHED_KEYS = 10_000;

/**
 * `authenticate` with a memory: a key's principal is reused while the store's key change token stays the
 * same, so a warm request asks the database nothing; a revocation anywhere empties the memory. Unknown and
 * revoked keys are never remembered.
 */
export function cachedAuthenticator(store: Store): (token: string) => Promise<Principal | null> {
  const principals = changeCache<string, Principal | null>(() => store.apiKeys.changeToken(), CACHED_KEYS);
  return (token) => {
    const hash = hashToken(token);
    return principals.get(hash, () => principalOf(store, hash), (principal) => principal !== null);
  };
}

export async function revokeApiKey(store: Store, prefix: string, clock?: Clock): Promise<ApiKey> {
  return store.transaction(async (tx) => {
    const matches = (await tx.apiKeys.findByPrefix(prefix)).filter((k) => k.revokedAt === null);
    if (matches.length === 0) throw new AppError('not_found', `no active API key starts with "${prefix}"`);
    if (matches.length > 1) {
      throw new AppError('conflict', `${matches.length} active keys start with "${prefix}"; give more characters`);
    }
    const revoked: ApiKey = { ...matches[0]!, revokedAt: timestamp(clock) };
    await tx.apiKeys.update(revoked);
    return revoked;
  });
}
