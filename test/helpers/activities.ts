// Reading back what the API recorded: ids of a list page, activities by type or by entity.
import assert from 'node:assert/strict';
import type { Harness } from './harness.ts';

/** The ids on one page of `url` (asserting 200). */
export async function listIds(h: Harness, url: string, key?: string): Promise<string[]> {
  const res = await h.get(url, key ? { key } : {});
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((x: any) => x.id);
}

/** Every activity (at most 100) of one type. */
export async function activitiesOfType(h: Harness, type: string): Promise<any[]> {
  const res = await h.get(`/v0/activities?limit=100&type[eq]=${type}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** Every activity (at most 100) whose constituents include the entity; `extra` adds filters. */
export async function activitiesOf(h: Harness, type: string, id: string, extra = ''): Promise<any[]> {
  const res = await h.get(`/v0/activities?limit=100&constituent_entity_type[eq]=${type}&constituent_entity_id[eq]=${id}${extra}`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.meta.cursors.next, undefined);
  return res.body.data;
}
