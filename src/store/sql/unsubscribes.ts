// The unsubscribe list (one row per organization and address) and the agent settings singleton.
import type { Kysely } from 'kysely';
import type { AgentSettings } from '../../domain/agent-settings.ts';
import type { Unsubscribe } from '../../domain/unsubscribes.ts';
import type { AgentSettingsRepo, UnsubscribeRepo } from '../../domain/ports/store.ts';
import { mapPage } from '../../domain/pagination.ts';
import { fetchPage } from './keyset.ts';
import type { AgentSettingsTable, Database, UnsubscribesTable } from './schema.ts';

const toUnsubscribe = (r: UnsubscribesTable): Unsubscribe => ({ id: r.id, orgId: r.org_id, email: r.email, createdAt: r.created_at });

export function unsubscribeRepo(db: Kysely<Database>): UnsubscribeRepo {
  const byEmail = (orgId: string, email: string) => db.selectFrom('unsubscribes').selectAll().where('org_id', '=', orgId).where('email', '=', email).executeTakeFirst();
  return {
    async insertOrGet(u) {
      // The unique (org_id, email) index keeps one entry, whoever adds it first.
      await db
        .insertInto('unsubscribes')
        .values({ id: u.id, org_id: u.orgId, email: u.email, created_at: u.createdAt })
        .onConflict((oc) => oc.columns(['org_id', 'email']).doNothing())
        .execute();
      return toUnsubscribe((await byEmail(u.orgId, u.email))!);
    },
    async findByEmail(orgId, email) {
      const row = await byEmail(orgId, email);
      return row && toUnsubscribe(row);
    },
    async delete(orgId, email) {
      const result = await db.deleteFrom('unsubscribes').where('org_id', '=', orgId).where('email', '=', email).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async list(orgId, page) {
      const query = db.selectFrom('unsubscribes as r').selectAll('r').where('r.org_id', '=', orgId);
      return mapPage(await fetchPage(query, [{ column: 'r.id', desc: false }], page, (r) => ({ key: [], id: r.id })), toUnsubscribe);
    },
  };
}

const toSettings = (r: AgentSettingsTable): AgentSettings => ({
  orgId: r.org_id,
  dealSummaryPrompt: r.deal_summary_prompt,
  meetingPrebriefPrompt: r.meeting_prebrief_prompt,
  meetingSummaryPrompt: r.meeting_summary_prompt,
  meetingWebSearch: r.meeting_web_search === null ? null : r.meeting_web_search === 1,
  organizationInfo: r.organization_info,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const settingsRow = (s: AgentSettings): AgentSettingsTable => ({
  org_id: s.orgId,
  deal_summary_prompt: s.dealSummaryPrompt,
  meeting_prebrief_prompt: s.meetingPrebriefPrompt,
  meeting_summary_prompt: s.meetingSummaryPrompt,
  meeting_web_search: s.meetingWebSearch === null ? null : s.meetingWebSearch ? 1 : 0,
  organization_info: s.organizationInfo,
  created_at: s.createdAt,
  updated_at: s.updatedAt,
});

export function agentSettingsRepo(db: Kysely<Database>): AgentSettingsRepo {
  return {
    async getOrInsert(settings) {
      await db.insertInto('agent_settings').values(settingsRow(settings)).onConflict((oc) => oc.column('org_id').doNothing()).execute();
      return toSettings(await db.selectFrom('agent_settings').selectAll().where('org_id', '=', settings.orgId).executeTakeFirstOrThrow());
    },
    async update(settings) {
      const { org_id, ...rest } = settingsRow(settings);
      await db.updateTable('agent_settings').set(rest).where('org_id', '=', org_id).execute();
    },
  };
}
