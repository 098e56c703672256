// How the journal keeps a body: secrets redacted, long bodies cut — and a secret beyond the cut never kept.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BODY_LIMIT, journalBody } from '../../src/domain/journal.ts';

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
});
