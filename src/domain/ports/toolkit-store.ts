// The storage the stand-in toolkit needs (sandboxes, snapshots, clocks, Idempotency-Key, the request journal),
// kept apart from the resource repositories in store.ts.

/**
 * A table's rows as one JSON array of flat objects (column → value, as the database returns it), kept as text
 * end to end so a clone never parses or rebuilds a row; and the columns they have.
 */
export interface TableRows {
  columns: string[];
  json: string;
}

/** An organization's whole state, by table. */
export type OrgRows = Record<string, TableRows>;

export interface OrgStateRepo {
  /** Every row of the organization's state (all owned tables but credentials and the toolkit's own records), and how many. */
  read(orgId: string): Promise<{ tables: OrgRows; rows: number }>;
  /** Inserts the rows, parents first. */
  write(tables: OrgRows): Promise<void>;
  /** Deletes every row of the organization's state; its keys, clock, snapshots and journal stay. */
  clear(orgId: string): Promise<void>;
  /** Deletes the organization and everything that belongs to it, its keys and snapshots included. */
  removeOrganization(orgId: string): Promise<void>;
  /** The blob keys (values of every `blob_key` column) of the organization's state. */
  blobKeys(orgId: string): Promise<string[]>;
  /** Marks the organization's schema as changed, so cached schemas of every process are reloaded. */
  touchSchema(orgId: string): Promise<void>;
}

/** Frozen at `frozenAt`, or running `offsetMs` ahead of the system clock (behind when negative). */
export interface ClockSetting {
  frozenAt: string | null;
  offsetMs: number;
}

export interface ClockRepo {
  find(orgId: string): Promise<ClockSetting | undefined>;
  /** Changes whenever any organization's setting may have changed, here or in another process (see ApiKeyRepo). */
  changeToken(): Promise<string | undefined>;
  save(orgId: string, setting: ClockSetting): Promise<void>;
  remove(orgId: string): Promise<void>;
  /** The organizations with a setting. */
  list(): Promise<{ orgId: string; setting: ClockSetting }[]>;
}

export interface SnapshotInfo {
  id: string;
  orgId: string;
  name: string;
  rows: number;
  createdAt: string;
}

/** A snapshot's contents: the rows, and the blob keys of the files among them (their bytes are copied aside). */
export interface SnapshotData {
  tables: OrgRows;
  blobs: string[];
}

export interface SnapshotRepo {
  insert(info: SnapshotInfo, data: SnapshotData): Promise<void>;
  find(orgId: string, name: string): Promise<SnapshotInfo | undefined>;
  data(id: string): Promise<SnapshotData>;
  list(orgId: string): Promise<SnapshotInfo[]>;
  delete(id: string): Promise<void>;
}

export interface IdempotencyRecord {
  orgId: string;
  key: string;
  fingerprint: string;
  /** The stored answer; absent while the first request is in flight. */
  response?: StoredResponse;
  createdAt: string;
  /** System time of the claim, milliseconds. */
  claimedAtMs: number;
  /** Whether the claiming request committed a write (its answer may be all that is missing). */
  wrote?: boolean;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface IdempotencyRepo {
  /** Inserts the in-flight record unless one exists for its organization and key; true when inserted. */
  claim(record: IdempotencyRecord): Promise<boolean>;
  find(orgId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /** Keeps the answer, with the request's final fingerprint, if the record is still the claim made at `claimedAtMs`. */
  complete(orgId: string, key: string, claimedAtMs: number, response: StoredResponse, fingerprint: string): Promise<void>;
  /** Notes, inside a write transaction of the claiming request, that it wrote (if the claim is still its own). */
  markWritten(orgId: string, key: string, claimedAtMs: number): Promise<void>;
  /** Deletes the record if it is still the claim made at `claimedAtMs`. */
  release(orgId: string, key: string, claimedAtMs: number): Promise<void>;
  /** Deletes the organization's records created before `createdBefore`. */
  expire(orgId: string, createdBefore: string): Promise<void>;
}

export interface JournalEntry {
  id: string;
  orgId: string;
  requestId: string;
  method: string;
  path: string;
  query: string;
  status: number;
  latencyMs: number;
  requestHeaders: Record<string, string>;
  requestBody: string | null;
  responseBody: string | null;
  occurredAt: string;
}

export interface JournalQuery {
  path?: string;
  pathPrefix?: string;
  method?: string;
  statusFrom?: number;
  statusTo?: number;
  since?: string;
  until?: string;
  /** Entries older than this id (keyset, newest first). */
  before?: string;
  limit: number;
}

export interface JournalRepo {
  /** Records the entries and drops each of their organizations' entries beyond the newest `keep`. */
  insertMany(entries: JournalEntry[], keep: number): Promise<void>;
  /** Newest first. */
  list(orgId: string, query: JournalQuery): Promise<JournalEntry[]>;
  clear(orgId: string): Promise<void>;
}
