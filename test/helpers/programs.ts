// Programs and templates made through the Tycho extension, for the tests that send messages from them.
import assert from 'node:assert/strict';
import type { Harness } from './harness.ts';

/** A program, published with trigger api unless `body` says otherwise. */
export async function makeProgram(h: Harness, body: Record<string, unknown> = {}, key?: string): Promise<any> {
  const res = await h.post('/v0/tycho/programs', { status: 'published', trigger: 'api', ...body }, key ? { key } : {});
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export async function makeTemplate(h: Harness, programId: string, subject = 'Hello {{ person.name }}', markdown = 'Hi {{ first_name }}', key?: string): Promise<any> {
  const res = await h.post('/v0/tycho/program_templates', { program_id: programId, subject, body: { markdown } }, key ? { key } : {});
  assert.equal(res.status, 201, res.text);
  return res.body;
}
