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

/** How a number is written in a query string: decimal, as the SDKs write it. */
const DECIMAL = { integer: /^-?\d+$/, number: /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/ } as const;

/**
 * Ajv coerces any text `Number()` reads — "0x5", "+5", " 5", "1e1" for an integer — and "Infinity" or "1e999"
 * to Infinity, for which it then skips minimum/maximum. A numeric parameter is therefore checked as written
 * first (decimal only) and as coerced after (finite only); either failure is a type failure of that parameter.
 */
function strictNumbers(validate: ValidateFunction, schema: ObjectSchema): ValidateFunction {
  const refuse = (name: string): false => {
    const parentSchema = schema.properties?.[name] ?? {};
    check.errors = [{ instancePath: `/${name}`, schemaPath: '', keyword: 'type', params: { type: String(parentSchema.type ?? 'number') }, parentSchema }];
    return false;
  };
  const check = ((data: unknown) => {
    if (typeof data === 'object' && data !== null) {
      for (const [name, value] of Object.entries(data)) {
        const type = schema.properties?.[name]?.type;
        if (typeof value === 'string' && (type === 'integer' || type === 'number') && !DECIMAL[type].test(value)) return refuse(name);
      }
    }
    if (!validate(data)) {
      check.errors = validate.errors;
      return false;
    }
    if (typeof data !== 'object' || data === null) return true;
    for (const [name, value] of Object.entries(data)) if (typeof value === 'number' && !Number.isFinite(value)) return refuse(name);
    return true;
  }) as ValidateFunction;
  return check;
}

// Compiling validators is most of the cost of building an app, and the route schemas are module constants:
// apps built in one process (the test suites build hundreds) compile each schema once. `addUsedSchema: false`
// keeps Ajv from registering schemas by `$id`, so an equal schema under another object compiles too.
const bodyAjv = makeAjv({ coerceTypes: false, addUsedSchema: false });
const textAjv = makeAjv({ coerceTypes: 'array', addUsedSchema: false });
const validators = { body: new WeakMap<object, ValidateFunction>(), text: new WeakMap<object, ValidateFunction>() };

export function schemaCompilers(): FastifySchemaCompiler<any> {
  return ({ schema, httpPart }) => {
    const kind = httpPart === 'body' ? 'body' : 'text';
    let validate = validators[kind].get(schema);
    if (!validate) {
      const checked = withoutDocOnly(schema) as object;
      validate = kind === 'body' ? bodyAjv.compile(checked) : strictNumbers(textAjv.compile(checked), checked as ObjectSchema);
      validators[kind].set(schema, validate);
    }
    return validate;
  };
}

type SchemaController = NonNullable<FastifyServerOptions['schemaController']>;

type Serializer = ReturnType<ReturnType<ReturnType<typeof SerializerSelector>>>;

/** Compiled serialisers by the shared schemas they were compiled with, then by response schema (as validators above). */
const serializers = new Map<string, WeakMap<object, Serializer>>();

/** Fastify's own response serialisers (fast-json-stringify), compiled from schemas without their doc-only parts. */
export const serializerFactory: NonNullable<NonNullable<SchemaController['compilersFactory']>['buildSerializer']> = (external, options) => {
  const shared = withoutDocOnly(external);
  const key = JSON.stringify([shared, options ?? null]);
  const compiled = serializers.get(key) ?? serializers.set(key, new WeakMap()).get(key)!;
  const compile = SerializerSelector()(shared, options);
  return (route) => {
    const schema = route.schema as object;
    let serialize = compiled.get(schema);
    if (!serialize) {
      serialize = compile({ ...route, schema: withoutDocOnly(schema) });
      compiled.set(schema, serialize);
    }
    return serialize;
  };
};
