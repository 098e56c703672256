// The one Store implementation: repositories over a Kysely handle, which is either the database or the
// transaction in progress.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { SchemaParts, Store } from '../../domain/ports/store.ts';
import { SchemaCache } from './schema-cache.ts';
import type { Database } from './schema.ts';
import { organizationRepo } from './organizations.ts';
import { apiKeyRepo } from './api-keys.ts';
import { collectionRepo } from './collections.ts';
import { fieldRepo } from './fields.ts';
import { settingsRepo } from './settings.ts';
import { funnelRepo } from './funnels.ts';
import { itemRepo } from './items.ts';
import { activityRepo } from './activities.ts';
import { recordRepo } from './records.ts';
import { fileMapping, inboxMapping, noteMapping, tagsetMapping } from './library.ts';
import { attachmentMapping, conversationMapping, messageMapping } from './messages.ts';

/** The few things that really differ between engines, named as capabilities. */
export interface Engine {
  readonly name: string;
  /**
   * Makes other transactions that ask for the same key wait until this one ends, in every process sharing the
   * database. (SQLite's write transactions already exclude each other.)
   */
  serialize(db: Kysely<Database>, key: string): Promise<void>;
  /** Connections by state. */
  poolStats(): { total: number; idle: number; waiting: number };
  /** Releases connections and files. */
  close(): Promise<void>;
}

export class SqlStore implements Store {
  readonly organizations;
  readonly apiKeys;
  readonly collections;
  readonly fields;
  readonly funnels;
  readonly items;
  readonly activities;
  readonly tagsets;
  readonly notes;
  readonly inboxes;
  readonly files;
  readonly conversations;
  readonly messages;
  readonly attachments;
  readonly settings;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
    private readonly inTransaction = false,
    private readonly schemaCache = new SchemaCache(),
  ) {
    this.organizations = organizationRepo(db);
    this.apiKeys = apiKeyRepo(db);
    this.collections = collectionRepo(db);
    this.fields = fieldRepo(db);
    this.funnels = funnelRepo(db);
    this.items = itemRepo(db);
    this.activities = activityRepo(db);
    this.tagsets = recordRepo(db, 'tagsets', tagsetMapping);
    this.notes = recordRepo(db, 'notes', noteMapping);
    this.inboxes = recordRepo(db, 'inboxes', inboxMapping);
    this.files = recordRepo(db, 'files', fileMapping);
    this.conversations = recordRepo(db, 'inbox_conversations', conversationMapping);
    this.messages = recordRepo(db, 'inbox_messages', messageMapping);
    this.attachments = recordRepo(db, 'message_attachments', attachmentMapping);
    this.settings = settingsRepo(db);
  }

  transaction<T>(fn: (tx: Store) => Promise<T>, serializeOn?: string): Promise<T> {
    if (this.inTransaction) return fn(this);
    return this.db.transaction().execute(async (trx: Transaction<Database>) => {
      if (serializeOn !== undefined) await this.engine.serialize(trx, serializeOn);
      return fn(new SqlStore(trx, this.engine, true, this.schemaCache));
    });
  }

  loadSchema(orgId: string, collectionKey: string): Promise<SchemaParts | undefined> {
    return this.schemaCache.get(this.db, orgId, collectionKey, async () => {
      const collection = await this.collections.find(orgId, collectionKey);
      if (!collection) return undefined;
      const fields = await this.fields.listByCollection(orgId, collection.id);
      const funnelIds = [...new Set(fields.flatMap((f) => (f.config.funnelId ? [f.config.funnelId] : [])))];
      return { collection, fields, funnels: await this.funnels.findMany(orgId, funnelIds) };
    });
  }

  async analyze(): Promise<void> {
    await sql`analyze`.execute(this.db);
  }

  poolStats() {
    return this.engine.poolStats();
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
    await this.engine.close();
  }
}
