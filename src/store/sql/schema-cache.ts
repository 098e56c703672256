// A cache of collection schemas (collection, fields, funnels), valid across processes: every change to a
// collection, field or funnel gives the organization a fresh schema tag, and an entry is used only while the
// tag it was loaded under is current. Tags are never reused, so entries loaded inside a transaction that later
// rolled back can never match again.
import type { Kysely } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { SchemaParts } from '../../domain/ports/store.ts';
import type { Database } from './schema.ts';

const MAX_ENTRIES = 1000;

export async function bumpSchemaTag(db: Kysely<Database>, orgId: string): Promise<void> {
  await db.updateTable('organizations').set({ schema_tag: newId() }).where('id', '=', orgId).execute();
}

export async function readSchemaTag(db: Kysely<Database>, orgId: string): Promise<string | undefined> {
  const row = await db.selectFrom('organizations').select('schema_tag').where('id', '=', orgId).executeTakeFirst();
  return row?.schema_tag;
}

export class SchemaCache {
  private readonly entries = new Map<string, { tag: string; parts: SchemaParts }>();

  async get(
    db: Kysely<Database>,
    orgId: string,
    collectionKey: string,
    knownTag: string | undefined,
    load: () => Promise<SchemaParts | undefined>,
  ): Promise<SchemaParts | undefined> {
    const tag = knownTag ?? (await readSchemaTag(db, orgId));
    if (tag === undefined) return undefined;
    const key = `${orgId}/${collectionKey}`;
    const hit = this.entries.get(key);
    if (hit && hit.tag === tag) return hit.parts;
    const parts = await load();
    if (parts) {
      this.entries.delete(key);
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { tag, parts });
    }
    return parts;
  }
}
