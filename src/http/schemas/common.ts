// Wire shapes shared by every resource: the list envelope, the error envelope, pointers, pagination query.
import { Type, type Static, type TSchema } from 'typebox';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../../domain/pagination.ts';

export const Timestamp = Type.String({ description: 'ISO 8601 UTC timestamp with milliseconds' });

export const PageQuery = Type.Object({
  after: Type.Optional(Type.String({ minLength: 1, description: 'cursor: results start immediately after it' })),
  before: Type.Optional(Type.String({ minLength: 1, description: 'cursor: results end immediately before it' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_LIMIT,
      errorMessage: `must be an integer from 1 to ${MAX_PAGE_LIMIT}`,
      description: `page size (default ${DEFAULT_PAGE_LIMIT}); keep it when following a cursor`,
    }),
  ),
});

/** The creation and update times the examples show. */
export const EXAMPLE_STAMPS = { created_at: '2025-02-17T16:00:00.000Z', updated_at: '2025-02-17T16:00:00.000Z' };

/** The first example of a schema, from which the examples of schemas built on it are composed. */
export const exampleOf = (schema: TSchema): any => (schema as { examples?: unknown[] }).examples?.[0];

/** A list's example: a page holding its element's example (none while the element has none). */
export const listExamples = (item: TSchema, rest: Record<string, unknown> = {}) =>
  exampleOf(item) === undefined ? {} : { examples: [{ type: 'list', data: [exampleOf(item)], ...rest }] };

/** A cursor as lists hand them out: opaque (a base64url position, a dot, its MAC). */
const CURSOR_EXAMPLE = 'WyIyMDI2LTAzLTAxVDEyOjAwOjAwLjAwMFoiLCIxQ0xKdDJ2NVF3M2JYa1VvOVRlR203Il0.b3pQeWJ0c0pYbGh6azFxVw';

export const ListOf = <T extends TSchema>(item: T) =>
  Type.Object(
    {
      type: Type.Literal('list'),
      data: Type.Array(item),
      meta: Type.Object({
        cursors: Type.Object(
          { prev: Type.Optional(Type.String()), next: Type.Optional(Type.String()) },
          { description: 'pass `next` as `after` for the next page, `prev` as `before` for the previous one; absent at either end' },
        ),
      }),
    },
    listExamples(item, { meta: { cursors: { next: CURSOR_EXAMPLE } } }),
  );

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

/** A collection's pointer, as item pointers and fields carry it. */
export const collectionPointer = (c: { id: string; ref: string }): Static<typeof CollectionPointer> => ({ id: c.id, type: 'collection', ref: c.ref });

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
/** The tag of everything beyond the hosted API (`/v0/tycho/…`, `/tycho/…`). */
export const EXTENSIONS_TAG = 'Tycho extensions';

/** What every route schema states for the OpenAPI document (extensions take the `Tycho extensions` tag). */
export const doc = (tag: string, summary: string, description: string) => ({ tags: [tag], summary, description });

/** A 204 answer: no body at all (`type: null` keeps the document from showing content). */
export const NoContent = Type.Unsafe<void>({ type: 'null', description: 'No Content' });
