// Schemas that the OpenAPI document shows in full but that validation and serialisation treat as any JSON:
// item values, default values and filters. The domain checks those itself, with messages that name the field
// and the exact accepted shape (a generic `oneOf` failure from Ajv would say much less), and responses pass
// them through JSON.stringify as before (fast-json-stringify would try every member of a union per value).
import { Type, type TSchema, type TUnsafe } from 'typebox';

/** The marker the schema compilers look for; the OpenAPI transform removes it from the document. */
export const DOC_ONLY = 'x-tycho-doc-only';

/** `schema` for the document; any JSON for validation and serialisation (typed `T` in handlers). */
export function docOnly<T = unknown>(schema: TSchema | Record<string, unknown>): TUnsafe<T> {
  return Type.Unsafe<T>({ ...schema, [DOC_ONLY]: true });
}

/** A reference to a shared schema (see registerSharedSchemas), shown as `#/components/schemas/<id>`. */
export const ref = (id: string): Record<string, unknown> => ({ $ref: `${id}#` });

/** A copy of `schema` with every doc-only part replaced by `{}` (any JSON), for the compilers. */
export function withoutDocOnly<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withoutDocOnly) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const record = schema as Record<string, unknown>;
  if (record[DOC_ONLY] === true) return (typeof record.description === 'string' ? { description: record.description } : {}) as T;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) copy[key] = withoutDocOnly(value);
  return copy as T;
}
