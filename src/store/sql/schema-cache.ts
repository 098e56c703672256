// A cache of collection schemas (collection, fields, funnels), valid across processes: every change to a
// collection, field or funnel gives the organization a fresh schema tag, and an entry is used only while the
// tag it was loaded under is current. Tags are never reused, so entries loaded inside a transaction that later
// rolled back can never match again. Where the engine's change tokens are exact (SQLite), the tag itself is
// remembered until the `schemas` token moves, so a read or write costs no query for it.
import type { Kysely } from 'kysely';
import { changeCache, type ChangeCache } from '../../domain/change-cache.ts';
import { newId } from '../../domain/ids.ts';
import type { Store, SchemaParts } from '../../domain/ports/store.ts';
import type { Database } from './schema.ts';
import type { Engine, Later } from './sql-store.ts';

const MAX_ENTRIES = 1000;

/** Transactions (their Kysely handles) that changed a schema: what they read of schemas may yet roll back. */
const changedSchemas = new WeakSet<Kysely<Database>>();

/** Every schema change announces itself through here. */
export async function announceSchemaChange(db: Kysely<Database>, engine: Pick<Engine, 'announce'>): Promise<void> {
  changedSchemas.add(db);
  await engine.announce(db, 'schemas');
}

export async function bumpSchemaTag(db: Kysely<Database>, engine: Pick<Engine, 'announce'>, orgId: string): Promise<void> {
  await db.updateTable('organizations').set({ schema_tag: newId() }).where('id', '=', orgId).execute();
  await announceSchemaChange(db, engine);
}

const tagQuery = (db: Kysely<Database>, orgId: string) => db.selectFrom('organizations').select('schema_tag').where('id', '=', orgId);

export async function readSchemaTag(db: Kysely<Database>, orgId: string): Promise<string | undefined> {
  return (await tagQuery(db, orgId).executeTakeFirst())?.schema_tag;
}

/** A collection's schema as its repositories hold it: what the cache keeps, and what migrations render items with. */
export async function readSchemaParts(
  repos: Pick<Store, 'collections' | 'fields' | 'funnels'>,
  orgId: string,
  collectionKey: string,
): Promise<SchemaParts | undefined> {
  const collection = await repos.collections.find(orgId, collectionKey);
  if (!collection) return undefined;
  const fields = await repos.fields.listByCollection(orgId, collection.id);
  const funnelIds = [...new Set(fields.flatMap((f) => (f.config.funnelId ? [f.config.funnelId] : [])))];
  return { collection, fields, funnels: await repos.funnels.findMany(orgId, funnelIds) };
}

export class SchemaCache {
  private readonly entries = new Map<string, { tag: string; parts: SchemaParts }>();
  /** The tag each organization's schema had when this process last read it: what a write may guess (lastTag). */
  private readonly lastTags = new Map<string, string>();
  /** Current tags by organization, while the `schemas` token stays the same (exact tokens only). */
  private readonly tags: ChangeCache<string, string | undefined> | undefined;

  constructor(engine?: Pick<Engine, 'exactChangeTokens' | 'changeToken'>) {
    if (engine?.exactChangeTokens) this.tags = changeCache(() => engine.changeToken('schemas'), MAX_ENTRIES);
  }

  /**
   * The organization's current tag. One remembered is used inside a transaction too, as any schema change
   * since — even one made earlier in the same transaction — has moved the token. A tag read inside a
   * transaction is remembered unless that transaction has changed a schema (it may roll the change back):
   * transactions run one at a time, so what else it can see is committed or in its batch, whose failure to
   * commit moves every token (sqlite/open.ts).
   */
  tag(db: Kysely<Database>, orgId: string, inTransaction: boolean): Promise<string | undefined> {
    const read = () => readSchemaTag(db, orgId);
    return this.tags ? this.tags.get(orgId, read, () => !inTransaction || !changedSchemas.has(db)) : read();
  }

  /**
   * Inside a transaction, under the schema lock: the tag, as a promise of it — read ahead where the engine
   * can (resolves once the read is on its way; its answer comes with the next statement waited for).
   */
  async heldTag(db: Kysely<Database>, orgId: string, readAhead: Engine['readAhead']): Promise<Later<string | undefined>> {
    if (this.tags || !readAhead) {
      const tag = this.tag(db, orgId, true);
      // A transaction that fails before it loads the schema never reads the tag: no unhandled rejection.
      tag.catch(() => {});
      return { answer: () => tag };
    }
    const later = await readAhead(db, tagQuery(db, orgId));
    return { answer: async () => (await later.answer())[0]?.schema_tag };
  }

  /** The organization's tag as this process last read it, whether or not it is still current; no query. */
  lastTag(orgId: string): string | undefined {
    return this.lastTags.get(orgId);
  }

  /** Forgets the organization's last tag, found to have moved: the next write reads it. */
  forgetTag(orgId: string): void {
    this.lastTags.delete(orgId);
  }

  /** The parts last loaded for the collection, whether or not they are still current; no query. */
  recent(orgId: string, collectionKey: string): SchemaParts | undefined {
    return this.recentEntry(orgId, collectionKey)?.parts;
  }

  /** `recent`, with the tag the parts were loaded under: they are current while it is. */
  recentEntry(orgId: string, collectionKey: string): { tag: string; parts: SchemaParts } | undefined {
    return this.entries.get(`${orgId}/${collectionKey}`);
  }

  /** `knownTag`: the tag read under the schema lock in this transaction. */
  async get(
    db: Kysely<Database>,
    orgId: string,
    collectionKey: string,
    knownTag: string | undefined,
    inTransaction: boolean,
    load: () => Promise<SchemaParts | undefined>,
  ): Promise<SchemaParts | undefined> {
    const tag = knownTag ?? (await this.tag(db, orgId, inTransaction));
    if (tag === undefined) return undefined;
    if (this.lastTags.get(orgId) !== tag) {
      this.lastTags.delete(orgId);
      if (this.lastTags.size >= MAX_ENTRIES) this.lastTags.delete(this.lastTags.keys().next().value!);
      this.lastTags.set(orgId, tag);
    }
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
