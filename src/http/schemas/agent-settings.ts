// Wire shape of the agent settings singleton (reference §5.19) and its update body.
import { Type, type Static } from 'typebox';
import type { AgentSettings } from '../../domain/agent-settings.ts';
import { Timestamp } from './common.ts';

const NullableString = Type.Union([Type.String(), Type.Null()], { errorMessage: 'must be a string or null' });

export const AgentSettingsWire = Type.Object(
  {
    type: Type.Literal('agent_settings'),
    deal_summary_prompt: Type.Optional(Type.String()),
    meeting_prebrief_prompt: Type.Optional(Type.String()),
    meeting_summary_prompt: Type.Optional(Type.String()),
    meeting_web_search: Type.Optional(Type.Boolean()),
    organization_info: Type.Optional(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    examples: [
      {
        type: 'agent_settings',
        deal_summary_prompt: 'Summarise the deal in three bullet points.',
        meeting_web_search: true,
        organization_info: 'Acme sells rockets to coyotes.',
        created_at: '2025-02-17T16:00:00.000Z',
        updated_at: '2025-02-17T16:00:00.000Z',
      },
    ],
  },
);

export const UpdateAgentSettingsBody = Type.Object(
  {
    deal_summary_prompt: Type.Optional(NullableString),
    meeting_prebrief_prompt: Type.Optional(NullableString),
    meeting_summary_prompt: Type.Optional(NullableString),
    meeting_web_search: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { errorMessage: 'must be true, false or null' })),
    organization_info: Type.Optional(NullableString),
  },
  { examples: [{ deal_summary_prompt: 'Summarise the deal in three bullet points.', meeting_prebrief_prompt: null, meeting_web_search: true }] },
);

/** Unset properties are left out, as the hosted service does with optional ones. */
export function renderAgentSettings(s: AgentSettings): Static<typeof AgentSettingsWire> {
  const out: Static<typeof AgentSettingsWire> = { type: 'agent_settings', created_at: s.createdAt, updated_at: s.updatedAt };
  if (s.dealSummaryPrompt !== null) out.deal_summary_prompt = s.dealSummaryPrompt;
  if (s.meetingPrebriefPrompt !== null) out.meeting_prebrief_prompt = s.meetingPrebriefPrompt;
  if (s.meetingSummaryPrompt !== null) out.meeting_summary_prompt = s.meetingSummaryPrompt;
  if (s.meetingWebSearch !== null) out.meeting_web_search = s.meetingWebSearch;
  if (s.organizationInfo !== null) out.organization_info = s.organizationInfo;
  return out;
}
