// The stand-in toolkit: admin keys, sandbox organizations, per-organization clocks, saved snapshots of an
// organization's state, and stored Idempotency-Key answers.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('admin', t.integer, (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('organizations').addColumn('sandbox', t.integer, (c) => c.notNull().defaultTo(0)).execute();

  // No row: the organization reads the system clock.
  await db.schema
    .createTable('org_clocks')
    .addColumn('org_id', t.text, (c) => c.primaryKey().references('organizations.id'))
    // Frozen at this instant (ISO text), or null when running.
    .addColumn('frozen_at', t.text)
    // Running: milliseconds added to the system clock.
    .addColumn('offset_ms', t.float, (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('snapshots')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('name', t.text, (c) => c.notNull())
    // JSON: table name → rows, as read from the organization's tables.
    .addColumn('data', t.text, (c) => c.notNull())
    .addColumn('rows', t.integer, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addUniqueConstraint('snapshots_org_name', ['org_id', 'name'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('key', t.text, (c) => c.notNull())
    // Hash of method, path, query and body: the same key with another request is refused.
    .addColumn('fingerprint', t.text, (c) => c.notNull())
    // Null while the first request is in flight.
    .addColumn('status', t.integer)
    // JSON object of the response headers that are replayed.
    .addColumn('headers', t.text)
    .addColumn('body', t.text)
    // Organization clock: the key is kept 24 hours from here.
    .addColumn('created_at', t.text, (c) => c.notNull())
    // System clock, milliseconds: an in-flight claim older than a minute was abandoned by a crashed process.
    .addColumn('claimed_at_ms', t.float, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['org_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').columns(['org_id', 'created_at']).execute();
}
