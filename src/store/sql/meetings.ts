// Meetings: the generic owned-record repository, plus the two queries behind `activity/meeting_held` (the
// meetings due for it, and the conditional update that claims one). Participants, recording and transcript
// are JSON; participants' matches and the meeting's tags are links (links.ts).
import type { Kysely } from 'kysely';
import type { Meeting } from '../../domain/meetings.ts';
import type { MeetingRepo } from '../../domain/ports/store.ts';
import { json, recordRepo, type RecordMapping } from './records.ts';
import type { Database, MeetingsTable } from './schema.ts';

export const meetingMapping: RecordMapping<Meeting, MeetingsTable, 'iCalUid'> = {
  toModel: (r) => ({
    id: r.id,
    orgId: r.org_id,
    iCalUid: r.i_cal_uid,
    providerId: r.provider_id,
    title: r.title,
    description: r.description,
    location: r.location,
    startAt: r.start_at,
    endAt: r.end_at,
    timeZone: r.time_zone,
    providerUri: r.provider_uri,
    participants: json.parse(r.participants),
    recording: r.recording === null ? null : json.parse(r.recording),
    transcript: r.transcript === null ? null : json.parse(r.transcript),
    heldAt: r.held_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  toRow: (m) => ({
    id: m.id,
    org_id: m.orgId,
    i_cal_uid: m.iCalUid,
    provider_id: m.providerId,
    title: m.title,
    description: m.description,
    location: m.location,
    start_at: m.startAt,
    end_at: m.endAt,
    time_zone: m.timeZone,
    provider_uri: m.providerUri,
    participants: json.text(m.participants),
    recording: m.recording === null ? null : json.text(m.recording),
    transcript: m.transcript === null ? null : json.text(m.transcript),
    held_at: m.heldAt,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  }),
  filters: { iCalUid: 'i_cal_uid' },
};

export function meetingRepo(db: Kysely<Database>): MeetingRepo {
  const records = recordRepo(db, 'meetings', meetingMapping);
  return {
    ...records,
    // held_at is written only by claimHeld: a whole-row update must not clear a claim made meanwhile.
    async update(meeting) {
      const { id, org_id, held_at: _held, ...rest } = meetingMapping.toRow(meeting);
      await db.updateTable('meetings').set(rest).where('id', '=', id).where('org_id', '=', org_id).execute();
    },
    async dueHeld(now, limit, orgId) {
      let query = db.selectFrom('meetings').selectAll().where('held_at', 'is', null).where('end_at', '<=', now);
      if (orgId !== undefined) query = query.where('org_id', '=', orgId);
      const rows = await query.orderBy('end_at').orderBy('id').limit(limit).execute();
      return rows.map(meetingMapping.toModel);
    },
    async claimHeld(orgId, id, at) {
      const result = await db.updateTable('meetings').set({ held_at: at }).where('org_id', '=', orgId).where('id', '=', id).where('held_at', 'is', null).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
