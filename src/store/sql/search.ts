// Global search (reference §5.20): item values by prefix of their normalised text key, one bounded range scan
// of the item_values_text index (field_id, key_text, item_id) per text-like field of the organization; files
// by name among the organization's files.
import { sql, type Kysely } from 'kysely';
import type { SearchRepo, TextMatch } from '../../domain/ports/store.ts';
import type { Database } from './schema.ts';
import { fileMapping } from './library.ts';

/** Above every character a key can hold: the end of a prefix range. */
const TOP = '\u{10FFFF}';

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Up to `limit` values of one field whose text key starts with `prefix`, in key order: one range scan of the
 * item_values_text index, stopped after `limit` rows (exported so a test can check its plan).
 */
export function textPrefixQuery(db: Kysely<Database>, fieldId: string, prefix: string, limit: number) {
  return db
    .selectFrom('item_values')
    .select(['item_id', 'key_text'])
    .where('field_id', '=', fieldId)
    .where('key_text', '>=', prefix)
    .where('key_text', '<', `${prefix}${TOP}`)
    .orderBy('field_id')
    .orderBy('key_text')
    .orderBy('item_id')
    .limit(limit);
}

export function searchRepo(db: Kysely<Database>): SearchRepo {
  return {
    async textPrefix(orgId, fieldTypes, prefixes, limit) {
      if (fieldTypes.length === 0 || prefixes.length === 0) return [];
      const fields = await db
        .selectFrom('fields')
        .select('id')
        .where('org_id', '=', orgId)
        .where('type', 'in', fieldTypes)
        .orderBy('id')
        .execute();
      const matches: TextMatch[] = [];
      for (const { id } of fields) {
        for (const prefix of prefixes) {
          const rows = await textPrefixQuery(db, id, prefix, limit).execute();
          for (const r of rows) matches.push({ itemId: r.item_id, fieldId: id, key: r.key_text! });
        }
      }
      return matches;
    },
    async filesByName(orgId, text, limit) {
      const rows = await db
        .selectFrom('files')
        .selectAll()
        .where('org_id', '=', orgId)
        .where(sql<boolean>`lower(name) like ${`%${escapeLike(text.toLowerCase())}%`} escape '\\'`)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(fileMapping.toModel);
    },
  };
}
