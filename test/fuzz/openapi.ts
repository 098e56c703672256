// The operations of the served OpenAPI document, in the shape the generators need.

/** The subset of JSON Schema (OpenAPI 3.0 flavour) that Tycho's route schemas use. */
export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  nullable?: boolean;
  additionalProperties?: boolean | Schema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  /** `GET /v0/collections/{id}`: how findings and subtests name the operation. */
  name: string;
  method: string;
  path: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  headerParams: Parameter[];
  /** The JSON request body's schema, when the operation declares one. */
  body?: Schema;
  /** Needs no bearer token (health, downloads). */
  public: boolean;
  /** The statuses the document says the operation answers. */
  statuses: Set<number>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function operationsOf(document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters: Parameter[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) => ({
        name: p.name,
        in: p.in,
        required: Boolean(p.required),
        schema: p.schema ?? {},
      }));
      const body = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      operations.push({
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        headerParams: parameters.filter((p) => p.in === 'header'),
        ...(body ? { body } : {}),
        public: !path.startsWith('/v0/'),
        statuses: new Set(Object.keys(op.responses ?? {}).map(Number)),
      });
    }
  }
  return operations;
}

/** Whether the operation reads (GET, item search, global search) — the rest are writes. */
export const isRead = (op: Operation): boolean => op.method === 'GET' || op.path.endsWith('/items/search') || op.path === '/v0/search';
