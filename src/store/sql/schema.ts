import type { Generated } from 'kysely';

// Row shapes of the tables, as Kysely sees them. Booleans are 0/1 integers and timestamps ISO text on every
// engine, so rows read back the same everywhere.

export interface OrganizationsTable {
  id: string;
  name: string;
  schema_tag: Generated<string>;
  created_at: string;
  /** 1 for a sandbox made through the toolkit (migration 0016). */
  sandbox: Generated<number>;
  /** A sandbox's: the organization whose admin key made it, and the snapshot it was cloned from (migration 0026). */
  parent_id: string | null;
  snapshot_name: string | null;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  name: string | null;
  prefix: string;
  hash: string;
  read_only: number;
  created_at: string;
  revoked_at: string | null;
  /** 1: the key may also make the toolkit's admin calls (migration 0016). */
  admin: Generated<number>;
}

export interface CollectionsTable {
  id: string;
  org_id: string;
  ref: string;
  name: string;
  description: string | null;
  icon_name: string;
  kind: string;
  created_at: string;
  updated_at: string;
}

export interface FieldsTable {
  id: string;
  org_id: string;
  collection_id: string;
  ref: string;
  name: string;
  description: string | null;
  type: string;
  cardinality: string;
  required: number;
  is_unique: number;
  readonly: number;
  kind: string;
  /** The funnel of a stage field, as a column so funnels in use can be found. */
  funnel_id: string | null;
  /** JSON of FieldConfig. */
  config: string;
  /** JSON array. */
  default_values: string;
  created_at: string;
  updated_at: string;
}

export interface FunnelsTable {
  id: string;
  org_id: string;
  name: string;
  /** JSON array of steps. */
  steps: string;
  created_at: string;
  updated_at: string;
}

export interface ItemsTable {
  id: string;
  org_id: string;
  collection_id: string;
  /** JSON: field id → array of stored values. */
  doc: string;
  /** The item's wire form as answers send it (domain/item-wire.ts); null until the migration that added it fills it. */
  wire: string | null;
  /** The wire tag of the schema `wire` was rendered under; '' when there is none. */
  wire_tag: Generated<string>;
  created_at: string;
  updated_at: string;
}

/** One row per value: the typed, normalised keys filters, sorts and unique checks use. */
export interface ItemValuesTable {
  item_id: string;
  field_id: string;
  position: number;
  key_text: string | null;
  /** key_text reversed, for ends_with as a range scan. */
  key_rev: string | null;
  key_num: number | null;
}

export interface ActivitiesTable {
  id: string;
  org_id: string;
  type: string;
  occurred_at: string;
  /** JSON array of constituents. */
  constituents: string;
}

export interface ActivityEntitiesTable {
  activity_id: string;
  org_id: string;
  entity_type: string;
  entity_id: string;
  relation: string;
  occurred_at: string;
}

export interface TagsetsTable {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  /** JSON array of tags. */
  tags: string;
  created_at: string;
  updated_at: string;
}

export interface NotesTable {
  id: string;
  org_id: string;
  title: string | null;
  /** Markdown. */
  body: string;
  lock_version: number;
  created_at: string;
  updated_at: string;
}

export interface InboxesTable {
  id: string;
  org_id: string;
  name: string;
  email: string;
  created_at: string;
  updated_at: string;
}

export interface FilesTable {
  id: string;
  org_id: string;
  name: string;
  filename: string;
  content_type: string;
  size: number;
  blob_key: string;
  created_at: string;
  updated_at: string;
  /** The name as global search compares it (`fileNameKey`, migration 0030). */
  name_key: string;
}

