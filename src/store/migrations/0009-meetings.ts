// Meetings (reference §5.16): calendar events by iCalendar UID, with the recording and transcript PATCH adds.
// Organizer and attendees are kept in order in a JSON column; their matches to people and organizations, and
// the meeting's tags, are links. `held_at` is set once, when `activity/meeting_held` is recorded: the
// conditional update that sets it is what keeps that activity from being recorded twice.
import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.ts';

export async function up(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await db.schema
    .createTable('meetings')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('org_id', t.text, (c) => c.notNull().references('organizations.id'))
    .addColumn('i_cal_uid', t.text, (c) => c.notNull())
    .addColumn('provider_id', t.text, (c) => c.notNull())
    .addColumn('title', t.text)
    .addColumn('description', t.text)
    .addColumn('location', t.text)
    .addColumn('start_at', t.text, (c) => c.notNull())
    .addColumn('end_at', t.text, (c) => c.notNull())
    .addColumn('time_zone', t.text, (c) => c.notNull())
    .addColumn('provider_uri', t.text)
    .addColumn('participants', t.text, (c) => c.notNull())
    .addColumn('recording', t.text)
    .addColumn('transcript', t.text)
    .addColumn('held_at', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('meetings_org_id').on('meetings').columns(['org_id', 'id']).execute();
  // One meeting per calendar event in an organization: imports and creates find it by its UID.
  await db.schema.createIndex('meetings_i_cal_uid').unique().on('meetings').columns(['org_id', 'i_cal_uid']).execute();
  // Meetings whose end has passed without `meeting_held` yet, in one organization or in all of them.
  await db.schema.createIndex('meetings_held_org').on('meetings').columns(['org_id', 'held_at', 'end_at']).execute();
  await db.schema.createIndex('meetings_held').on('meetings').columns(['held_at', 'end_at']).execute();
}
