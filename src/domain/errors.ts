// The closed catalogue of error codes Tycho can answer with, and the one status each maps to.
// A code is never reused for a different meaning; new conditions get new codes.

const catalogue = {
  bad_request: 400,
  invalid_json: 400,
  invalid_body: 400,
  invalid_parameter: 400,
  invalid_header: 400,
  invalid_cursor: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  route_not_found: 404,
  request_timeout: 408,
  /** An `Expect` header other than `100-continue`. */
  expectation_failed: 417,
  conflict: 409,
  stale_lock_version: 409,
  /** The first request with this Idempotency-Key has not been answered yet. */
  idempotency_key_in_use: 409,
  /**
   * The first request with this Idempotency-Key committed its writes, but its process stopped before keeping
   * the answer: running it again would write twice, and the answer cannot be replayed.
   */
  idempotency_answer_lost: 409,
  /** The write was run again and again and kept colliding with concurrent ones (PostgreSQL): a later try succeeds. */
  write_contention: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  validation_failed: 422,
  /** A search filter that is not well-formed (the reference's "422 bad filter"): at its pointer. */
  invalid_filter: 422,
  /** Well-formed, but the target's state does not allow it (a sent message, a funnel in use): no source. */
  invalid_state: 422,
  collection_not_found: 422,
  /** The Idempotency-Key was first used with another request. */
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal: 500,
  /** A transfer coding other than chunked (RFC 9112 §6.1 asks for 501). */
  not_implemented: 501,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof catalogue;

export interface ErrorSource {
  pointer?: string;
  parameter?: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string | undefined;
  readonly source: ErrorSource | undefined;

  constructor(code: ErrorCode, detail?: string, source?: ErrorSource) {
    super(detail ?? code);
    this.name = 'AppError';
    this.code = code;
    this.status = catalogue[code];
    this.detail = detail;
    this.source = source;
  }
}

export function statusOf(code: ErrorCode): number {
  return catalogue[code];
}

export const notFound = (): AppError => new AppError('not_found');

/** The record `lookup` finds, or the 404 a retrieve answers for one that is missing (or another tenant's). */
export async function orNotFound<T>(lookup: Promise<T | undefined>): Promise<T> {
  const found = await lookup;
  if (found === undefined) throw notFound();
  return found;
}

/** A body property failed validation; `pointer` is a JSON pointer into the request body. */
/** How messages name the property at a JSON pointer: `/participants/0/phone` → `participants.0.phone`. */
export const propertyAt = (pointer: string): string => pointer.slice(1).split('/').join('.');

export const invalidAt = (pointer: string, detail: string, code: ErrorCode = 'validation_failed'): AppError =>
  new AppError(code, detail, { pointer });

/** A query parameter is malformed; `parameter` is its name in bracket form (`type[eq]`). */
export const badParameter = (parameter: string, detail: string, code: ErrorCode = 'invalid_parameter'): AppError =>
  new AppError(code, detail, { parameter });

/** A service Tycho depends on (the database, the blob store) did not answer; `cause` is logged, not shown. */
export const serviceUnavailable = (cause?: unknown): AppError =>
  Object.assign(new AppError('service_unavailable', 'The service is temporarily unavailable; retry later.'), cause === undefined ? {} : { cause });