export interface InboxConversationsTable {
  id: string;
  org_id: string;
  inbox_id: string;
  subject: string;
  state: string;
  draft: number;
  last_message_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface InboxMessagesTable {
  id: string;
  org_id: string;
  inbox_id: string;
  conversation_id: string;
  subject: string;
  body: string;
  draft: number;
  lock_version: number;
  /** JSON array of addresses. */
  addresses: string;
  created_at: string;
  sent_at: string | null;
}

export interface MessageAttachmentsTable {
  id: string;
  org_id: string;
  message_id: string;
  filename: string;
  content_type: string;
  size: number;
  blob_key: string;
  created_at: string;
}

export interface SettingsTable {
  key: string;
  value: string;
}

/** An association from one entity to another (or to a whole kind, `to_id` null), in order within its role. */
/** A saved view of a collection (migration 0010); `default_of` is the collection id on its default view. */
export interface ViewsTable {
  id: string;
  org_id: string;
  collection_id: string;
  name: string;
  view_type: string;
  filter: string | null;
  sort: string;
  default_of: string | null;
  created_at: string;
  updated_at: string;
}

export interface LinksTable {
  org_id: string;
  from_type: string;
  from_id: string;
  role: string;
  position: number;
  to_type: string;
  to_id: string | null;
}

export interface CallsTable {
  id: string;
  org_id: string;
  direction: string;
  provider: string;
  provider_id: string;
  provider_status: string;
  /** JSON object, as sent. */
  provider_metadata: string | null;
  start_at: string;
  answered_at: string | null;
  end_at: string | null;
  /** JSON array of {id, phone, role}. */
  participants: string;
  /** JSON array of recordings. */
  recordings: string;
  /** JSON {cues}. */
  transcript: string | null;
  created_at: string;
  updated_at: string;
}

/** A meeting; `participants`, `recording` and `transcript` are JSON, `held_at` is set once meeting_held is recorded. */
export interface MeetingsTable {
  id: string;
  org_id: string;
  i_cal_uid: string;
  provider_id: string;
  title: string | null;
  description: string | null;
  location: string | null;
  start_at: string;
  end_at: string;
  time_zone: string;
  provider_uri: string | null;
  participants: string;
  recording: string | null;
  transcript: string | null;
  held_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProgramsTable {
  id: string;
  org_id: string;
  display_name: string | null;
  status: string;
  trigger: string;
  track_opens: number;
  track_clicks: number;
  scheduled_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProgramTemplatesTable {
  id: string;
  org_id: string;
  program_id: string;
  subject: string;
  body: string;
  created_at: string;
  updated_at: string;
}

export interface ProgramMessagesTable {
  id: string;
  org_id: string;
  program_id: string;
  program_template_id: string;
  recipient_id: string;
  email: string;
  /** JSON object. */
  custom_variables: string;
  status: string;
  due_at: string;
  attempts: number;
  reason_code: string | null;
  error: string | null;
  transport: string | null;
  sender: string | null;
  subject: string | null;
  body: string | null;
  sent_at: string | null;
  opened_at: string | null;
  clicked_at: string | null;
  bounced_at: string | null;
  complained_at: string | null;
  unsubscribed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface UnsubscribesTable {
  id: string;
  org_id: string;
  email: string;
  created_at: string;
}

export interface AgentSettingsTable {
  org_id: string;
  deal_summary_prompt: string | null;
  meeting_prebrief_prompt: string | null;
  meeting_summary_prompt: string | null;
  meeting_web_search: number | null;
  organization_info: string | null;
  created_at: string;
  updated_at: string;
}

export interface FormsTable {
  id: string;
  org_id: string;
  collection_id: string;
  name: string;
  pages_enabled: number;
  business_email_required: number;
  redirect_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  org_id: string;
  url: string;
  status: string;
  /** `whsec_` + base64 of the signing key. */
  secret: string;
  /** JSON array of `{id, event_type}`, in the order given. */
  subscriptions: string;
  failing_since: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookSubscriptionsTable {
  org_id: string;
  event_type: string;
  endpoint_id: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  org_id: string;
  endpoint_id: string;
  activity_id: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  resends: number;
}

export interface WebhookAttemptsTable {
  id: string;
  org_id: string;
  endpoint_id: string;
  delivery_id: string;
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

export interface Database {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  collections: CollectionsTable;
  fields: FieldsTable;
  funnels: FunnelsTable;
  items: ItemsTable;
  item_values: ItemValuesTable;
  activities: ActivitiesTable;
  tagsets: TagsetsTable;
  notes: NotesTable;
  inboxes: InboxesTable;
  files: FilesTable;
  inbox_conversations: InboxConversationsTable;
  inbox_messages: InboxMessagesTable;
  message_attachments: MessageAttachmentsTable;
  activity_entities: ActivityEntitiesTable;
  settings: SettingsTable;
  links: LinksTable;
  meetings: MeetingsTable;
  calls: CallsTable;
  views: ViewsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  programs: ProgramsTable;
  program_templates: ProgramTemplatesTable;
  program_messages: ProgramMessagesTable;
  unsubscribes: UnsubscribesTable;
  agent_settings: AgentSettingsTable;
  forms: FormsTable;
  org_clocks: OrgClocksTable;
  snapshots: SnapshotsTable;
  idempotency_keys: IdempotencyKeysTable;
  request_journal: RequestJournalTable;
}

/** An organization's controlled clock (migration 0016): frozen at an instant, or running at an offset. */
export interface OrgClocksTable {
  org_id: string;
  frozen_at: string | null;
  offset_ms: number;
}

/** A saved state of an organization: its rows by table, as JSON. */
export interface SnapshotsTable {
  id: string;
  org_id: string;
  name: string;
  data: string;
  rows: number;
  created_at: string;
}

/** The stored answer to a request with an Idempotency-Key; `status` is null while it is in flight. */
export interface IdempotencyKeysTable {
  org_id: string;
  key: string;
  fingerprint: string;
  status: number | null;
  headers: string | null;
  body: string | null;
  created_at: string;
  claimed_at_ms: number;
  /** 1 once a write transaction of the claiming request committed (migration 0029). */
  wrote: Generated<number>;
}

/** One request in an organization's journal (migration 0017). */
export interface RequestJournalTable {
  id: string;
  org_id: string;
  request_id: string;
  method: string;
  path: string;
  query: string;
  status: number;
  latency_ms: number;
  request_headers: string;
  request_body: string | null;
  response_body: string | null;
  occurred_at: string;
}
