// The checked form of an item query: filters and sort keys resolved to fields and to the index column their
// keys live in, with values already normalised like index keys. The store compiles this to SQL.

export type ValueOp = 'starts_with' | 'ends_with' | 'contains' | 'not_contains' | 'eq' | 'not_eq' | 'gt' | 'lt' | 'gte' | 'lte';

/** Where a field's comparable key lives: the index's text or number key, or the item's own timestamps. */
export type KeyColumn = 'text' | 'num' | 'created_at' | 'updated_at';

/** `suffix` is the reversed text key: ends_with is a prefix range on it. */
export type FilterColumn = KeyColumn | 'suffix';

export type FilterNode =
  | {
      kind: 'value';
      fieldId: string;
      column: FilterColumn;
      op: ValueOp;
      key: string | number;
      /** The field has few distinct values (choice, stage, boolean): each one matches many items. */
      dense?: boolean;
    }
  | { kind: 'exists'; fieldId: string; column: KeyColumn }
  | { kind: 'and' | 'or'; filters: FilterNode[] }
  | { kind: 'not'; filter: FilterNode };

export interface SortKey {
  /** The relation field to follow first (`organization` of `organization.name`), if any. */
  via?: string;
  /** The sorted field's ids (several when a relation path reaches several collections). */
  fieldIds: string[];
  column: KeyColumn | 'id';
  desc: boolean;
}

export interface ItemQuery {
  collectionId: string;
  filter?: FilterNode;
  sort: SortKey[];
}
