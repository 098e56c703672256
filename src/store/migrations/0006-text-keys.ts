// Long-text index keys used to join their kept prefix and digest with U+0000, which PostgreSQL cannot store
// (so only SQLite databases hold such keys). Rewrites them in the current form (see textKey in
// domain/items.ts); the keys of every other value are unchanged.
import { sql, type Kysely } from 'kysely';
import { indexKey } from '../../domain/items.ts';
import type { Field, FieldType } from '../../domain/fields.ts';

/**
 * Old long keys kept at least 1,897 bytes before the U+0000, so at least 474 characters (SQLite's length()
 * stops counting at a NUL); shorter keys cannot be old long keys.
 */
const OLD_LONG_KEY_MIN = 470;

export async function up(db: Kysely<any>): Promise<void> {
  const rows = await db
    .selectFrom('item_values as v')
    .innerJoin('items as i', 'i.id', 'v.item_id')
    .innerJoin('fields as f', 'f.id', 'v.field_id')
    .select(['v.item_id', 'v.field_id', 'v.position', 'v.key_text', 'v.key_rev', 'i.doc', 'f.type'])
    .where((eb) => eb.or([eb(sql`length(v.key_text)`, '>', OLD_LONG_KEY_MIN), eb(sql`length(v.key_rev)`, '>', OLD_LONG_KEY_MIN)]))
    .execute();
  for (const row of rows) {
    if (!`${row.key_text ?? ''}${row.key_rev ?? ''}`.includes('\u0000')) continue;
    const stored = (JSON.parse(row.doc) as Record<string, unknown[]>)[row.field_id]?.[row.position];
    if (stored === undefined) continue;
    const key = indexKey({ type: row.type as FieldType } as Field, stored);
    await db
      .updateTable('item_values')
      .set({ key_text: key.text, key_rev: key.suffix ?? null })
      .where('item_id', '=', row.item_id)
      .where('field_id', '=', row.field_id)
      .where('position', '=', row.position)
      .execute();
  }
}
