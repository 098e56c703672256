// The one Store implementation: repositories over a Kysely handle, which is either the database or the
// transaction in progress.
import { sql, type Compilable, type Kysely, type Transaction } from 'kysely';
import { AppError } from '../../domain/errors.ts';
import type { DueSource, LockMode, PagePlan, SchemaParts, SchemaRead, Store } from '../../domain/ports/store.ts';
import type { ServedItem } from '../../domain/item-wire.ts';
import type { Page } from '../../domain/pagination.ts';
import { readSchemaParts, readSchemaTag, SchemaCache } from './schema-cache.ts';
import type { Database } from './schema.ts';
import { organizationRepo } from './organizations.ts';
import { apiKeyRepo } from './api-keys.ts';
import { collectionRepo } from './collections.ts';
import { fieldRepo } from './fields.ts';
import { settingsRepo } from './settings.ts';
import { funnelRepo } from './funnels.ts';
import { itemRepo, serveOneTagged } from './items.ts';
import { queryItems } from './item-queries.ts';
import { activityRepo } from './activities.ts';
import { recordRepo } from './records.ts';
import { linkRepo } from './links.ts';
import { fileMapping, inboxMapping, noteMapping, tagsetMapping } from './library.ts';
import { attachmentMapping, conversationMapping, messageMapping } from './messages.ts';
import { meetingRepo } from './meetings.ts';
import { callMapping } from './calls.ts';
import { viewMapping } from './views.ts';
import { searchRepo } from './search.ts';
import { shapesOf } from './shapes.ts';
import { programMapping, programMessageRepo, programTemplateRepo } from './programs.ts';
import { agentSettingsRepo, unsubscribeRepo } from './unsubscribes.ts';
import { formRepo } from './forms.ts';
import { orgStateRepo } from './org-state.ts';
import { clockRepo, idempotencyRepo, snapshotRepo } from './toolkit.ts';
import { journalRepo } from './journal.ts';
import { subscriptionCache, webhookDeliveryRepo, webhookEndpointRepo, type SubscriptionCache } from './webhooks.ts';

/** An answer still on its way; asking for it sends whatever the engine was holding back. */
export interface Later<T> {
  answer(): Promise<T>;
}

