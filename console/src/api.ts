// The console's only way to the data: Tycho's public HTTP API with the signed-in key, exactly as any client
// would call it. Errors arrive as the API's `errors` envelope and are shown as its detail.

export interface ApiList<T> {
  type: 'list';
  data: T[];
  meta: { cursors: { prev?: string; next?: string } };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const KEY_STORAGE = 'tycho-console-key';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY_STORAGE),
  signIn: (key: string) => sessionStorage.setItem(KEY_STORAGE, key),
  signOut: () => sessionStorage.removeItem(KEY_STORAGE),
};

/** `{a: 1, "b[eq]": "x"}` → `?a=1&b%5Beq%5D=x`, leaving out undefined values. */
export function query(params: Record<string, string | number | undefined>): string {
  const entries = Object.entries(params).filter((e): e is [string, string | number] => e[1] !== undefined && e[1] !== '');
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
}

export async function api<T = unknown>(method: string, path: string, body?: unknown, key = session.key()): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const error = json?.errors?.[0];
    const where = error?.source?.pointer ?? error?.source?.parameter;
    throw new ApiError(res.status, [error?.title ?? `HTTP ${res.status}`, error?.detail, where ? `(at ${where})` : ''].filter(Boolean).join(': '));
  }
  return json as T;
}

/** The served OpenAPI document, which tells the console which optional APIs this server has. */
let documentPaths: Promise<Record<string, Record<string, unknown>>> | undefined;
export function openapiPaths(): Promise<Record<string, Record<string, unknown>>> {
  documentPaths ??= api<{ paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json', undefined, null).then((d) => d.paths);
  return documentPaths;
}
