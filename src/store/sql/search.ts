// Global search (reference §5.20): item values by prefix of their normalised text key, one bounded range scan
// of the item_values_text index (field_id, key_text, item_id) per text-like field of the organization; files
// by name among the organization's files.
import { sql, type Kysely } from 'kysely';
import type { SearchRepo, TextMatch } from '../../domain/ports/store.ts';
import type { Database } from './schema.ts';
import { Binder, slot, type Shapes } from './shapes.ts';
import { fileMapping } from './library.ts';
import { rowLimit } from './keyset.ts';

/** Above every character a key can hold: the end of a prefix range. */
const TOP = '\u{10FFFF}';

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Legs of one global search statement at most: SQLite refuses a compound SELECT of more than 500. */
const LEGS_PER_STATEMENT = 100;

/** One field's values, looked for by one prefix. */
export interface PrefixLeg {
  fieldId: string;
  prefix: string;
}

/**
 * For each leg, up to `limit` values of its field whose text key starts with its prefix: one range scan of the
 * item_values_text index per leg, stopped after `limit` rows, all legs in one statement (`union all`), which on
 * PostgreSQL is one round trip where a statement per field and prefix took one each (exported so a test can
 * check its plan).
 */
export function textPrefixQuery(db: Kysely<Database>, legs: PrefixLeg[], limit: number) {
  const leg = ({ fieldId, prefix }: PrefixLeg) =>
    db
      .selectFrom((inner) =>
        inner
          .selectFrom('item_values')
          .select(['field_id', 'item_id', 'key_text'])
          .where('field_id', '=', fieldId)
          .where('key_text', '>=', prefix)
          .where('key_text', '<', `${prefix}${TOP}`)
          .orderBy('field_id')
          .orderBy('key_text')
          .orderBy('item_id')
          .limit(rowLimit(limit))
          .as('leg'),
      )
      .select(['leg.field_id', 'leg.item_id', 'leg.key_text']);
  const [first, ...rest] = legs.map(leg);
  if (!first) throw new Error('textPrefixQuery needs at least one leg');
  return rest.reduce((union, next) => union.unionAll(next), first);
}

export function searchRepo(db: Kysely<Database>, shapes: Shapes): SearchRepo {
  return {
    async textPrefix(orgId, searches, limit) {
      if (searches.length === 0) return [];
      const { bind, values: fieldValues } = new Binder();
      const [owner, types] = [bind(orgId), [...new Set(searches.flatMap((s) => s.fieldTypes))].map(bind)];
      const fieldsStatement = shapes.statement(`search.fields ${types.length}`, fieldValues, () =>
        db.selectFrom('fields').select(['id', 'collection_id', 'type']).where('org_id', '=', owner).where('type', 'in', types).orderBy('id'),
      );
      const fields = (await db.executeQuery(fieldsStatement)).rows;
      const collectionOf = new Map(fields.map((f) => [f.id, f.collection_id]));
      const legs = searches.flatMap(({ fieldTypes, prefix }) => fields.flatMap((f) => (fieldTypes.includes(f.type) ? [{ fieldId: f.id, prefix }] : [])));
      const matches: TextMatch[] = [];
      for (let i = 0; i < legs.length; i += LEGS_PER_STATEMENT) {
        const some = legs.slice(i, i + LEGS_PER_STATEMENT);
        // Built once per number of legs and cap, over slots (shapes.ts): building it afresh cost a quarter of a search.
        const values = some.flatMap(({ fieldId, prefix }) => [fieldId, prefix]);
        const statement = shapes.statement(`search.textPrefix ${some.length} ${limit}`, values, () =>
          textPrefixQuery(db, some.map((_, n) => ({ fieldId: slot(2 * n), prefix: slot(2 * n + 1) })), limit),
        );
        for (const r of (await db.executeQuery(statement)).rows) {
          matches.push({ itemId: r.item_id, fieldId: r.field_id, collectionId: collectionOf.get(r.field_id)!, key: r.key_text! });
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
        .limit(rowLimit(limit))
        .execute();
      return rows.map(fileMapping.toModel);
    },
  };
}
