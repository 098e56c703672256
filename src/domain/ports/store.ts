// The storage port: everything the domain may ask of a database. It lives in the domain so the domain depends
// on nothing below it; src/store implements it (one Kysely implementation serves every engine) and nothing
// outside src/store speaks SQL.
import type { ApiKey } from '../api-keys.ts';
import type { Collection } from '../collections.ts';
import type { Field } from '../fields.ts';
import type { Organization } from '../organizations.ts';
import type { Funnel } from '../funnels.ts';
import type { IndexEntry, IndexKey, Item } from '../items.ts';
import type { ServedItem, StoredWire } from '../item-wire.ts';
import type { Activity, ActivityQuery, Constituent } from '../activity.ts';
import type { ItemQuery } from '../filter/ast.ts';
import type { Tagset } from '../tagsets.ts';
import type { Note } from '../notes.ts';
import type { Inbox } from '../inboxes.ts';
import type { StoredFile } from '../files.ts';
import type { Attachment, Conversation, Message } from '../inbox-messages.ts';
import type { Page, PageRequest } from '../pagination.ts';
import type { Meeting } from '../meetings.ts';
import type { CallRecord } from '../calls.ts';
import type { View } from '../views.ts';
import type { WebhookEndpoint } from '../webhook-endpoints.ts';
import type { AttemptRecord, WebhookAttempt } from '../webhook-delivery.ts';
import type { WebhookDelivery } from '../webhook-outbox.ts';
import type { Program, ProgramMetrics, ProgramTemplate } from '../programs.ts';
import type { DeliveryEvent, ProgramMessage } from '../program-messages.ts';
import type { Unsubscribe } from '../unsubscribes.ts';
import type { AgentSettings } from '../agent-settings.ts';
import type { Form } from '../forms.ts';
import type { ClockRepo, IdempotencyRepo, JournalRepo, OrgStateRepo, SnapshotRepo } from './toolkit-store.ts';
import type { DueTimes } from '../due-times.ts';

export interface OrganizationRepo {
  insert(org: Organization): Promise<void>;
  findByName(name: string): Promise<Organization | undefined>;
  findById(id: string): Promise<Organization | undefined>;
  list(): Promise<Organization[]>;
  /** The sandboxes made by admin keys of `parentId`, oldest first. */
  sandboxesOf(parentId: string): Promise<Organization[]>;
}

export interface ApiKeyRepo {
  insert(key: ApiKey): Promise<void>;
  update(key: ApiKey): Promise<void>;
  findByHash(hash: string): Promise<ApiKey | undefined>;
  findByPrefix(prefix: string): Promise<ApiKey[]>;
  list(orgId?: string): Promise<ApiKey[]>;
  /**
   * Changes whenever a key may have been added, changed or revoked, by this process or another one sharing the
   * database; undefined while that cannot be known. What was read under one token is current while it lasts.
   */
  changeToken(): Promise<string | undefined>;
}

export interface CollectionRepo {
  insert(collection: Collection): Promise<void>;
  update(collection: Collection): Promise<void>;
  /** By id first, then by ref; always inside the organization. */
  find(orgId: string, idOrRef: string): Promise<Collection | undefined>;
  findMany(orgId: string, ids: string[]): Promise<Collection[]>;
  list(orgId: string, page: PageRequest): Promise<Page<Collection>>;
  refs(orgId: string): Promise<string[]>;
}

export interface FieldRepo {
  insertMany(fields: Field[]): Promise<void>;
  update(field: Field): Promise<void>;
  delete(orgId: string, ids: string[]): Promise<void>;
  /** By id first, then by ref, inside the collection. */
  find(orgId: string, collectionId: string, idOrRef: string): Promise<Field | undefined>;
  findMany(orgId: string, ids: string[]): Promise<Field[]>;
  /** In creation order. */
  listByCollection(orgId: string, collectionId: string): Promise<Field[]>;
  listByFunnel(orgId: string, funnelId: string): Promise<Field[]>;
  refs(orgId: string, collectionId: string): Promise<string[]>;
}

export interface FunnelRepo {
  insert(funnel: Funnel): Promise<void>;
  update(funnel: Funnel): Promise<void>;
  delete(orgId: string, id: string): Promise<void>;
  find(orgId: string, id: string): Promise<Funnel | undefined>;
  findMany(orgId: string, ids: string[]): Promise<Funnel[]>;
  list(orgId: string, page: PageRequest): Promise<Page<Funnel>>;
}

