// Programs, program templates and program messages. Messages have their own repository: the sender claims
// due rows across processes (PostgreSQL `FOR UPDATE SKIP LOCKED`, so concurrent senders take disjoint rows;
// SQLite has one writer at a time), completes them only while its claim holds, and a program's metrics are
// counted from its messages with one indexed aggregate.
import { sql, type Kysely } from 'kysely';
import type { DeliveryEvent, ProgramMessage } from '../../domain/program-messages.ts';
import type { Program, ProgramTemplate } from '../../domain/programs.ts';
import type { ProgramMessageRepo, ProgramTemplateRepo } from '../../domain/ports/store.ts';
import { mapPage } from '../../domain/pagination.ts';
import { fetchPage } from './keyset.ts';
import { dueBy, timeOf } from './due-times.ts';
import { json, recordRepo, type RecordMapping } from './records.ts';
import type { Database, ProgramMessagesTable, ProgramsTable, ProgramTemplatesTable } from './schema.ts';

export const programMapping: RecordMapping<Program, ProgramsTable> = {
  toModel: (r) => ({
    id: r.id,
    orgId: r.org_id,
    displayName: r.display_name,
    status: r.status as Program['status'],
    trigger: r.trigger as Program['trigger'],
    trackOpens: r.track_opens === 1,
    trackClicks: r.track_clicks === 1,
    scheduledAt: r.scheduled_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  toRow: (p) => ({
    id: p.id,
    org_id: p.orgId,
    display_name: p.displayName,
    status: p.status,
    trigger: p.trigger,
    track_opens: p.trackOpens ? 1 : 0,
    track_clicks: p.trackClicks ? 1 : 0,
    scheduled_at: p.scheduledAt,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  }),
  filters: {},
};

const templateMapping: RecordMapping<ProgramTemplate, ProgramTemplatesTable, 'programId'> = {
  toModel: (r) => ({ id: r.id, orgId: r.org_id, programId: r.program_id, subject: r.subject, body: r.body, createdAt: r.created_at, updatedAt: r.updated_at }),
  toRow: (t) => ({ id: t.id, org_id: t.orgId, program_id: t.programId, subject: t.subject, body: t.body, created_at: t.createdAt, updated_at: t.updatedAt }),
  filters: { programId: 'program_id' },
};

export function programTemplateRepo(db: Kysely<Database>): ProgramTemplateRepo {
  return {
    ...recordRepo(db, 'program_templates', templateMapping),
    async listNewestFirst(orgId, page) {
      const query = db.selectFrom('program_templates as r').selectAll('r').where('r.org_id', '=', orgId);
      const result = await fetchPage(query, [{ column: 'r.id', desc: true }], page, (r) => ({ key: [], id: r.id }));
      return mapPage(result, templateMapping.toModel);
    },
  };
}

/** The column holding when each delivery event was first reported. */
const EVENT_COLUMNS = {
  opened: 'opened_at',
  clicked: 'clicked_at',
  bounced: 'bounced_at',
  complained: 'complained_at',
  unsubscribed: 'unsubscribed_at',
} as const satisfies Record<DeliveryEvent, keyof ProgramMessagesTable>;

const EVENTS = Object.keys(EVENT_COLUMNS) as DeliveryEvent[];

type MessageRow = ProgramMessagesTable;

function toModel(r: MessageRow): ProgramMessage {
  const events: ProgramMessage['events'] = {};
  for (const event of EVENTS) {
    const at = r[EVENT_COLUMNS[event]];
    if (at !== null) events[event] = at;
  }
  return {
    id: r.id,
    orgId: r.org_id,
    programId: r.program_id,
    templateId: r.program_template_id,
    recipientId: r.recipient_id,
    email: r.email,
    customVariables: json.parse(r.custom_variables),
    status: r.status as ProgramMessage['status'],
    dueAt: r.due_at,
    attempts: r.attempts,
    reasonCode: r.reason_code,
    error: r.error,
    transport: r.transport as ProgramMessage['transport'],
    sender: r.sender,
    subject: r.subject,
    body: r.body,
    sentAt: r.sent_at,
    events,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toRow(m: ProgramMessage): MessageRow {
  return {
    id: m.id,
    org_id: m.orgId,
    program_id: m.programId,
    program_template_id: m.templateId,
    recipient_id: m.recipientId,
    email: m.email,
    custom_variables: json.text(m.customVariables),
    status: m.status,
    due_at: m.dueAt,
    attempts: m.attempts,
    reason_code: m.reasonCode,
    error: m.error,
    transport: m.transport,
    sender: m.sender,
    subject: m.subject,
    body: m.body,
    sent_at: m.sentAt,
    opened_at: m.events.opened ?? null,
    clicked_at: m.events.clicked ?? null,
    bounced_at: m.events.bounced ?? null,
    complained_at: m.events.complained ?? null,
    unsubscribed_at: m.events.unsubscribed ?? null,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

/** `skipLocked`: the engine can skip rows other transactions hold (PostgreSQL). */
export function programMessageRepo(db: Kysely<Database>, skipLocked: boolean): ProgramMessageRepo {
  return {
    async insert(message) {
      await db.insertInto('program_messages').values(toRow(message)).execute();
    },
    async find(orgId, id) {
      const row = await db.selectFrom('program_messages').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return row && toModel(row);
    },
    async claimDue(dueTimes, leaseEnd, limit) {
      let due = db
        .selectFrom('program_messages')
        .select('id')
        .where('status', 'in', ['queued', 'sending'])
        .where(dueBy('org_id', 'due_at', dueTimes))
        .orderBy('due_at')
        .orderBy('id')
        .limit(limit);
      if (skipLocked) due = due.forUpdate().skipLocked();
      const rows = await db
        .updateTable('program_messages')
        .set({ status: 'sending', due_at: timeOf('org_id', leaseEnd), attempts: sql<number>`attempts + 1` })
        .where('id', 'in', due)
        .returningAll()
        .execute();
      return rows.map(toModel).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
    },
    async complete(message, claimedAttempts) {
      const { id, org_id, opened_at: _o, clicked_at: _c, bounced_at: _b, complained_at: _m, unsubscribed_at: _u, ...rest } = toRow(message);
      const result = await db
        .updateTable('program_messages')
        .set(rest)
        .where('org_id', '=', org_id)
        .where('id', '=', id)
        .where('status', '=', 'sending')
        .where('attempts', '=', claimedAttempts)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async recordEvent(orgId, id, event, at) {
      const column = EVENT_COLUMNS[event];
      await db.updateTable('program_messages').set({ [column]: at, updated_at: at }).where('org_id', '=', orgId).where('id', '=', id).where(column, 'is', null).execute();
    },
    async metrics(orgId, programId) {
      const row = await db
        .selectFrom('program_messages')
        .where('org_id', '=', orgId)
        .where('program_id', '=', programId)
        .select((eb) => [
          eb.fn.sum<number | string | null>(eb.case().when('status', '=', 'sent').then(1).else(0).end()).as('sent'),
          eb.fn.sum<number | string | null>(eb.case().when('status', '=', 'failed').then(1).else(0).end()).as('failed'),
          eb.fn.sum<number | string | null>(eb.case().when('status', '=', 'shielded').then(1).else(0).end()).as('shielded'),
          eb.fn.count<number | string>('opened_at').as('opened'),
          eb.fn.count<number | string>('clicked_at').as('clicked'),
          eb.fn.count<number | string>('bounced_at').as('bounced'),
          eb.fn.count<number | string>('complained_at').as('complained'),
          eb.fn.count<number | string>('unsubscribed_at').as('unsubscribed'),
        ])
        .executeTakeFirstOrThrow();
      const n = (value: number | string | null) => Number(value ?? 0);
      return {
        sent: n(row.sent), opened: n(row.opened), clicked: n(row.clicked), bounced: n(row.bounced),
        complained: n(row.complained), failed: n(row.failed), shielded: n(row.shielded), unsubscribed: n(row.unsubscribed),
      };
    },
    async listOutbox(orgId, page) {
      const query = db.selectFrom('program_messages as r').selectAll('r').where('r.org_id', '=', orgId).where('r.transport', '=', 'outbox');
      const result = await fetchPage(query, [{ column: 'r.id', desc: false }], page, (r) => ({ key: [], id: r.id }));
      return mapPage(result, toModel);
    },
  };
}
