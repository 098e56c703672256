// Global search (reference §5.20): item values by prefix of their normalised text key, one bounded range scan
// of the item_values_text index (field_id, key_text, item_id) per text-like field of the organization; files
// by name among the organization's files.
import { sql, type Kysely } from 'kysely';
import type { SearchRepo, TextMatch } from '../../domain/ports/store.ts';
import type { Database } from './schema.ts';
import { fileNameKey } from '../../domain/files.ts';
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

/** The values of an organization's fields of one type, looked for by one prefix. */
export interface TypedPrefixLeg {
  type: string;
  prefix: string;
}

/**
 * For each leg, up to `limit` values of its field whose text key starts with its prefix: one range scan of the
 * item_values_text index per leg, stopped after `limit` rows, all legs in one `union all` (SQLite's form;
 * exported so a test can check its plan).
 */
export function textPrefixUnion(db: Kysely<Database>, legs: PrefixLeg[], limit: number) {
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
  if (!first) throw new Error('textPrefixUnion needs at least one leg');
  return rest.reduce((union, next) => union.unionAll(next), first);
}

/**
 * PostgreSQL's form (`Engine.lateralJoins`): for each leg, the organization's fields of its type through the
 * `fields_org_type` index, and for each of them up to `limit` values whose text key starts with the leg's
 * prefix — one capped range scan of item_values_text, joined `lateral`. The legs travel as two arrays, so the
 * statement is one small text whatever their number (PostgreSQL planned a union of legs afresh on every
 * execution: 1–3 ms of a search for a dozen), and the fields come in the same round trip as their values.
 * `orgId`, `types` and `prefixes` are values or slots (exported so a test can check its plan).
 */
export function textPrefixByType(db: Kysely<Database>, orgId: unknown, types: unknown, prefixes: unknown, limit: number) {
  const query = sql<PrefixRow & { collection_id: string }>`select v.field_id, f.collection_id, v.item_id, v.key_text
    from unnest(cast(${types} as text[]), cast(${prefixes} as text[])) as leg(type, prefix)
    join fields as f on f.org_id = ${orgId} and f.type = leg.type
    cross join lateral (
      select field_id, item_id, key_text from item_values
      where field_id = f.id and key_text >= leg.prefix and key_text < leg.prefix || ${TOP}
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
      const match = (r: PrefixRow, collectionId: string): TextMatch => ({ itemId: r.item_id, fieldId: r.field_id, collectionId, key: r.key_text! });
      if (lateral) {
        const legs = searches.flatMap(({ fieldTypes, prefix }) => fieldTypes.map((type) => ({ type, prefix })));
        const statement = shapes.statement(`search.textPrefix lateral ${limit}`, [orgId, legs.map((l) => l.type), legs.map((l) => l.prefix)], () =>
          textPrefixByType(db, slot(0), slot(1), slot(2), limit),
        );
        return (await db.executeQuery(statement)).rows.map((r) => match(r, r.collection_id));
      }
      const { bind, values: fieldValues } = new Binder();
      const [owner, types] = [bind(orgId), [...new Set(searches.flatMap((s) => s.fieldTypes))].map(bind)];
      const fieldsStatement = shapes.statement(`search.fields ${types.length}`, fieldValues, () => fieldsOfTypes(db, owner, types));
      const fields = (await db.executeQuery(fieldsStatement)).rows;
      const collectionOf = new Map(fields.map((f) => [f.id, f.collection_id]));
      const legs = searches.flatMap(({ fieldTypes, prefix }) => fields.flatMap((f) => (fieldTypes.includes(f.type) ? [{ fieldId: f.id, prefix }] : [])));
      const matches: TextMatch[] = [];
      for (let i = 0; i < legs.length; i += LEGS_PER_STATEMENT) {
        const some = legs.slice(i, i + LEGS_PER_STATEMENT);
        // Built once per number of legs and cap, over slots (shapes.ts): building it afresh cost a quarter of a search.
        const values = some.flatMap(({ fieldId, prefix }) => [fieldId, prefix]);
        const statement = shapes.statement(`search.textPrefix ${some.length} ${limit}`, values, () =>
          textPrefixUnion(db, some.map((_, n) => ({ fieldId: slot(2 * n), prefix: slot(2 * n + 1) })), limit),
        );
        matches.push(...(await db.executeQuery(statement)).rows.map((r) => match(r, collectionOf.get(r.field_id)!)));
      }
      return matches;
    },
    async filesByName(orgId, text, limit) {
      const rows = await db
        .selectFrom('files')
        .selectAll()
        .where('org_id', '=', orgId)
        .where(sql<boolean>`name_key like ${`%${escapeLike(fileNameKey(text))}%`} escape '\\'`)
        .orderBy('id')
        .limit(rowLimit(limit))
        .execute();
      return rows.map(fileMapping.toModel);
    },
  };
}
