// On PostgreSQL every transaction that writes a delivery holds a KEY SHARE lock on its endpoint's row until it
// commits (the foreign key's check). A claim that locked endpoints FOR UPDATE skipped every endpoint some
// create was writing to at that moment, which under a steady stream of events is nearly always: the claim
// takes the lease (columns no key depends on) with FOR NO KEY UPDATE, which such a lock does not block, and
// which two claims still cannot both take.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ENGINES } from '../helpers/harness.ts';
import { openStoreWithRaw, type RawStore } from '../helpers/raw-store.ts';
import { insertEndpointRow } from '../helpers/webhooks.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { DUE_AT_ONCE } from '../../src/domain/webhook-outbox.ts';

for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`a delivery claim is not blocked by the deliveries being written (${engine})`, () => {
    let s: RawStore;
    let orgId: string;
    before(async () => {
      s = await openStoreWithRaw(engine);
      ({ organization: { id: orgId } } = await ensureOrganization(s.store, 'claim-locks'));
      await insertEndpointRow(s.raw, orgId);
      await sql`insert into webhook_deliveries (id, org_id, endpoint_id, activity_id, status, attempts, next_attempt_at, resends)
        values ('d1', ${orgId}, 'ep', 'a1', 'pending', 0, ${DUE_AT_ONCE}, 0)`.execute(s.raw);
    });
    after(() => s?.close());

    const claim = (owner: string) => {
      const now = Date.now();
      return s.store.webhookEndpoints.claimDue({
        due: { others: new Date(now).toISOString(), orgs: [] },
        owner,
        leaseNow: new Date(now).toISOString(),
        leaseUntil: new Date(now + 120_000).toISOString(),
        keepUntil: new Date(now + 60_000).toISOString(),
        limit: 10,
      });
    };

    it('leases an endpoint while a create writing a delivery to it is in flight, and only to one claimant', async () => {
      await s.raw.connection().execute(async (c) => {
        await sql`begin`.execute(c);
        try {
          // What an uncommitted create holds: its new delivery row, and KEY SHARE on the endpoint (the foreign key).
          await sql`insert into webhook_deliveries (id, org_id, endpoint_id, activity_id, status, attempts, next_attempt_at, resends)
            values ('d2', ${orgId}, 'ep', 'a2', 'pending', 0, ${DUE_AT_ONCE}, 0)`.execute(c);
          const claimed = await claim('w1');
          assert.deepEqual(claimed.map((e) => e.id), ['ep'], 'leased despite the create in flight');
          assert.deepEqual(await claim('w2'), [], 'not to a second claimant while the lease lives');
        } finally {
          await sql`rollback`.execute(c);
        }
      });
    });
  });
}
