// Wire shapes of the unsubscribe list (reference §5.11): no id, just the address and when it was added.
import { Type, type Static } from 'typebox';
import type { Unsubscribe } from '../../domain/unsubscribes.ts';
import { Timestamp } from './common.ts';

export const UnsubscribeWire = Type.Object(
  { type: Type.Literal('unsubscribe'), email: Type.String(), created_at: Timestamp },
  { examples: [{ type: 'unsubscribe', email: 'ada@acme.com', created_at: '2025-02-17T16:00:00.000Z' }] },
);

export const CreateUnsubscribeBody = Type.Object(
  { email: Type.String() },
  { examples: [{ email: 'ada@acme.com' }] },
);

export const renderUnsubscribe = (u: Unsubscribe): Static<typeof UnsubscribeWire> => ({ type: 'unsubscribe', email: u.email, created_at: u.createdAt });