/** The few things that really differ between engines, named as capabilities. */
export interface Engine {
  readonly name: string;
  /**
   * Whether reads can lock the rows they return (`FOR UPDATE`, `FOR KEY SHARE`). An engine without them must
   * serialise write transactions (SQLite), where such locks would change nothing.
   */
  readonly rowLocks: boolean;
  /** Whether INSERT may run inside WITH, so a row and its dependants are written in one statement. */
  readonly writableCtes: boolean;
  /**
   * Whether a subquery in FROM may read the rows before it (`cross join lateral`) and arrays unnest into rows:
   * one capped index scan per row of an array, where SQLite needs a `union all` leg per row.
   */
  readonly lateralJoins: boolean;
  /**
   * Whether `changeToken` has moved before any reader can see the change (SQLite counts its own writes as
   * they happen and other connections' through `data_version`). PostgreSQL's tokens move when the notice
   * arrives, moments after the commit: enough for keys and clocks, not for the schema a read is checked
   * against.
   */
  readonly exactChangeTokens: boolean;
  /**
   * Takes transaction-scoped locks on these keys (sorted, distinct), in this order, waiting for other
   * transactions' conflicting locks, in every process sharing the database. An engine whose write
   * transactions already exclude each other (SQLite) needs to do nothing.
   */
  lock(db: Kysely<Database>, keys: readonly string[], mode: LockMode): Promise<void>;
  /**
   * Inside a transaction: sends a read without waiting for its answer, which its `answer` gives later,
   * so the statements after it share its round trip (postgres/pipeline.ts). Absent where statements cost no
   * round trip (SQLite).
   */
  readAhead?<R>(db: Kysely<Database>, query: Compilable<R>): Promise<Later<R[]>>;
  /**
   * Inside a transaction: sends a statement that takes the organization's shared schema lock and then fails
   * the transaction unless its schema tag is `tag` (the failure classifies as `stale-schema`), without
   * waiting for it. Where tags are read on every write (not exact change tokens), this lets a write go on with
   * the schema this process saw last instead of waiting a round trip for the tag. Absent where that wait
   * costs nothing.
   */
  guardSchema?(db: Kysely<Database>, orgId: string, tag: string): Promise<Later<unknown>>;
  /**
   * What a driver error means, read from its code: `retry` — the database aborted the transaction to break a
   * deadlock, a serialization conflict or a busy lock, or a row the write refers to was deleted concurrently,
   * and running it again may succeed; `conflict` — a unique constraint refused the write; `stale-schema` — a
   * `guardSchema` statement found another tag; undefined — anything else.
   */
  classify(error: unknown): 'retry' | 'conflict' | 'stale-schema' | undefined;
  /**
   * A token that changes whenever `topic` may have changed, in this process or in another one sharing the
   * database; undefined while the engine cannot tell (then nothing about the topic may be cached).
   */
  changeToken(topic: ChangeTopic): Promise<string | undefined>;
  /** Inside a write transaction: the topic's token changes, here now and in the other processes once it commits. */
  announce(db: Kysely<Database>, topic: ChangeTopic): Promise<void>;
  /** Calls `listener` when another process announces `topic` (where the engine can tell); returns the stop. */
  listen(topic: ChangeTopic, listener: () => void): () => void;
  /** Gathers the planner's statistics about every table and index. */
  analyze(db: Kysely<Database>): Promise<void>;
  /** Connections by state. */
  poolStats(): { total: number; idle: number; waiting: number };
  /** Releases connections and files. */
  close(): Promise<void>;
}

/**
 * What processes tell each other has changed, so that what they cached about it is dropped — or, for the
 * webhook outbox, that there is new work to pick up.
 */
export const CHANGE_TOPICS = ['api_keys', 'clocks', 'schemas', 'webhook_endpoints', 'webhook_deliveries'] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

/**
 * Who waits for committed webhook outbox rows (the delivery worker), shared by a store and its transactions.
 * While anybody waits for every process's rows, the engine's notices from other processes are passed on too.
 */
class OutboxSignal {
  private readonly listeners = new Set<() => void>();
  /** When this store last sent (or a transaction of it claimed) a notice of its outbox writes. */
  private lastNotice = -Infinity;
  /** The notice owed to commits that sent none, waiting for the spacing. */
  private owed: NodeJS.Timeout | undefined;
  /** Told only of this store's own commits (a host forwarding them to a worker that hears the notices itself). */
  private readonly ownOnly = new Set<() => void>();
  private stopListening: (() => void) | undefined;
  constructor(private readonly engine: Engine) {}

  subscribe(listener: () => void, from: DueSource): () => void {
    if (from === 'this store') {
      this.ownOnly.add(listener);
      return () => this.ownOnly.delete(listener);
    }
    this.listeners.add(listener);
    this.stopListening ??= this.engine.listen('webhook_deliveries', () => this.emit(false));
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.stopListening?.();
        this.stopListening = undefined;
      }
    };
  }

  emit(own = true): void {
    for (const listener of this.listeners) listener();
    if (own) for (const listener of this.ownOnly) listener();
  }

  /**
   * Whether a transaction that wrote outbox rows sends the notice itself (inside it, so it arrives with the
   * commit): at most one every NOTICE_SPACING_MS. A transaction that may not owes one, sent once it has
   * committed (`owe`), so every commit is announced within the spacing, and none before it is visible.
   */
  claimNotice(): boolean {
    const now = performance.now();
    if (now - this.lastNotice < NOTICE_SPACING_MS) return false;
    this.lastNotice = now;
    return true;
  }

  /** After the commit of a transaction that sent no notice: one notice, once the spacing allows. */
  owe(send: () => Promise<void>): void {
    if (this.owed) return;
    const wait = Math.max(0, this.lastNotice + NOTICE_SPACING_MS - performance.now());
    this.owed = setTimeout(() => {
      this.owed = undefined;
      this.lastNotice = performance.now();
      // A notice lost (the database gone, say) delays the other processes' workers until their poll.
      send().catch(() => {});
    }, wait);
  }

  close(): void {
    clearTimeout(this.owed);
    this.owed = undefined;
  }
}

