// Schema validators: request bodies are checked strictly (a number is not a string), while query strings,
// path parameters and headers — text by nature — are coerced to the declared types. Both validators and the
// response serialisers skip the doc-only parts of schemas (documented.ts), which the domain checks itself.
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { withoutDocOnly } from './schemas/documented.ts';

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, verbose: true, useDefaults: true, ...options });
  // Schemas may carry a human sentence for their failures; validation.ts reads it from the error.
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  return ajv;
}

interface ObjectSchema {
  properties?: Record<string, { errorMessage?: string; type?: unknown }>;
}

/**
 * Ajv coerces "Infinity" and "1e999" to Infinity and then skips minimum/maximum for it, so a coerced
 * parameter that is not a finite number is refused here as a type failure of that parameter.
 */
function finiteCoercion(validate: ValidateFunction, schema: ObjectSchema): ValidateFunction {
  const check = ((data: unknown) => {
    if (!validate(data)) {
      check.errors = validate.errors;
      return false;
    }
    if (typeof data !== 'object' || data === null) return true;
    for (const [name, value] of Object.entries(data)) {
      if (typeof value !== 'number' || Number.isFinite(value)) continue;
      const parentSchema = schema.properties?.[name] ?? {};
      check.errors = [{ instancePath: `/${name}`, schemaPath: '', keyword: 'type', params: { type: String(parentSchema.type ?? 'number') }, parentSchema }];
      return false;
    }
    return true;
  }) as ValidateFunction;
  return check;
}

export function schemaCompilers(): FastifySchemaCompiler<any> {
  const body = makeAjv({ coerceTypes: false });
  const text = makeAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => {
    const checked = withoutDocOnly(schema) as object;
    return httpPart === 'body' ? body.compile(checked) : finiteCoercion(text.compile(checked), checked as ObjectSchema);
  };
}

type SchemaController = NonNullable<FastifyServerOptions['schemaController']>;

/** Fastify's own response serialisers (fast-json-stringify), compiled from schemas without their doc-only parts. */
export const serializerFactory: NonNullable<NonNullable<SchemaController['compilersFactory']>['buildSerializer']> = (external, options) => {
  const compile = SerializerSelector()(withoutDocOnly(external), options);
  return (route) => compile({ ...route, schema: withoutDocOnly(route.schema) });
};
