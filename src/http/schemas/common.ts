// Wire shapes shared by every resource: the list envelope, the error envelope, pointers, pagination query.
import { Type, type TSchema } from 'typebox';
import { MAX_PAGE_LIMIT } from '../../domain/pagination.ts';

export const Timestamp = Type.String({ description: 'ISO 8601 UTC timestamp with milliseconds' });

export const PageQuery = Type.Object({
  after: Type.Optional(Type.String({ minLength: 1, description: 'cursor: results start immediately after it' })),
  before: Type.Optional(Type.String({ minLength: 1, description: 'cursor: results end immediately before it' })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, errorMessage: `must be an integer from 1 to ${MAX_PAGE_LIMIT}` }),
  ),
});

export const ListOf = <T extends TSchema>(item: T) =>
  Type.Object({
    type: Type.Literal('list'),
    data: Type.Array(item),
    meta: Type.Object({
      cursors: Type.Object({ prev: Type.Optional(Type.String()), next: Type.Optional(Type.String()) }),
    }),
  });

export const ErrorEnvelope = Type.Object({
  type: Type.Literal('errors'),
  errors: Type.Array(
    Type.Object({
      type: Type.Literal('error'),
      status: Type.String(),
      title: Type.String(),
      detail: Type.Optional(Type.String()),
      code: Type.Optional(Type.String()),
      source: Type.Optional(
        Type.Object({ pointer: Type.Optional(Type.String()), parameter: Type.Optional(Type.String()) }),
      ),
    }),
  ),
});

export const CollectionPointer = Type.Object({
  id: Type.String(),
  type: Type.Literal('collection'),
  ref: Type.String(),
});

export const IdOrRefParams = Type.Object({ id: Type.String({ description: 'id or ref' }) });

/** A call's or meeting's transcript as responses show it: cues in seconds, each with its speaker. */
export const TranscriptWire = Type.Object({
  cues: Type.Array(
    Type.Object({
      from: Type.Number(),
      to: Type.Number(),
      text: Type.String(),
      speaker: Type.Object({ attendee_id: Type.Optional(Type.String()), label: Type.Optional(Type.String()) }),
    }),
  ),
});

/** Declares the error answers a route gives, each as the error envelope, for the OpenAPI document. */
export const errorResponses = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, ErrorEnvelope]));