/**
 * The least time between two notices of one store's outbox writes to the other processes' workers. Under a
 * stream of creates on PostgreSQL a `NOTIFY` in every transaction cost the database ~200 µs per create (its
 * notice queue, a lock at commit, every listening connection woken): bench/README.md. A worker starts rounds at
 * most every ROUND_SPACING_MS (webhook-worker.ts) anyway, which this matches.
 */
const NOTICE_SPACING_MS = 25;

/** Runs of one transaction before a deadlock or serialization failure is reported as a conflict. */
const TRANSACTION_ATTEMPTS = 5;

/** The Store's repositories (every property that is not a method). */
type RepoName = { [K in keyof Store]: Store[K] extends (...args: never[]) => unknown ? never : K }[keyof Store];

export class SqlStore implements Store {
  /** Schema tags read under a shared schema lock in this transaction, by organization (perhaps still on their way). */
  private readonly heldSchemaTags = new Map<string, Later<string | undefined>>();
  /** The guards of the tags this transaction guessed (lockSchema), by organization. */
  private readonly schemaGuards: { orgId: string; guard: Later<unknown> }[] = [];
  /** Whether this transaction wrote outbox rows due at once (the worker is woken when it commits). */
  private wroteOutbox = false;
  /** Transactions this store ran again after a transient failure, by SQLSTATE (for metrics). */
  private readonly retries = new Map<string, number>();
  /** Whether it sent no notice of them to other processes, and owes one after its commit. */
  private noticeOwed = false;