export interface ItemRepo {
  /** The item with its wire form (domain/item-wire.ts) and index entries. */
  insert(item: Item, wire: StoredWire, entries: IndexEntry[]): Promise<void>;
  /**
   * Saves the document and its wire form; replaces the index entries of `fieldIds` (all of them with
   * undefined). Given the entries those fields had before (`previous`), only the entries that differ are written.
   */
  update(item: Item, wire: StoredWire, entries: IndexEntry[], fieldIds?: string[], previous?: IndexEntry[]): Promise<void>;
  delete(orgId: string, id: string): Promise<void>;
  /**
   * The items of the organization among `ids`, in that order. With `lock`, each found item stays locked until
   * the transaction ends, in every process sharing the database: exclusive to change or delete it (the items
   * returned are then their latest committed state), shared while only its existence matters (it cannot be
   * deleted before the transaction ends).
   */
  findMany(orgId: string, ids: string[], lock?: LockMode): Promise<Item[]>;
  /** A page of the collection's items matching the query, in its sort order. */
  query(orgId: string, query: ItemQuery, page: PageRequest): Promise<Page<Item>>;
  /** `query` for an answer: an item whose stored wire form carries `wireTag` comes as that form alone. */
  serve(orgId: string, query: ItemQuery, page: PageRequest, wireTag: string): Promise<Page<ServedItem>>;
  /** The item `id` of the collection, for an answer as `serve` gives it; undefined when there is none. */
  serveOne(orgId: string, collectionId: string, id: string, wireTag: string): Promise<ServedItem | undefined>;
  /**
   * The items of the organization among `ids`, in that order, for an answer as `serve` gives them: `wireTags`
   * are the current wire tags of the collections they may belong to (a tag names its collection).
   */
  serveMany(orgId: string, ids: string[], wireTags: string[]): Promise<ServedItem[]>;
  /** Items with any value in these fields. */
  idsWithValues(orgId: string, fieldIds: string[]): Promise<string[]>;
  /** Items whose relation `fieldId` points into one of these collections. */
  idsWithRelationsInto(orgId: string, fieldId: string, collectionIds: string[]): Promise<string[]>;
  /** Items whose relation values point at `itemId`. */
  idsReferencing(orgId: string, itemId: string): Promise<string[]>;
  /** Items of `fieldId` holding a value with exactly this index key. */
  idsWithKey(orgId: string, fieldId: string, key: IndexKey): Promise<string[]>;
  /**
   * For each of these text keys (an option, step or item id; a phone, email or domain) that `fieldId` holds,
   * the items holding it, in id order.
   */
  idsByTextKey(orgId: string, fieldId: string, keys: string[]): Promise<Map<string, string[]>>;
  /**
   * The items holding any of these exact index keys, in id order, read and locked in one step (`lock` as in
   * `findMany`): what an upsert matches on its identifiers.
   */
  withKeys(orgId: string, keys: readonly { fieldId: string; key: IndexKey }[], lock?: LockMode): Promise<Item[]>;
  countWithSeveralValues(orgId: string, fieldId: string): Promise<number>;
  countWithoutValue(orgId: string, collectionId: string, fieldId: string): Promise<number>;
  /** Items that share a value of `fieldId` with another item. */
  countWithDuplicateValues(orgId: string, fieldId: string): Promise<number>;
}

export interface ActivityRepo {
  /** The activity with its webhook outbox rows, in one statement where the engine can. */
  insert(activity: Activity, deliveries?: WebhookDelivery[]): Promise<void>;
  /** Newest first. */
  listByEntity(orgId: string, entityType: string, entityId: string): Promise<Activity[]>;
  /** A page of the feed, newest first (by occurred_at, then id). */
  list(orgId: string, query: ActivityQuery, page: PageRequest): Promise<Page<Activity>>;
  find(orgId: string, id: string): Promise<Activity | undefined>;
  /** A page of the organization's activities in recording (id) order, oldest first; `types` narrows them. */
  inOrder(orgId: string, types: string[] | undefined, page: PageRequest): Promise<Page<Activity>>;
  /**
   * Gives the activities of `type` whose object is `object` a new time and constituents (their subject was
   * corrected), in the feed too; `constituents` still names `object`.
   */
  restate(orgId: string, type: string, object: { type: string; id: string }, occurredAt: string, constituents: Constituent[]): Promise<void>;
}

