// How the journal keeps a body: secrets redacted, long bodies cut — and a secret beyond the cut never kept.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BODY_LIMIT, holdBody, journalBody, journalEntry } from '../../src/domain/journal.ts';

describe('journal bodies', () => {
  it('redacts a secret property inside the kept part of a long body', () => {
    const kept = journalBody(JSON.stringify({ password: 'hunter2', filler: 'x'.repeat(2 * BODY_LIMIT) }))!;
    assert.ok(!kept.includes('hunter2'));
    assert.match(kept, /^\{"password":"\[redacted\]"/);
    assert.match(kept, /more characters\]$/);
  });

  it('cuts a secret that lies beyond the kept part without parsing the body', () => {
    const text = JSON.stringify({ filler: 'x'.repeat(2 * BODY_LIMIT), api_key: 'sekrit' });
    const kept = journalBody(text)!;
    assert.ok(!kept.includes('sekrit'));
    assert.equal(kept.slice(0, BODY_LIMIT), text.slice(0, BODY_LIMIT), 'kept as sent, up to the cut');
  });

  it('keeps short bodies without secrets as they are, and non-JSON text only cut', () => {
    assert.equal(journalBody('{"name":"Ada"}'), '{"name":"Ada"}');
    assert.equal(journalBody('token=abc'), 'token=abc');
    assert.equal(journalBody(''), null);
  });

  it('holds a long body in its kept form from the start, a short one as it came, with the same entry either way', () => {
    const long = JSON.stringify({ secret: 'hunter2', filler: 'é'.repeat(2 * BODY_LIMIT) });
    assert.deepEqual(holdBody(long), { kept: journalBody(long) });
    assert.equal(holdBody('{"name":"Ada"}'), '{"name":"Ada"}');
    assert.equal(holdBody(undefined), undefined);
    const request = { id: 'j', occurredAt: '', orgId: 'o', requestId: 'r', method: 'GET', url: '/v0/x', status: 200, latencyMs: 1, headers: {} };
    const held = journalEntry({ ...request, requestBody: holdBody('{"token":"t"}'), responseBody: holdBody(long) });
    assert.equal(held.requestBody, '{"token":"[redacted]"}');
    assert.equal(held.responseBody, journalBody(long));
    assert.ok(!held.responseBody!.includes('hunter2'));
  });
});
