// parseRubyInspect: the printed Ruby hashes that releases 0.1.0-alpha.3 to alpha.9 of the Ruby SDK sent as a
// nested query parameter (`filter=…`), in the Ruby ≤ 3.3 (`:k=>v`) and Ruby 3.4 (`k: v`) spellings.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRubyInspect } from '../../src/http/list-query.ts';

describe('parseRubyInspect', () => {
  it('reads the hashes the SDK printed', () => {
    const cases: [string, unknown][] = [
      ['{:inbox_id=>{:eq=>"1CLJt2v5pkpkAnvdgXfEcF"}}', { inbox_id: { eq: '1CLJt2v5pkpkAnvdgXfEcF' } }],
      ['{inbox_id: {eq: "1CLJt2v5pkpkAnvdgXfEcF"}}', { inbox_id: { eq: '1CLJt2v5pkpkAnvdgXfEcF' } }],
      ['{:inbox_id=>{:eq=>"a"}, :conversation_id=>{:eq=>"b"}}', { inbox_id: { eq: 'a' }, conversation_id: { eq: 'b' } }],
      ['{ inbox_id: { eq: "a" }, conversation_id: { eq: "b" } }', { inbox_id: { eq: 'a' }, conversation_id: { eq: 'b' } }],
      // Symbols (enum values) and times, as activities' filter printed them.
      [
        '{:type=>{:in=>[:"activity/item_created", :"activity/note_created"]}, :occurred_at=>{:gte=>2025-01-01 00:00:00 UTC, :lte=>2025-02-01 12:30:00 -0500}, :item_id=>{:eq=>"x"}}',
        {
          type: { in: ['activity/item_created', 'activity/note_created'] },
          occurred_at: { gte: '2025-01-01 00:00:00 UTC', lte: '2025-02-01 12:30:00 -0500' },
          item_id: { eq: 'x' },
        },
      ],
      ['{type: {in: [:"activity/item_created"]}, occurred_at: {gte: 2025-01-01 00:00:00.5 UTC}}', { type: { in: ['activity/item_created'] }, occurred_at: { gte: '2025-01-01 00:00:00.5 UTC' } }],
      // String keys in both spellings, plain symbols, nil (left out), booleans and numbers as text.
      ['{"inbox_id"=>{"eq"=>"a"}}', { inbox_id: { eq: 'a' } }],
      ['{"inbox_id": {"eq": "a"}}', { inbox_id: { eq: 'a' } }],
      ['{:state=>:active, :gone=>nil, :flag=>true, :limit=>5}', { state: 'active', flag: 'true', limit: '5' }],
      // Escapes inside strings.
      ['{:eq=>"a\\"b\\\\c\\n\\u00e9\\u{1F680}"}', { eq: 'a"b\\c\né🚀' }],
      // Empty containers.
      ['{}', {}],
      ['{:in=>[]}', { in: [] }],
    ];
    for (const [text, expected] of cases) assert.deepEqual(parseRubyInspect(text), expected, text);
  });

  it('gives undefined for text that is no printed value', () => {
    for (const text of ['', '{', '{:inbox_id=>', '{:a=>"b"', '{:a=>"b"}}', '{a=>"b"}', '{:a "b"}', '{:a=>"b" :c=>"d"}', '[1, 2', '{:a=>"unterminated}', '{:a=>}', '{::a=>1}']) {
      assert.equal(parseRubyInspect(text), undefined, JSON.stringify(text));
    }
  });
});