/** A collection with its fields (creation order) and the funnels of its stage fields. */
export interface SchemaParts {
  collection: Collection;
  fields: Field[];
  funnels: Funnel[];
}

/** What was read of a collection together with its current schema (`Store.serveItem`, `Store.servePage`). */
export interface SchemaRead<T> {
  parts: SchemaParts;
  read: T;
}

/**
 * A page read planned against a schema: the query and the page for `items.serve` under `wireTag`, or for
 * `items.query` without one (the items are then rendered, as a selection of fields is).
 */
export interface PagePlan {
  query: ItemQuery;
  page: PageRequest;
  wireTag?: string;
}

/** Conditions of a list on properties `F`: equal to a value, or one of several (an empty list matches nothing). */
export type RecordFilter<F extends PropertyKey> = { [K in F]?: string | readonly string[] };

/** Rows of one organization-owned resource, by id, listed in creation order; lists filter on properties `F`. */
export interface RecordRepo<T extends { id: string; orgId: string }, F extends keyof T = never> {
  insert(record: T): Promise<void>;
  update(record: T): Promise<void>;
  delete(orgId: string, id: string): Promise<void>;
  find(orgId: string, id: string): Promise<T | undefined>;
  findMany(orgId: string, ids: string[]): Promise<T[]>;
  list(orgId: string, page: PageRequest, where?: RecordFilter<F>): Promise<Page<T>>;
  /** The record whose properties equal `where`, for lookups by a unique key (a call's provider id). */
  findBy(orgId: string, where: { [K in F]?: string }): Promise<T | undefined>;
}

/** Meetings, found by id or (`list` filter) by iCalendar UID, and the bookkeeping of `activity/meeting_held`. */
export interface MeetingRepo extends RecordRepo<Meeting, 'iCalUid'> {
  /** Saves everything but `heldAt`, which only `claimHeld` writes. */
  update(meeting: Meeting): Promise<void>;
  /** Meetings ended by `now` without `meeting_held` yet (of one organization, or of all), earliest end first. */
  dueHeld(now: string, limit: number, orgId?: string): Promise<Meeting[]>;
  /** Sets `heldAt` if it is still unset; true for the one caller that set it. */
  claimHeld(orgId: string, id: string, at: string): Promise<boolean>;
}

/** What a link points at: an entity, or a whole kind (`id` null), such as all calls. */
export interface LinkTarget {
  type: string;
  id: string | null;
}

/** An association from one entity to a target, kept in order (`position`) within its role. */
export interface Link {
  fromType: string;
  fromId: string;
  role: string;
  position: number;
  toType: string;
  toId: string | null;
}

export interface LinkRepo {
  /** Replaces the entity's links in `role` with `targets`, in this order. */
  replace(orgId: string, fromType: string, fromId: string, role: string, targets: LinkTarget[]): Promise<void>;
  /** Inserts links as given (bulk loads). */
  insertMany(orgId: string, links: Link[]): Promise<void>;
  /** The targets of each entity in `role`, in order, in one query per 500 ids; entities without links are absent. */
  targetsOf(orgId: string, fromType: string, fromIds: string[], role: string): Promise<Map<string, LinkTarget[]>>;
  /** The links to `target` (from entities of `fromType`, when given), by source. */
  sourcesOf(orgId: string, target: LinkTarget, fromType?: string): Promise<Link[]>;
  /** Removes every link from or to the entity. */
  deleteEntity(orgId: string, type: string, id: string): Promise<void>;
}

/** A text key of an item value that starts with a searched prefix. */
export interface TextMatch {
  itemId: string;
  fieldId: string;
  /** The field's collection, which is the item's. */
  collectionId: string;
  key: string;
}

/** A prefix to look for among the values of fields of these types. */
export interface PrefixSearch {
  fieldTypes: readonly string[];
  prefix: string;
}

/** Global search: bounded index range scans only. */
export interface SearchRepo {
  /** For each search and each field of its types, up to `limit` values whose text key starts with its prefix, in key order. */
  textPrefix(orgId: string, searches: PrefixSearch[], limit: number): Promise<TextMatch[]>;
  /** Up to `limit` files whose name contains `text`, ignoring case, in creation order. */
  filesByName(orgId: string, text: string, limit: number): Promise<Omit<StoredFile, 'associations'>[]>;
}

export interface SettingsRepo {
  /** The stored value of `key`, storing `value` first when there is none (safe against concurrent callers). */
  getOrInsert(key: string, value: string): Promise<string>;
}

