// The repository shape most organization-owned resources share (tagsets, notes, inboxes, files): rows keyed by
// id inside an organization, listed in creation order with keyset pages. Each resource supplies its mapping.
import { sql, type Kysely } from 'kysely';
import { mapPage } from '../../domain/pagination.ts';
import type { RecordRepo } from '../../domain/ports/store.ts';
import type { Database } from './schema.ts';
import { fetchPage } from './keyset.ts';

type OwnedTable = 'tagsets' | 'notes' | 'inboxes' | 'files' | 'inbox_conversations' | 'inbox_messages' | 'message_attachments';

export interface RecordMapping<T> {
  toModel(row: any): T;
  toRow(model: T): Record<string, unknown> & { id: string; org_id: string };
}

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const snake = (property: string) => property.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The usual mapping between a row and its model: snake_case columns ↔ camelCase properties, JSON columns
 * parsed, 0/1 columns as booleans; `renames` maps a column to a property of another name.
 */
export function columnMapping<T>(spec: { json?: string[]; booleans?: string[]; renames?: Record<string, string> } = {}): RecordMapping<T> {
  const json = new Set(spec.json ?? []);
  const booleans = new Set(spec.booleans ?? []);
  const renames = spec.renames ?? {};
  const columnOf = Object.fromEntries(Object.entries(renames).map(([column, property]) => [property, column]));
  return {
    toModel(row: Record<string, unknown>) {
      const model: Record<string, unknown> = {};
      for (const [column, value] of Object.entries(row)) {
        model[renames[column] ?? camel(column)] = json.has(column) ? JSON.parse(value as string) : booleans.has(column) ? value === 1 : value;
      }
      return model as T;
    },
    toRow(model: T) {
      const row: Record<string, unknown> = {};
      for (const [property, value] of Object.entries(model as Record<string, unknown>)) {
        const column = columnOf[property] ?? snake(property);
        row[column] = json.has(column) ? JSON.stringify(value) : booleans.has(column) ? (value ? 1 : 0) : value;
      }
      return row as Record<string, unknown> & { id: string; org_id: string };
    },
  };
}

export function recordRepo<T extends { id: string; orgId: string }>(
  db: Kysely<Database>,
  table: OwnedTable,
  mapping: RecordMapping<T>,
): RecordRepo<T> {
  const q = db as unknown as Kysely<any>;
  const byOrg = (orgId: string) => q.selectFrom(`${table} as r`).selectAll('r').where('r.org_id', '=', orgId);
  return {
    async insert(record) {
      await q.insertInto(table).values(mapping.toRow(record)).execute();
    },
    async update(record) {
      const { id, org_id, ...rest } = mapping.toRow(record);
      await q.updateTable(table).set(rest).where('id', '=', id).where('org_id', '=', org_id).execute();
    },
    async delete(orgId, id) {
      await q.deleteFrom(table).where('org_id', '=', orgId).where('id', '=', id).execute();
    },
    async find(orgId, id) {
      const row = await byOrg(orgId).where('r.id', '=', id).executeTakeFirst();
      return row && mapping.toModel(row);
    },
    async findMany(orgId, ids) {
      if (ids.length === 0) return [];
      return (await byOrg(orgId).where('r.id', 'in', ids).orderBy('r.id').execute()).map(mapping.toModel);
    },
    async list(orgId, page, where = {}) {
      let query = byOrg(orgId);
      for (const [column, value] of Object.entries(where)) {
        if (typeof value === 'string') query = query.where(`r.${column}`, '=', value);
        else query = value.length > 0 ? query.where(`r.${column}`, 'in', value) : query.where(sql<boolean>`1 = 0`);
      }
      const result = await fetchPage(query, [{ column: 'r.id', desc: false }], page, (r) => ({ key: [], id: r.id }));
      return mapPage(result, mapping.toModel);
    },
  };
}
