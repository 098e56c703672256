// Wire shape of inboxes (reference §5.6). `tagsets` holds pointers, as the newest API's does, or the full
// tagsets when the request asks for them (`include[]=tagsets`). The older SDKs (Python, Go) ask with
// `include[]=tagset` and read one whole tagset from `tagset`, from the time an inbox had one: they get the
// inbox's first tagset there (null when it has none), beside `tagsets`.
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
    tagset: Type.Optional(Type.Union([TagsetWire, Type.Null()])),
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

/** What `include[]` asks of an inbox: its tagsets whole, and the older SDKs' single `tagset`. */
export function inboxIncludes(include: readonly string[] | undefined): { fullTagsets: boolean; tagset: boolean } {
  const asked = new Set(include);
  return { fullTagsets: asked.size > 0, tagset: asked.has('tagset') };
}

/** `tagsets`: the tagsets available in this inbox, in the order they are listed. */
export function renderInbox(inbox: Inbox, tagsets: Tagset[], options: Partial<ReturnType<typeof inboxIncludes>> = {}): Static<typeof InboxWire> {
  const first = tagsets[0];
  return {
    id: inbox.id,
    type: 'inbox',
    name: inbox.name,
    tagsets: tagsets.map((t) => (options.fullTagsets ? renderTagset(t) : { id: t.id, type: 'tagset' })),
    ...(options.tagset ? { tagset: first ? renderTagset(first) : null } : {}),
    can_read: true,
    created_at: inbox.createdAt,
    updated_at: inbox.updatedAt,
  };
}