/** Program templates; one per program (the `programId` filter finds it). */
export interface ProgramTemplateRepo extends RecordRepo<ProgramTemplate, 'programId'> {
  listNewestFirst(orgId: string, page: PageRequest): Promise<Page<ProgramTemplate>>;
}

/** Program messages: the queue the sender works through, and the outcomes and events of each message. */
export interface ProgramMessageRepo {
  insert(message: ProgramMessage): Promise<void>;
  find(orgId: string, id: string): Promise<ProgramMessage | undefined>;
  /**
   * Claims up to `limit` messages due by `due` (queued, or being sent under a lease that has ended): each
   * becomes `sending`, due at its organization's `leaseEnd`, one attempt more. Concurrent callers in any
   * process claim disjoint messages.
   */
  claimDue(due: DueTimes, leaseEnd: DueTimes, limit: number): Promise<ProgramMessage[]>;
  /** Saves a claimed message's outcome, unless its claim (`claimedAttempts`) was lost; true when saved. */
  complete(message: ProgramMessage, claimedAttempts: number): Promise<boolean>;
  /** Notes the first report of `event` on the message. */
  recordEvent(orgId: string, id: string, event: DeliveryEvent, at: string): Promise<void>;
  metrics(orgId: string, programId: string): Promise<ProgramMetrics>;
  /** Messages delivered to the local outbox, oldest first. */
  listOutbox(orgId: string, page: PageRequest): Promise<Page<ProgramMessage>>;
}

export interface UnsubscribeRepo {
  /** Inserts the entry unless its address is listed; answers the listed entry. */
  insertOrGet(entry: Unsubscribe): Promise<Unsubscribe>;
  findByEmail(orgId: string, email: string): Promise<Unsubscribe | undefined>;
  /** True when an entry was removed. */
  delete(orgId: string, email: string): Promise<boolean>;
  list(orgId: string, page: PageRequest): Promise<Page<Unsubscribe>>;
}

export interface AgentSettingsRepo {
  /** The organization's settings, stored as `settings` first when it has none (safe against concurrent callers). */
  getOrInsert(settings: AgentSettings): Promise<AgentSettings>;
  update(settings: AgentSettings): Promise<void>;
}

export interface FormRepo extends RecordRepo<Form> {
  /** By id alone, whatever the organization: for public submissions. */
  findById(id: string): Promise<Form | undefined>;
}

/** Endpoints with work due, leased to one process (`owner`) until `leaseUntil` (times on the lease clock). */
export interface LeaseClaim {
  /** Deliveries due by these times count (each organization's delivery clock). */
  due: DueTimes;
  owner: string;
  leaseNow: string;
  leaseUntil: string;
  /** A lease of `owner`'s lasting past this is taken back as it is; one running out sooner is renewed. */
  keepUntil: string;
  limit: number;
}

/** Webhook endpoints and their subscriptions (kept for lookups by event type), plus the delivery leases. */
export interface WebhookEndpointRepo {
  insert(endpoint: WebhookEndpoint): Promise<void>;
  /** Saves everything but the secret and the lease. */
  update(endpoint: WebhookEndpoint): Promise<void>;
  /** Removes the endpoint with its subscriptions, deliveries and attempts. */
  delete(orgId: string, id: string): Promise<void>;
  find(orgId: string, id: string): Promise<WebhookEndpoint | undefined>;
  /** In creation order. */
  list(orgId: string, page: PageRequest): Promise<Page<WebhookEndpoint>>;
  /** Ids of the organization's enabled endpoints subscribed to `eventType` (one index range scan, remembered per process while no endpoint changes anywhere). */
  subscribed(orgId: string, eventType: string): Promise<string[]>;
  /** Whether any organization has an enabled endpoint (so deliveries are to be expected). */
  anyEnabled(): Promise<boolean>;
  /**
   * Leases up to `limit` enabled endpoints that have deliveries due and no live lease, and returns them, with
   * the enabled endpoints that have deliveries due and a lease of `owner`'s lasting past `keepUntil` (taken
   * back by a read: no write, so no commit). Rows another process is leasing at the same moment are skipped,
   * never waited for.
   */
  claimDue(claim: LeaseClaim): Promise<WebhookEndpoint[]>;
  /** Extends `owner`'s lease; false when the lease was lost (expired and taken by another process). */
  renewLease(id: string, owner: string, leaseUntil: string): Promise<boolean>;
  releaseLease(id: string, owner: string): Promise<void>;
  /** Whether an enabled endpoint with a delivery due by `due` is leased now (lease running past `leaseNow`) by another owner than `owner`. */
  leasedElsewhere(due: DueTimes, owner: string, leaseNow: string): Promise<boolean>;
  /** Ends every lease `owner` holds (a worker stopping). */
  releaseLeases(owner: string): Promise<void>;
  /** Records the endpoint's failure state, and disables it when `disable` is set. */
  setHealth(id: string, failingSince: string | null, disable?: boolean): Promise<void>;
}

