// The built-in collections every organization starts with, and their system fields beyond the base three.
import type { CollectionSpec } from './collections.ts';

export const SYSTEM_COLLECTIONS: CollectionSpec[] = [
  {
    name: 'People',
    ref: 'people',
    kind: 'system',
    iconName: 'user',
    fields: [
      { name: 'Email', ref: 'email', type: 'field/email', cardinality: 'many', kind: 'system' },
      { name: 'Phone', ref: 'phone', type: 'field/telephone_number', cardinality: 'many', kind: 'system' },
      { name: 'Job title', ref: 'job_title', type: 'field/text/single_line', kind: 'system' },
      { name: 'LinkedIn', ref: 'linked_in', type: 'field/uri/social_linked_in', kind: 'system' },
      { name: 'X', ref: 'x', type: 'field/uri/social_x', kind: 'system' },
    ],
  },
  {
    name: 'Organizations',
    ref: 'organizations',
    kind: 'system',
    iconName: 'building',
    fields: [
      { name: 'Domain', ref: 'domain', type: 'field/uri/domain', cardinality: 'many', kind: 'system' },
      { name: 'LinkedIn', ref: 'linked_in', type: 'field/uri/social_linked_in', kind: 'system' },
      { name: 'X', ref: 'x', type: 'field/uri/social_x', kind: 'system' },
    ],
  },
  {
    name: 'Deals',
    ref: 'deals',
    kind: 'system',
    iconName: 'handshake',
    fields: [
      { name: 'Amount', ref: 'amount', type: 'field/number/monetary', kind: 'system', config: { defaultUnit: 'USD' } },
      { name: 'Close date', ref: 'close_date', type: 'field/date', kind: 'system' },
    ],
  },
  {
    name: 'Tasks',
    ref: 'tasks',
    kind: 'system',
    iconName: 'check-square',
    fields: [
      { name: 'Due date', ref: 'due_date', type: 'field/date', kind: 'system' },
      { name: 'Completed', ref: 'completed', type: 'field/boolean', kind: 'system' },
    ],
  },
];
