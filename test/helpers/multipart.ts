// Hand-built multipart/form-data bodies for upload tests, and fetching a signed download URL through the app.
import type { Harness, Response } from './harness.ts';
import { everyRecord } from '../../src/domain/inbox-messages.ts';

export const BOUNDARY = 'TychoTestBoundary7MA4YWxkTrZu0gW';

export type Part =
  | { name: string; value: string; contentType?: string }
  | { name: string; filename: string; content: string | Buffer; contentType?: string };

/** The bytes of a multipart body holding `parts`, in order. */
export function multipartBody(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if ('filename' in part) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    else if ('filename' in part) head += 'Content-Type: text/plain\r\n';
    head += '\r\n';
    chunks.push(Buffer.from(head), Buffer.from('filename' in part ? part.content : part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** POSTs a multipart body. */
export function postMultipart(h: Harness, url: string, parts: Part[], key?: string): Promise<Response> {
  return h.request('POST', url, {
    payload: multipartBody(parts),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    ...(key ? { key } : {}),
  });
}

/** Fetches an absolute download URL from a response through the app, without a bearer token. */
export function download(h: Harness, downloadUrl: string): Promise<Response> {
  const url = new URL(downloadUrl);
  return h.request('GET', url.pathname + url.search, { key: null });
}

/** The same, returning the raw bytes of the response too (binary-safe). */
export async function downloadBytes(h: Harness, downloadUrl: string): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }> {
  const url = new URL(downloadUrl);
  const res = await h.app.inject({ method: 'GET', url: url.pathname + url.search });
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload };
}

/** The keys in the harness's blob store under the organization (the harness's own by default), sorted. */
export async function storedKeys(h: Harness, orgId = h.orgId): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of h.blobs.list()) if (blob.key.startsWith(`${orgId}/`)) keys.push(blob.key);
  return keys.sort();
}

/** The blob keys the organization's file and attachment rows name, sorted: what its part of the store should hold. */
export async function referencedKeys(h: Harness, orgId = h.orgId): Promise<string[]> {
  const rows = [...(await everyRecord(h.store.files, orgId, {})), ...(await everyRecord(h.store.attachments, orgId, {}))];
  return rows.map((r) => r.blobKey).sort();
}