/** The webhook outbox and its attempt log. */
export interface WebhookDeliveryRepo {
  insertMany(deliveries: WebhookDelivery[]): Promise<void>;
  /** Makes the delivery due at once with a fresh schedule, counting the re-send. */
  resend(delivery: WebhookDelivery): Promise<void>;
  /**
   * Saves attempts' outcomes (one more attempt each; the successes in one statement), except for deliveries
   * re-sent since they were read (`resends` moved), which stay as the re-send left them.
   */
  saveOutcomes(records: AttemptRecord[]): Promise<void>;
  findByActivity(orgId: string, endpointId: string, activityId: string): Promise<WebhookDelivery | undefined>;
  /** The endpoint's pending deliveries due by `now`, in recording (id) order, each with its activity. */
  due(endpointId: string, now: string, limit: number): Promise<{ delivery: WebhookDelivery; activity: Activity | undefined }[]>;
  /** A round's attempts, in one statement. */
  insertAttempts(attempts: WebhookAttempt[]): Promise<void>;
  /** The endpoint's attempts, newest first. */
  attempts(orgId: string, endpointId: string, page: PageRequest): Promise<Page<WebhookAttempt>>;
  /** Pending deliveries of every organization (the queue depth). */
  pendingCount(): Promise<number>;
  /** Whether the organization has attempts or finished deliveries from before `before` (webhook-history.ts). */
  hasHistoryBefore(orgId: string, before: HistoryCutoff): Promise<boolean>;
  /** Deletes at most `limit` of the organization's attempts from before `before`, then as many finished deliveries last attempted before it; returns how many rows went. */
  pruneHistory(orgId: string, before: HistoryCutoff, limit: number): Promise<number>;
}

/** A point in an organization's time, as the ids made then start (`firstIdAt`) and as a timestamp. */
export interface HistoryCutoff {
  id: string;
  at: string;
}

export type LockMode = 'exclusive' | 'shared';

/** Whose commits of due deliveries `onDeliveriesDue` reports: every process's it can hear of, or this store's. */
export type DueSource = 'any process' | 'this store';

