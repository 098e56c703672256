// The View object (reference §5.4) without its optional `collection`: what `include[]=views` lists on a
// collection. The saved filter and sort are not exposed, as on the hosted service.
import { Type, type Static } from 'typebox';
import type { View } from '../../domain/views.ts';
import { Timestamp } from './common.ts';

export const viewProperties = {
  id: Type.String(),
  type: Type.Literal('view'),
  name: Type.String(),
  view_type: Type.Union([Type.Literal('table'), Type.Literal('board')]),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const ViewSummary = Type.Object(viewProperties, {
  examples: [{ id: '1CLJt2v5VxKe2RbWm7Ycht', type: 'view', name: 'Gold accounts', view_type: 'table', created_at: '2025-02-17T16:00:00.000Z', updated_at: '2025-02-17T16:00:00.000Z' }],
});

export function renderViewSummary(v: View): Static<typeof ViewSummary> {
  return { id: v.id, type: 'view', name: v.name, view_type: v.viewType, created_at: v.createdAt, updated_at: v.updatedAt };
}
