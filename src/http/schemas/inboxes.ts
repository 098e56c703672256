// Wire shape of inboxes (reference §5.6). `tagsets` holds pointers, as the newest API's does, or the full
// tagsets when the request asks for them (`include[]=tagsets`, older SDKs `include[]=tagset`).
import { Type, type Static, type TProperties } from 'typebox';
import type { Inbox } from '../../domain/inboxes.ts';
import type { Tagset } from '../../domain/tagsets.ts';
import { Timestamp } from './common.ts';
import { TagsetWire, renderTagset } from './tagsets.ts';

const TagsetPointerOrFull = Type.Object(
  Object.fromEntries(Object.entries(TagsetWire.properties).map(([k, v]) => [k, k === 'id' || k === 'type' ? v : Type.Optional(v)])) as TProperties,
);

export const InboxWire = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('inbox'),
    name: Type.String(),
    tagsets: Type.Array(TagsetPointerOrFull),
    can_read: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        id: '1CLJt2v5ZqLm2XfVb7Kdsw',
        type: 'inbox',
        name: 'Support',
        tagsets: [{ id: '1CLJt2v5Y3Hd8MvZa6Ncpx', type: 'tagset' }],
        can_read: true,
        created_at: '2025-02-17T16:00:00.000Z',
        updated_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

/** The values `include[]` takes on inboxes. */
export const INBOX_INCLUDES = ['tagsets', 'tagset'] as const;

/** `tagsets`: the tagsets available in this inbox; `fullTagsets` shows them whole instead of as pointers. */
export function renderInbox(inbox: Inbox, tagsets: Tagset[], options: { fullTagsets?: boolean } = {}): Static<typeof InboxWire> {
  return {
    id: inbox.id,
    type: 'inbox',
    name: inbox.name,
    tagsets: tagsets.map((t) => (options.fullTagsets ? renderTagset(t) : { id: t.id, type: 'tagset' })),
    can_read: true,
    created_at: inbox.createdAt,
    updated_at: inbox.updatedAt,
  };
}
