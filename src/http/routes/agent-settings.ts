// /v0/agent_settings: the organization's agent settings singleton; read and change any of its five properties.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getAgentSettings, updateAgentSettings } from '../../domain/agent-settings.ts';
import { errorResponses } from '../schemas/common.ts';
import { AgentSettingsWire, renderAgentSettings, UpdateAgentSettingsBody } from '../schemas/agent-settings.ts';
import type { RouteDeps } from '../route-deps.ts';

const TAGS = ['Agent settings'];

export const agentSettingsRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store, clock }) => {
  app.get(
    '/agent_settings',
    {
      schema: { summary: 'Retrieve agent settings', description: 'The organization\'s AI agent settings.', tags: TAGS, response: { 200: AgentSettingsWire } },
    },
    async (req) => renderAgentSettings(await getAgentSettings(store, req.principal.orgId, clock)),
  );

  app.patch(
    '/agent_settings',
    {
      schema: {
        summary: 'Update agent settings',
        description: 'Changes the given properties; `null` clears one.',
        tags: TAGS,
        body: UpdateAgentSettingsBody,
        response: { 200: AgentSettingsWire, ...errorResponses(400, 422) },
      },
    },
    async (req) => renderAgentSettings(await updateAgentSettings(store, req.principal.orgId, req.body, clock)),
  );
};
