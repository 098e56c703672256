// Schema validators: request bodies are checked strictly (a number is not a string), while query strings,
// path parameters and headers — text by nature — are coerced to the declared types.
import { Ajv, type Options } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, verbose: true, useDefaults: true, ...options });
  // Schemas may carry a human sentence for their failures; validation.ts reads it from the error.
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  return ajv;
}

export function schemaCompilers(): FastifySchemaCompiler<any> {
  const body = makeAjv({ coerceTypes: false });
  const text = makeAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => (httpPart === 'body' ? body : text).compile(schema as object);
}
