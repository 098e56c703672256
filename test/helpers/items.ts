// Small builders shared by the item tests: value objects, collections and fields made through HTTP, items
// created through HTTP, and a walk over every page of a list.
import assert from 'node:assert/strict';
import type { Harness, RequestOptions, Response } from './harness.ts';

/** A `{type, data}` value param. */
export const val = (type: string, data: unknown) => ({ type: `value/${type}`, data });

export const text = (data: string) => val('text/single_line', data);
export const email = (data: string) => val('email', data);
export const int = (data: number) => val('number/unitless_integer', data);

/** Creates a custom collection (optionally with another org's key); returns its body. */
export async function makeCollection(h: Harness, name: string, key?: string): Promise<any> {
  const res = await h.post('/v0/collections', { name }, key ? { key } : {});
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export type CollectionPointer = { id: string; type: 'collection'; ref: string };

/** The pointer responses use for the collection with `ref` (e.g. an association's `collection`). */
export async function collectionPointer(h: Harness, ref: string): Promise<CollectionPointer> {
  const res = await h.get(`/v0/collections/${ref}`);
  assert.equal(res.status, 200, res.text);
  return { id: res.body.id, type: 'collection', ref };
}

/** Creates a field on a collection (id or ref); returns its body. */
export async function makeField(h: Harness, collection: string, body: Record<string, unknown>): Promise<any> {
  const res = await h.post(`/v0/collections/${collection}/fields`, body);
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Creates an item through HTTP, asserting 201; returns its body. */
export async function makeItem(h: Harness, collection: string, values: Record<string, unknown>, options: RequestOptions = {}): Promise<any> {
  const res = await h.post(`/v0/collections/${collection}/items`, { values }, options);
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Asserts a 422 pointing at `pointer`; returns the error's detail. */
export function assertInvalid(res: Response, pointer: string): string {
  assert.equal(res.status, 422, res.text);
  const error = res.body?.errors?.[0];
  assert.equal(res.body?.type, 'errors', res.text);
  assert.equal(error?.source?.pointer, pointer, res.text);
  assert.equal(typeof error?.detail, 'string');
  return error.detail as string;
}

/**
 * Follows `meta.cursors.next` from the first page to the last; `fetch` gets the extra query string (`''` or
 * `after=…`). Returns every page's body.
 */
export async function walkForward(fetch: (query: string) => Promise<Response>): Promise<any[]> {
  const pages: any[] = [];
  let query = '';
  for (let guard = 0; guard < 100; guard++) {
    const res = await fetch(query);
    assert.equal(res.status, 200, res.text);
    pages.push(res.body);
    const next = res.body.meta.cursors.next;
    if (!next) return pages;
    query = `after=${encodeURIComponent(next)}`;
  }
  throw new Error('pagination did not end');
}
