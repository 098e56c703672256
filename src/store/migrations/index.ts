// The ordered list of schema migrations. Append only: a released migration is never edited.
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { ColumnTypes } from './column-types.ts';
import * as foundation from './0001-foundation.ts';
import * as items from './0002-items.ts';
import * as activities from './0003-activities.ts';
import * as library from './0004-library.ts';
import * as messages from './0005-messages.ts';
import * as textKeys from './0006-text-keys.ts';
import * as links from './0007-links.ts';
import * as calls from './0008-calls.ts';
import * as meetings from './0009-meetings.ts';
import * as views from './0010-views.ts';
import * as programs from './0011-programs.ts';
import * as unsubscribes from './0012-unsubscribes.ts';
import * as forms from './0013-forms.ts';
import * as webhooks from './0014-webhooks.ts';
import * as webhookDeliveries from './0015-webhook-deliveries.ts';
import * as toolkit from './0016-toolkit.ts';
import * as requestJournal from './0017-request-journal.ts';
import * as webhookDeliveryRounds from './0018-webhook-delivery-rounds.ts';
import * as itemWire from './0019-item-wire.ts';
import * as foreignKeyIndexes from './0020-foreign-key-indexes.ts';
import * as organizationReferences from './0021-organization-references.ts';
import * as fieldsByType from './0022-fields-by-type.ts';
import * as webhookPendingIndexes from './0023-webhook-pending-indexes.ts';
import * as webhookDeliveryByEndpoint from './0024-webhook-delivery-by-endpoint.ts';
import * as schemaGuard from './0025-schema-guard.ts';
import * as sandboxParents from './0026-sandbox-parents.ts';
import * as schemaGuardLocks from './0027-schema-guard-locks.ts';
import * as webhookEndpointDue from './0028-webhook-endpoint-due.ts';
import * as idempotencyWrites from './0029-idempotency-writes.ts';
import * as fileNameKeys from './0030-file-name-keys.ts';

type Step = { up(db: Kysely<unknown>, types: ColumnTypes): Promise<void> };

const MIGRATIONS: Record<string, Step> = {
  '0001-foundation': foundation,
  '0002-items': items,
  '0003-activities': activities,
  '0004-library': library,
  '0005-messages': messages,
  '0006-text-keys': textKeys,
  '0007-links': links,
  '0008-calls': calls,
  '0009-meetings': meetings,
  '0010-views': views,
  '0011-programs': programs,
  '0012-unsubscribes': unsubscribes,
  '0013-forms': forms,
  '0014-webhooks': webhooks,
  '0015-webhook-deliveries': webhookDeliveries,
  '0016-toolkit': toolkit,
  '0017-request-journal': requestJournal,
  '0018-webhook-delivery-rounds': webhookDeliveryRounds,
  '0019-item-wire': itemWire,
  '0020-foreign-key-indexes': foreignKeyIndexes,
  '0021-organization-references': organizationReferences,
  '0022-fields-by-type': fieldsByType,
  '0023-webhook-pending-indexes': webhookPendingIndexes,
  '0024-webhook-delivery-by-endpoint': webhookDeliveryByEndpoint,
  '0025-schema-guard': schemaGuard,
  '0026-sandbox-parents': sandboxParents,
  '0027-schema-guard-locks': schemaGuardLocks,
  '0028-webhook-endpoint-due': webhookEndpointDue,
  '0029-idempotency-writes': idempotencyWrites,
  '0030-file-name-keys': fileNameKeys,
};

/**
 * Applies the steps not applied yet, in order, and names them; `upTo` stops after the step of that name (tests
 * build older schemas).
 */
export async function migrate(db: Kysely<any>, types: ColumnTypes, upTo?: string): Promise<string[]> {
  const migrations = Object.fromEntries(
    Object.entries(MIGRATIONS).map(([name, step]): [string, Migration] => [name, { up: (db) => step.up(db, types) }]),
  );
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const migrator = new Migrator({ db, provider });
  const { error, results } = upTo === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(upTo);
  if (error) throw error;
  return (results ?? []).map((r) => r.migrationName);
}
