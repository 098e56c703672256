// The storage port: everything the domain may ask of a database. One Kysely implementation serves every
// engine (store/sql); nothing outside store/ speaks SQL.
import type { ApiKey } from '../domain/api-keys.ts';
import type { Collection } from '../domain/collections.ts';
import type { Field } from '../domain/fields.ts';
import type { Organization } from '../domain/organizations.ts';
import type { Page, PageRequest } from '../domain/pagination.ts';

export interface OrganizationRepo {
  insert(org: Organization): Promise<void>;
  findByName(name: string): Promise<Organization | undefined>;
  findById(id: string): Promise<Organization | undefined>;
  list(): Promise<Organization[]>;
}

export interface ApiKeyRepo {
  insert(key: ApiKey): Promise<void>;
  update(key: ApiKey): Promise<void>;
  findByHash(hash: string): Promise<ApiKey | undefined>;
  findByPrefix(prefix: string): Promise<ApiKey[]>;
  list(orgId?: string): Promise<ApiKey[]>;
}

export interface CollectionRepo {
  insert(collection: Collection): Promise<void>;
  update(collection: Collection): Promise<void>;
  /** By id first, then by ref; always inside the organization. */
  find(orgId: string, idOrRef: string): Promise<Collection | undefined>;
  list(orgId: string, page: PageRequest): Promise<Page<Collection>>;
  refs(orgId: string): Promise<string[]>;
}

export interface FieldRepo {
  insertMany(fields: Field[]): Promise<void>;
  /** In creation order. */
  listByCollection(orgId: string, collectionId: string): Promise<Field[]>;
}

export interface SettingsRepo {
  /** The stored value of `key`, storing `value` first when there is none (safe against concurrent callers). */
  getOrInsert(key: string, value: string): Promise<string>;
}

export interface Store {
  readonly organizations: OrganizationRepo;
  readonly apiKeys: ApiKeyRepo;
  readonly collections: CollectionRepo;
  readonly fields: FieldRepo;
  readonly settings: SettingsRepo;
  /** Runs `fn` in one transaction; inside a transaction, joins it. Throwing rolls everything back. */
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
