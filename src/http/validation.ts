// Turns a schema validation failure into an AppError: a body problem points into the body (422, or 400 when
// the body is not even an object), a query problem names the parameter in bracket form (400).
import { AppError } from '../domain/errors.ts';

/** The parts of a property's schema that say what it takes. */
interface PropertySchema {
  errorMessage?: string;
  type?: unknown;
  const?: unknown;
  enum?: unknown[];
  anyOf?: PropertySchema[];
}

/** The most values a query-string array takes (`sort[]`, `include[]`); the query parser (app.ts) reads a longer one as an object. */
export const QUERY_ARRAY_LIMIT = 100;

export interface SchemaIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  /** The value that failed (Ajv's `verbose` mode). */
  data?: unknown;
  message?: string;
  parentSchema?: { errorMessage?: string; properties?: Record<string, PropertySchema>; anyOf?: PropertySchema[] };
}

/**
 * The issue that explains the failure. A union's own failure (with its errorMessage) explains more than the
 * failures of its branches, except for a nullable value sent as what it may be other than null: then the
 * failure inside it does (`/transcript/cues/0/from`, not `/transcript`).
 */
function explainingIssue(issues: SchemaIssue[]): SchemaIssue | undefined {
  const union = issues.find((i) => i.keyword === 'anyOf' || i.keyword === 'oneOf');
  if (!union) return issues[0];
  const branches = union.parentSchema?.anyOf;
  const nullable = branches?.length === 2 && branches.some((b) => b.type === 'null');
  if (nullable && typeof union.data === 'object' && union.data !== null) {
    return issues.find((i) => i.instancePath.startsWith(`${union.instancePath}/`)) ?? union;
  }
  return union;
}

export function validationError(issues: SchemaIssue[], context: string | undefined): AppError {
  const issue = explainingIssue(issues);
  if (!issue) return new AppError('bad_request', 'the request is not valid');
  const path = issue.keyword === 'required' ? `${issue.instancePath}/${String(issue.params.missingProperty)}` : issue.instancePath;
  const segments = path.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

  if (context === 'body') {
    if (segments.length === 0) return new AppError('invalid_body', `the request body ${describe(issue)}`);
    return new AppError('validation_failed', `${segments.join('.')} ${describe(issue)}`, { pointer: path });
  }
  // An unknown key is named itself (`type[gt]`, `filter[nope]`): it is what the client has to change.
  if (issue.keyword === 'additionalProperties') segments.push(String(issue.params.additionalProperty));
  // Array positions read as `[]`, the way the SDKs send arrays (`include[]=…`, `filter[type][in][]=…`).
  const parameter = segments.length === 0 ? '' : segments[0] + segments.slice(1).map((s) => (/^\d+$/.test(s) ? '[]' : `[${s}]`)).join('');
  if (context === 'headers') return new AppError('invalid_header', `header ${parameter} ${describe(issue)}`, { parameter });
  if (issue.keyword === 'type' && String(issue.params.type) === 'array' && isOverlongArray(issue.data)) {
    return new AppError('invalid_parameter', `${parameter}[] takes at most ${QUERY_ARRAY_LIMIT} values, in order from index 0`, { parameter: `${parameter}[]` });
  }
  return new AppError('invalid_parameter', `${parameter || 'the query string'} ${describe(issue)}`, { parameter });
}

/** What the query parser makes of an array longer than QUERY_ARRAY_LIMIT, or indexed past it: an object keyed by positions. */
function isOverlongArray(data: unknown): boolean {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  const keys = Object.keys(data);
  return keys.length > 0 && keys.every((k) => /^\d+$/.test(k));
}

const ARTICLES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'a JSON object',
  array: 'an array',
  null: 'null',
};

/** What a property's schema accepts, worded to follow "must be", when the schema says it simply. */
function accepted(schema: PropertySchema | undefined): string | undefined {
  if (schema === undefined) return undefined;
  if (schema.errorMessage?.startsWith('must be ')) return schema.errorMessage.slice('must be '.length);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const choices = schema.enum ?? (schema.anyOf?.every((s) => s.const !== undefined) ? schema.anyOf.map((s) => s.const) : undefined);
  if (choices) return `one of: ${choices.map((v) => JSON.stringify(v)).join(', ')}`;
  return typeof schema.type === 'string' ? ARTICLES[schema.type] : undefined;
}

function describe(issue: SchemaIssue): string {
  if (issue.parentSchema?.errorMessage && issue.keyword !== 'required') return issue.parentSchema.errorMessage;
  const p = issue.params;
  switch (issue.keyword) {
    case 'required': {
      // The missing property's schema says what to send: "person is required; it must be a JSON object".
      const shape = accepted(issue.parentSchema?.properties?.[String(p.missingProperty)]);
      return shape === undefined ? 'is required' : `is required; it must be ${shape}`;
    }
    case 'type': {
      const types = String(p.type).split(',').map((t) => ARTICLES[t] ?? t);
      return `must be ${types.join(' or ')}`;
    }
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters long`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'minItems':
      return `must have at least ${String(p.limit)} elements`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} elements`;
    case 'additionalProperties':
      return `has an unknown property "${String(p.additionalProperty)}"`;
    default:
      return issue.message ?? 'is not valid';
  }
}
