// Schema validators: request bodies are checked strictly (a number is not a string), while query strings,
// path parameters and headers — text by nature — are coerced to the declared types.
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

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
  return ({ schema, httpPart }) =>
    httpPart === 'body' ? body.compile(schema as object) : finiteCoercion(text.compile(schema as object), schema as ObjectSchema);
}
