// Opaque, tamper-evident cursors. A cursor is a base64url JSON position plus a MAC over the position and the
// list it belongs to (organization + list scope), so a forged, edited or foreign cursor is detected. The key
// lives in the database: every process sharing it accepts every other's cursors, and they never expire.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Position, SortValue } from './pagination.ts';

const MAC_BYTES = 16;

export interface CursorCodec {
  encode(scope: string, position: Position): string;
  /** The position, or null when the token is malformed, forged or belongs to another list. */
  decode(scope: string, token: string): Position | null;
}

export function createCursorCodec(secret: string): CursorCodec {
  const mac = (scope: string, body: string): Buffer =>
    createHmac('sha256', secret).update(scope).update('\n').update(body).digest().subarray(0, MAC_BYTES);

  return {
    encode(scope, position) {
      const parts = position.inclusive ? [position.key, position.id, 1] : [position.key, position.id];
      const body = Buffer.from(JSON.stringify(parts)).toString('base64url');
      return `${body}.${mac(scope, body).toString('base64url')}`;
    },
    decode(scope, token) {
      const dot = token.indexOf('.');
      if (dot <= 0 || token.length > 4096) return null;
      const body = token.slice(0, dot);
      // Compared as text: decoding would forgive non-canonical base64 (padding bits, +/ for -_).
      const given = Buffer.from(token.slice(dot + 1));
      const expected = Buffer.from(mac(scope, body).toString('base64url'));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      return parsePosition(Buffer.from(body, 'base64url').toString('utf8'));
    },
  };
}

function parsePosition(json: string): Position | null {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length < 2 || value.length > 3) return null;
  const [key, id, inclusive] = value as [unknown, unknown, unknown];
  if (typeof id !== 'string' || !Array.isArray(key) || !key.every(isSortValue)) return null;
  if (value.length === 3 && inclusive !== 1) return null;
  return { key: key as SortValue[], id, ...(inclusive === 1 ? { inclusive: true } : {}) };
}

function isSortValue(v: unknown): v is SortValue {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}