  /** The repositories, each built on first use: a transaction builds only those it touches. */
  private readonly repos: { -readonly [K in RepoName]?: Store[K] } = {};
  /**
   * Notes that this store wrote outbox rows due at once: a transaction wakes the worker when it commits.
   * Answers whether the writer announces them to other processes now (`engine.announce`); if not, the
   * transaction owes the notice, sent after its commit.
   */
  private readonly outboxWritten = (): boolean => {
    if (!this.inTransaction) {
      this.outbox.emit();
      return true;
    }
    this.wroteOutbox = true;
    const now = this.outbox.claimNotice();
    if (!now) this.noticeOwed = true;
    return now;
  };

  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
    private readonly inTransaction = false,
    private readonly schemaCache = new SchemaCache(engine),
    private readonly subscriptions: SubscriptionCache = subscriptionCache(engine),
    private readonly outbox = new OutboxSignal(engine),
    /** In a transaction: whether a shared schema lock may go on with the tag this process saw last (lockSchema). */
    private readonly guessSchema = false,
    /** Shared by the store and its transactions: what `beforeCommit` set. */
    private readonly hooks: { beforeCommit?: (tx: Store) => Promise<void> } = {},
  ) {}

  get organizations() {
    return (this.repos.organizations ??= organizationRepo(this.db));
  }

  get apiKeys() {
    return (this.repos.apiKeys ??= apiKeyRepo(this.db, this.engine));
  }

  get collections() {
    return (this.repos.collections ??= collectionRepo(this.db, this.engine));
  }

  get fields() {
    return (this.repos.fields ??= fieldRepo(this.db, this.engine));
  }

  get funnels() {
    return (this.repos.funnels ??= funnelRepo(this.db, this.engine));
  }

  get items() {
    return (this.repos.items ??= itemRepo(this.db, this.engine));
  }

  get activities() {
    return (this.repos.activities ??= activityRepo(this.db, this.engine, this.outboxWritten));
  }

  get tagsets() {
    return (this.repos.tagsets ??= recordRepo(this.db, 'tagsets', tagsetMapping));
  }

  get notes() {
    return (this.repos.notes ??= recordRepo(this.db, 'notes', noteMapping));
  }

  get inboxes() {
    return (this.repos.inboxes ??= recordRepo(this.db, 'inboxes', inboxMapping));
  }

  get files() {
    return (this.repos.files ??= recordRepo(this.db, 'files', fileMapping));
  }

  get conversations() {
    return (this.repos.conversations ??= recordRepo(this.db, 'inbox_conversations', conversationMapping));
  }

  get messages() {
    return (this.repos.messages ??= recordRepo(this.db, 'inbox_messages', messageMapping));
  }

  get attachments() {
    return (this.repos.attachments ??= recordRepo(this.db, 'message_attachments', attachmentMapping));
  }

  get calls() {
    return (this.repos.calls ??= recordRepo(this.db, 'calls', callMapping));
  }

  get meetings() {
    return (this.repos.meetings ??= meetingRepo(this.db));
  }

  get links() {
    return (this.repos.links ??= linkRepo(this.db));
  }

  get views() {
    return (this.repos.views ??= recordRepo(this.db, 'views', viewMapping));
  }

  get search() {
    return (this.repos.search ??= searchRepo(this.db, shapesOf(this.engine), this.engine.lateralJoins));
  }

  get settings() {
    return (this.repos.settings ??= settingsRepo(this.db));
  }

  get programs() {
    return (this.repos.programs ??= recordRepo(this.db, 'programs', programMapping));
  }

  get programTemplates() {
    return (this.repos.programTemplates ??= programTemplateRepo(this.db));
  }

  get programMessages() {
    return (this.repos.programMessages ??= programMessageRepo(this.db, this.engine.name === 'postgres'));
  }

  get unsubscribes() {
    return (this.repos.unsubscribes ??= unsubscribeRepo(this.db));
  }

  get agentSettings() {
    return (this.repos.agentSettings ??= agentSettingsRepo(this.db));
  }

  get forms() {
    return (this.repos.forms ??= formRepo(this.db));
  }

  get orgState() {
    return (this.repos.orgState ??= orgStateRepo(this.db, this.engine, this.schemaCache));
  }

  get clocks() {
    return (this.repos.clocks ??= clockRepo(this.db, this.engine));
  }

  get snapshots() {
    return (this.repos.snapshots ??= snapshotRepo(this.db));
  }

  get idempotency() {
    return (this.repos.idempotency ??= idempotencyRepo(this.db));
  }

  get journal() {
    return (this.repos.journal ??= journalRepo(this.db));
  }

  get webhookEndpoints() {
    return (this.repos.webhookEndpoints ??= webhookEndpointRepo(this.db, this.engine, this.subscriptions));
  }

  get webhookDeliveries() {
    return (this.repos.webhookDeliveries ??= webhookDeliveryRepo(this.db, this.engine, this.outboxWritten));
  }

  async transaction<T>(fn: (tx: Store) => Promise<T>, schemaOf?: string): Promise<T> {
    if (this.inTransaction) return fn(this);
    let guess = this.engine.guardSchema !== undefined;
    for (let attempt = 1; ; attempt++) {
      let tx: SqlStore | undefined;
      try {
        const result = await this.db.transaction().execute(async (trx: Transaction<Database>) => {
          tx = new SqlStore(trx, this.engine, true, this.schemaCache, this.subscriptions, this.outbox, guess, this.hooks);
          if (schemaOf !== undefined) await tx.lockSchema(schemaOf, 'exclusive');
          const result = await fn(tx);
          if (this.hooks.beforeCommit) await this.hooks.beforeCommit(tx);
          return result;
        });
        if (tx?.wroteOutbox) this.outbox.emit();
        if (tx?.noticeOwed) this.outbox.owe(() => this.engine.announce(this.db, 'webhook_deliveries'));
        return result;
      } catch (error) {
        // Whatever failed it (a value the guessed schema refused, the guard itself at the next statement waited
        // for, or COMMIT), a transaction that went on with a schema that had moved runs again on the current one.
        const stale = guess && tx ? await tx.staleGuesses() : [];
        if (stale.length > 0) {
          for (const orgId of stale) this.schemaCache.forgetTag(orgId);
          guess = false;
          continue;
        }
        const meaning = this.engine.classify(error);
        if (meaning === 'retry') {
          const code = String((error as { code?: unknown }).code);
          this.retries.set(code, (this.retries.get(code) ?? 0) + 1);
        }
        if (meaning === 'retry' && attempt < TRANSACTION_ATTEMPTS) {
          // A short random pause, so the transactions that collided do not collide again in step.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
          continue;
        }
        if (meaning === 'conflict') throw new AppError('conflict', 'the write conflicts with a concurrent change; fetch the current state and retry');
        if (meaning === 'retry') throw new AppError('write_contention', 'the write kept colliding with concurrent writes; retry it');
        throw error;
      }
    }
  }

  async lock(keys: readonly string[], mode: LockMode = 'exclusive'): Promise<void> {
    // Outside a transaction a transaction-scoped lock would end with its own statement: a bug in the caller.
    if (!this.inTransaction) throw new Error('store.lock() is only meaningful inside store.transaction()');
    // One order for everybody: two transactions locking overlapping sets in one call cannot deadlock.
    const sorted = [...new Set(keys)].sort();
    if (sorted.length > 0) await this.engine.lock(this.db, sorted, mode);
  }

  async lockSchema(orgId: string, mode: LockMode): Promise<void> {
    if (!this.inTransaction) throw new Error('store.lockSchema() is only meaningful inside store.transaction()');
    // The organization's id is the key; no other lock key is a bare id.
    if (mode === 'exclusive') return this.engine.lock(this.db, [orgId], mode);
    // The tag is read after the lock is held, by a statement of its own: its snapshot then includes any schema
    // change that held the lock exclusively. Nothing waits for it until the schema is loaded: on PostgreSQL it
    // travels with the next statement waited for (postgres/pipeline.ts), which may be a read begun with the
    // schema this process saw last (`recentSchema`); on SQLite, whose writers exclude each other, a tag
    // remembered under an unmoved token serves.
    const guessed = this.guessSchema && this.engine.guardSchema ? this.schemaCache.lastTag(orgId) : undefined;
    if (guessed === undefined) {
      await this.engine.lock(this.db, [orgId], 'shared');
      this.heldSchemaTags.set(orgId, await this.schemaCache.heldTag(this.db, orgId, this.engine.readAhead));
      return;
    }
    // Where the tag would be waited for (PostgreSQL), the write goes on with the tag this process saw last, and
    // a guard sent with the lock fails the transaction if the tag has moved since: a create is then one round
    // trip instead of two. `transaction` runs a transaction whose guess was wrong again, reading the tag.
    this.schemaGuards.push({ orgId, guard: await this.engine.guardSchema!(this.db, orgId, guessed) });
    this.heldSchemaTags.set(orgId, { answer: async () => guessed });
  }

  /** After this transaction failed: the organizations whose guessed schema tag (lockSchema) had moved. */
  private async staleGuesses(): Promise<string[]> {
    // Settled by now: the rollback waited for every statement sent. Asked only after a failure, since asking
    // for an answer sends the statements still held.
    const verdicts = await Promise.all(
      this.schemaGuards.map(({ orgId, guard }) =>
        guard.answer().then(
          () => undefined,
          (error: unknown) => (this.engine.classify(error) === 'stale-schema' ? orgId : undefined),
        ),
      ),
    );
    return verdicts.filter((orgId): orgId is string => orgId !== undefined);
  }

  async loadSchema(orgId: string, collectionKey: string): Promise<SchemaParts | undefined> {
    // Under a shared schema lock the tag cannot change before the transaction ends: no need to read it again.
    return this.schemaCache.get(this.db, orgId, collectionKey, await this.heldSchemaTags.get(orgId)?.answer(), this.inTransaction, () =>
      readSchemaParts(this, orgId, collectionKey),
    );
  }

  recentSchema(orgId: string, collectionKey: string): SchemaParts | undefined {
    return this.schemaCache.recent(orgId, collectionKey);
  }

  serveItem(orgId: string, collectionKey: string, id: string, wireTagOf: (parts: SchemaParts) => string): Promise<SchemaRead<ServedItem | undefined> | undefined> {
    return this.underCurrentSchema(
      orgId,
      collectionKey,
      async (parts) => {
        const tagged = await serveOneTagged(this.db, this.engine, orgId, parts.collection.id, id, wireTagOf(parts));
        return tagged && { read: tagged.served, tag: tagged.schemaTag };
      },
      (parts) => this.items.serveOne(orgId, parts.collection.id, id, wireTagOf(parts)),
    );
  }

  servePage<P extends PagePlan>(orgId: string, collectionKey: string, plan: (parts: SchemaParts) => Promise<P>): Promise<SchemaRead<{ plan: P; page: Page<ServedItem> }> | undefined> {
    const run = async (parts: SchemaParts, tagged: boolean) => {
      const planned = await plan(parts);
      const page = await queryItems(this.db, shapesOf(this.engine), orgId, planned.query, planned.page, planned.wireTag, tagged);
      return { read: { plan: planned, page }, tag: page.schemaTag };
    };
    return this.underCurrentSchema(
      orgId,
      collectionKey,
      async (parts) => {
        try {
          return await run(parts, true);
        } catch (error) {
          // The current schema judges the request again (a sort by a field added since, a cursor of its order).
          if (error instanceof AppError) return undefined;
          throw error;
        }
      },
      async (parts) => (await run(parts, false)).read,
    );
  }

  /**
   * `read` under the collection's current schema. Where the organization's schema tag is read on every request
   * (its change tokens are not exact), the read is first made under the schema this process loaded last, by
   * statements that also read the tag (`early`, which gives the tag it read, if any, or undefined when it
   * could not read under that schema): while the tag has not moved since, that schema is current and the read
   * stands — one round trip instead of two. Otherwise the schema is loaded and the read made again.
   */
  private async underCurrentSchema<T>(
    orgId: string,
    collectionKey: string,
    early: (parts: SchemaParts) => Promise<{ read: T; tag: string | undefined } | undefined>,
    read: (parts: SchemaParts) => Promise<T>,
  ): Promise<SchemaRead<T> | undefined> {
    const recent = this.engine.exactChangeTokens || this.inTransaction ? undefined : this.schemaCache.recentEntry(orgId, collectionKey);
    let knownTag: string | undefined;
    if (recent) {
      const made = await early(recent.parts);
      if (made) {
        // No rows came to carry the tag: read it alone.
        knownTag = made.tag ?? (await readSchemaTag(this.db, orgId));
        if (knownTag === undefined) return undefined;
        if (knownTag === recent.tag) return { parts: recent.parts, read: made.read };
      }
    }
    const parts = await this.schemaCache.get(this.db, orgId, collectionKey, knownTag, this.inTransaction, () => readSchemaParts(this, orgId, collectionKey));
    return parts && { parts, read: await read(parts) };
  }

  async analyze(): Promise<void> {
    await this.engine.analyze(this.db);
  }

  poolStats() {
    return this.engine.poolStats();
  }

  beforeCommit(work: (tx: Store) => Promise<void>): void {
    this.hooks.beforeCommit = work;
  }

  transactionRetries() {
    return Object.fromEntries(this.retries);
  }

  onDeliveriesDue(listener: () => void, from: DueSource = 'any process'): () => void {
    return this.outbox.subscribe(listener, from);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    this.outbox.close();
    await this.db.destroy();
    await this.engine.close();
  }
}
