// The organization's AI agent settings (reference §5.19): one per organization, made with empty values the
// first time it is read or changed. Tycho runs no agents; it keeps the settings for the clients that edit them.
import { invalidAt } from './errors.ts';
import { timestamp, type Clock } from './clock.ts';
import { recordLock } from './locks.ts';
import type { Store } from './ports/store.ts';
import { characterCount, longerThan } from './characters.ts';

export interface AgentSettings {
  orgId: string;
  dealSummaryPrompt: string | null;
  meetingPrebriefPrompt: string | null;
  meetingSummaryPrompt: string | null;
  meetingWebSearch: boolean | null;
  organizationInfo: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AgentSettingsPatch {
  deal_summary_prompt?: string | null;
  meeting_prebrief_prompt?: string | null;
  meeting_summary_prompt?: string | null;
  meeting_web_search?: boolean | null;
  organization_info?: string | null;
}

const TEXT_MAX = 20_000;

const empty = (orgId: string, now: string): AgentSettings => ({
  orgId, dealSummaryPrompt: null, meetingPrebriefPrompt: null, meetingSummaryPrompt: null, meetingWebSearch: null, organizationInfo: null,
  createdAt: now, updatedAt: now,
});

export function getAgentSettings(store: Store, orgId: string, clock?: Clock): Promise<AgentSettings> {
  return store.agentSettings.getOrInsert(empty(orgId, timestamp(clock)));
}

function text(value: string | null | undefined, name: keyof AgentSettingsPatch): string | null | undefined {
  if (typeof value === 'string' && longerThan(value, TEXT_MAX)) throw invalidAt(`/${name}`, `${name} must be at most ${TEXT_MAX} characters, got ${characterCount(value)}`);
  return value;
}

export async function updateAgentSettings(store: Store, orgId: string, patch: AgentSettingsPatch, clock?: Clock): Promise<AgentSettings> {
  const changes: Partial<AgentSettings> = {};
  const set = <K extends keyof AgentSettings>(key: K, value: AgentSettings[K] | undefined) => {
    if (value !== undefined) changes[key] = value;
  };
  set('dealSummaryPrompt', text(patch.deal_summary_prompt, 'deal_summary_prompt'));
  set('meetingPrebriefPrompt', text(patch.meeting_prebrief_prompt, 'meeting_prebrief_prompt'));
  set('meetingSummaryPrompt', text(patch.meeting_summary_prompt, 'meeting_summary_prompt'));
  set('meetingWebSearch', patch.meeting_web_search);
  set('organizationInfo', text(patch.organization_info, 'organization_info'));
  return store.transaction(async (tx) => {
    // Two patches of different properties must not undo each other.
    await tx.lock([recordLock('agent_settings', orgId)]);
    const now = timestamp(clock);
    const next = { ...(await tx.agentSettings.getOrInsert(empty(orgId, now))), ...changes, updatedAt: now };
    await tx.agentSettings.update(next);
    return next;
  });
}