export interface Store {
  readonly organizations: OrganizationRepo;
  readonly apiKeys: ApiKeyRepo;
  readonly collections: CollectionRepo;
  readonly fields: FieldRepo;
  readonly funnels: FunnelRepo;
  readonly items: ItemRepo;
  readonly activities: ActivityRepo;
  /** Tagsets, notes and files without their associations, which are links. */
  readonly tagsets: RecordRepo<Omit<Tagset, 'associations'>>;
  readonly notes: RecordRepo<Omit<Note, 'associations'>>;
  readonly inboxes: RecordRepo<Inbox>;
  readonly files: RecordRepo<Omit<StoredFile, 'associations'>>;
  readonly conversations: RecordRepo<Conversation, 'id' | 'inboxId'>;
  readonly messages: RecordRepo<Message, 'inboxId' | 'conversationId'>;
  readonly attachments: RecordRepo<Attachment, 'messageId'>;
  /** Calls without their participants' matched items and tags, which are links. */
  readonly calls: RecordRepo<CallRecord, 'provider' | 'providerId'>;
  readonly meetings: MeetingRepo;
  readonly links: LinkRepo;
  /** Saved views of collections, listed by collection. */
  readonly views: RecordRepo<View, 'collectionId'>;
  readonly search: SearchRepo;
  readonly settings: SettingsRepo;
  readonly webhookEndpoints: WebhookEndpointRepo;
  readonly webhookDeliveries: WebhookDeliveryRepo;
  readonly programs: RecordRepo<Program>;
  readonly programTemplates: ProgramTemplateRepo;
  readonly programMessages: ProgramMessageRepo;
  readonly unsubscribes: UnsubscribeRepo;
  readonly agentSettings: AgentSettingsRepo;
  readonly forms: FormRepo;
  /** The stand-in toolkit (ports/toolkit-store.ts). */
  readonly orgState: OrgStateRepo;
  readonly clocks: ClockRepo;
  readonly snapshots: SnapshotRepo;
  readonly idempotency: IdempotencyRepo;
  readonly journal: JournalRepo;
  /** The collection (by id or ref) with its fields and funnels; cached until the organization's schema changes. */
  loadSchema(orgId: string, collectionKey: string): Promise<SchemaParts | undefined>;
  /**
   * The collection's schema as this process last loaded it, perhaps no longer current; no query. For work
   * begun before `loadSchema` answers (its reads then share a round trip with the schema's), which the caller
   * keeps only where the current schema calls for exactly the same.
   */
  recentSchema(orgId: string, collectionKey: string): SchemaParts | undefined;
  /**
   * The collection's current schema (as `loadSchema`) with its item `id` for an answer (as `items.serveOne`,
   * under the wire tag `wireTagOf` names for the schema; undefined when there is no such item). Undefined when
   * there is no such collection. Where the schema is checked on every request, the item is read under the
   * schema loaded last by the statement that checks it: one round trip while the schema stays the same.
   */
  serveItem(orgId: string, collectionKey: string, id: string, wireTagOf: (parts: SchemaParts) => string): Promise<SchemaRead<ServedItem | undefined> | undefined>;
  /**
   * The collection's current schema with the page `plan` makes of it (`serveItem` for a page): `plan` may be
   * called with the schema loaded last and then again with the current one; an AppError it throws for the
   * first is judged again by the second. Undefined when there is no such collection.
   */
  servePage<P extends PagePlan>(
    orgId: string,
    collectionKey: string,
    plan: (parts: SchemaParts) => Promise<P>,
  ): Promise<SchemaRead<{ plan: P; page: Page<ServedItem> }> | undefined>;
  /**
   * Runs `fn` in one transaction; inside a transaction, joins it. Throwing rolls everything back. A
   * transaction the database aborts to break a deadlock or a serialization conflict runs again (a few times),
   * so `fn` must have no effects outside the store; a unique constraint's refusal becomes a `conflict`.
   * `schemaOf`: the organization whose schema the transaction changes; its schema is locked exclusive first.
   */
  transaction<T>(fn: (tx: Store) => Promise<T>, schemaOf?: string): Promise<T>;
  /**
   * Inside a transaction: holds what the organization's item values mean (its collections, fields and
   * funnels) until the transaction ends, in every process sharing the database. Schema changes hold it
   * exclusive (`transaction(fn, orgId)`); item writes hold it shared, so they run side by side but never
   * across a schema change (a field turning unique, a step removed), and `loadSchema` then reads the schema
   * as of the lock.
   */
  lockSchema(orgId: string, mode: LockMode): Promise<void>;
  /**
   * Inside a transaction: waits for locks on these keys and holds them until the transaction ends, across
   * every process sharing the database. An exclusive lock excludes every other lock on its key; shared locks
   * coexist. The keys are taken in sorted order, so two calls over overlapping keys cannot deadlock. Where
   * the engine's write transactions already exclude each other (SQLite) it does nothing.
   */
  lock(keys: readonly string[], mode?: LockMode): Promise<void>;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  /** Refreshes the query planner's statistics, e.g. after a bulk load. */
  analyze(): Promise<void>;
  /**
   * Runs `work` inside each transaction of this store once its own work is done, before it commits (the HTTP
   * layer notes there that a request holding an Idempotency-Key claim wrote). A later call replaces it.
   */
  beforeCommit(work: (tx: Store) => Promise<void>): void;
  /** Connections of the pool by state, for metrics. */
  poolStats(): { total: number; idle: number; waiting: number };
  /**
   * Transactions run again after a transient failure, by SQLSTATE, since the store opened (metrics): on
   * PostgreSQL 40P01 (a deadlock: one of the writers was chosen to fail, after a second's wait), 40001 and 23503
   * (a row a write refers to deleted by a transaction that committed while it ran).
   */
  transactionRetries(): Record<string, number>;
  /**
   * Calls `listener` whenever webhook deliveries became due at once: right after each commit of this process
   * that wrote some, and on the engines that can tell (PostgreSQL), when another process's such commit is
   * announced (`from` 'this store': only this store's own commits). Returns the function that stops the calls.
   */
  onDeliveriesDue(listener: () => void, from?: DueSource): () => void;
  close(): Promise<void>;
}
