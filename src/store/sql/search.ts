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

/** The organization's fields of these types, through the `fields_org_type` index (exported so a test can check its plan). */
export const fieldsOfTypes = (db: Kysely<Database>, orgId: string, types: readonly string[]) =>
  db.selectFrom('fields').select(['id', 'collection_id', 'type']).where('org_id', '=', orgId).where('type', 'in', types).orderBy('id');

/** One field's values, looked for by one prefix. */
export interface PrefixLeg {
  fieldId: string;
  prefix: string;
}

/**
 * For each leg, up to `limit` values of its field whose text key starts with its prefix: one range scan of the
 * item_values_text index per leg, stopped after `limit` rows, all legs in one statement (exported so a test can
 * check its plan). On SQLite the legs are a `union all`. On PostgreSQL, which planned such a union afresh on
 * every execution (1–3 ms of a search, for a dozen legs), they are rows of arrays joined to the scan `lateral`:
 * one small statement, whatever the number of legs.
 */
export function textPrefixQuery(db: Kysely<Database>, legs: PrefixLeg[], limit: number, form: 'union' | 'lateral') {
  if (form === 'lateral') {
    return textPrefixLateral(
      db,
      legs.map((l) => l.fieldId),
      legs.map((l) => l.prefix),
      limit,
    );
  }
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

/** The PostgreSQL form of `textPrefixQuery`: the legs' fields and prefixes as two arrays (or their slots). */
function textPrefixLateral(db: Kysely<Database>, fieldIds: unknown, prefixes: unknown, limit: number) {
  const query = sql<PrefixRow>`select v.field_id, v.item_id, v.key_text
    from unnest(cast(${fieldIds} as text[]), cast(${prefixes} as text[])) as leg(field_id, prefix)
    cross join lateral (
      select field_id, item_id, key_text from item_values
      where field_id = leg.field_id and key_text >= leg.prefix and key_text < leg.prefix || ${TOP}
      order by key_text, item_id
      limit ${rowLimit(limit)}
    ) as v`;
  return { compile: () => query.compile(db), execute: async () => (await query.execute(db)).rows };
}

type PrefixRow = { field_id: string; item_id: string; key_text: string | null };

/** `lateral`: the engine runs `textPrefixQuery`'s lateral form (`Engine.lateralJoins`). */
export function searchRepo(db: Kysely<Database>, shapes: Shapes, lateral: boolean): SearchRepo {
  return {
    async textPrefix(orgId, searches, limit) {
      if (searches.length === 0) return [];
      const { bind, values: fieldValues } = new Binder();
      const [owner, types] = [bind(orgId), [...new Set(searches.flatMap((s) => s.fieldTypes))].map(bind)];
      const fieldsStatement = shapes.statement(`search.fields ${types.length}`, fieldValues, () => fieldsOfTypes(db, owner, types));
      const fields = (await db.executeQuery(fieldsStatement)).rows;
      const collectionOf = new Map(fields.map((f) => [f.id, f.collection_id]));
      const match = (r: PrefixRow): TextMatch => ({
        itemId: r.item_id,
        fieldId: r.field_id,
        collectionId: collectionOf.get(r.field_id)!,
        key: r.key_text!,
      });
      const legs = searches.flatMap(({ fieldTypes, prefix }) => fields.flatMap((f) => (fieldTypes.includes(f.type) ? [{ fieldId: f.id, prefix }] : [])));
      const matches: TextMatch[] = [];
      if (lateral) {
        if (legs.length === 0) return [];
        const statement = shapes.statement(`search.textPrefix lateral ${limit}`, [legs.map((l) => l.fieldId), legs.map((l) => l.prefix)], () =>
          textPrefixLateral(db, slot(0), slot(1), limit),
        );
        return (await db.executeQuery(statement)).rows.map(match);
      }
      for (let i = 0; i < legs.length; i += LEGS_PER_STATEMENT) {
        const some = legs.slice(i, i + LEGS_PER_STATEMENT);
        // Built once per number of legs and cap, over slots (shapes.ts): building it afresh cost a quarter of a search.
        const values = some.flatMap(({ fieldId, prefix }) => [fieldId, prefix]);
        const statement = shapes.statement(`search.textPrefix ${some.length} ${limit}`, values, () =>
          textPrefixQuery(db, some.map((_, n) => ({ fieldId: slot(2 * n), prefix: slot(2 * n + 1) })), limit, 'union'),
        );
        matches.push(...(await db.executeQuery(statement)).rows.map(match));
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
