// Wire shape of inboxes (reference §5.6).
import { Type, type Static } from 'typebox';
import type { Inbox } from '../../domain/inboxes.ts';
import type { Tagset } from '../../domain/tagsets.ts';
import { Timestamp } from './common.ts';

export const InboxWire = Type.Object({
  id: Type.String(),
  type: Type.Literal('inbox'),
  name: Type.String(),
  tagsets: Type.Array(Type.Object({ id: Type.String(), type: Type.Literal('tagset') })),
  can_read: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** `tagsets`: the tagsets available in this inbox. */
export function renderInbox(inbox: Inbox, tagsets: Tagset[]): Static<typeof InboxWire> {
  return {
    id: inbox.id,
    type: 'inbox',
    name: inbox.name,
    tagsets: tagsets.map((t) => ({ id: t.id, type: 'tagset' })),
    can_read: true,
    created_at: inbox.createdAt,
    updated_at: inbox.updatedAt,
  };
}
