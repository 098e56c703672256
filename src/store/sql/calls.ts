// Row mapping of calls. Participants' matched items and the call's tags are links (links.ts), not columns;
// participants' ids, phones and roles, recordings and the transcript are JSON.
import type { CallRecord } from '../../domain/calls.ts';
import { json, type RecordMapping } from './records.ts';
import type { CallsTable } from './schema.ts';

export const callMapping: RecordMapping<CallRecord, CallsTable, 'provider' | 'providerId'> = {
  toModel: (r) => ({
    id: r.id,
    orgId: r.org_id,
    direction: r.direction as CallRecord['direction'],
    provider: r.provider as CallRecord['provider'],
    providerId: r.provider_id,
    providerStatus: r.provider_status,
    providerMetadata: r.provider_metadata === null ? null : json.parse(r.provider_metadata),
    startAt: r.start_at,
    answeredAt: r.answered_at,
    endAt: r.end_at,
    participants: json.parse(r.participants),
    recordings: json.parse(r.recordings),
    transcript: r.transcript === null ? null : json.parse(r.transcript),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }),
  toRow: (c) => ({
    id: c.id,
    org_id: c.orgId,
    direction: c.direction,
    provider: c.provider,
    provider_id: c.providerId,
    provider_status: c.providerStatus,
    provider_metadata: c.providerMetadata === null ? null : json.text(c.providerMetadata),
    start_at: c.startAt,
    answered_at: c.answeredAt,
    end_at: c.endAt,
    participants: json.text(c.participants),
    recordings: json.text(c.recordings),
    transcript: c.transcript === null ? null : json.text(c.transcript),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  }),
  filters: { provider: 'provider', providerId: 'provider_id' },
};
