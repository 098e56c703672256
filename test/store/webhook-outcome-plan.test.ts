// A round's outcomes are one UPDATE joined to a JSON row set, which PostgreSQL estimates at 100 rows whatever
// it holds. Below ~20,000 deliveries the planner then preferred hashing the whole table to looking the ids up:
// every round read every delivery ever made (3.8 ms for a round of 28 at 7,000 deliveries). The statement also
// names the ids as an array, which the planner looks up in the primary key. Checked on the plan PostgreSQL
// makes for the statement as the store sends it, both the plan made for its values and the one kept for all.
// And it is sent unnamed, planned for each round: a plan kept per connection is the one made when the
// connection first sent it, in a new database while deliveries were few, which scanned the whole table on
// every round after (13–32 ms a round at 30,000 deliveries, in `bench:webhooks`).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { sql } from 'kysely';
import { ENGINES } from '../helpers/harness.ts';
import { openStoreWithRaw, type RawStore } from '../helpers/raw-store.ts';
import { insertEndpointRow } from '../helpers/webhooks.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import type { WebhookDelivery } from '../../src/domain/webhook-outbox.ts';

const DELIVERIES = 5000;
const ROUND = 30;

for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`a round's outcomes are written through the primary key (${engine})`, () => {
    let s: RawStore;
    let orgId: string;
    const query = pg.Client.prototype.query;
    let sent: { text: string; values: unknown[]; named: boolean } | undefined;
    before(async () => {
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const [first, values] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
        const text = typeof first === 'string' ? first : first?.text;
        if (typeof text === 'string' && /update webhook_deliveries as d/.test(text)) {
          sent = typeof first === 'string' ? { text, values: values ?? [], named: false } : { text, values: first.values ?? [], named: 'name' in first && first.name !== undefined };
        }
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      s = await openStoreWithRaw(engine);
      ({ organization: { id: orgId } } = await ensureOrganization(s.store, 'outcome-plan'));
      await insertEndpointRow(s.raw, orgId);
      await sql`insert into webhook_deliveries (id, org_id, endpoint_id, activity_id, status, attempts, next_attempt_at, resends)
        select 'd' || lpad(n::text, 6, '0'), ${orgId}, 'ep', 'a' || n, 'pending', 0, '', 0 from generate_series(1, ${DELIVERIES}) as n`.execute(s.raw);
      await sql`analyze webhook_deliveries`.execute(s.raw);
    });
    after(async () => {
      pg.Client.prototype.query = query;
      await s?.close();
    });

    it('records the outcomes, looking each delivery up by id', async () => {
      const delivery = (n: number): WebhookDelivery => ({
        id: `d${String(n).padStart(6, '0')}`,
        orgId,
        endpointId: 'ep',
        activityId: `a${n}`,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: '',
        lastAttemptAt: null,
        resends: 0,
      });
      const at = new Date().toISOString();
      await s.store.webhookDeliveries.saveOutcomes(Array.from({ length: ROUND }, (_, i) => ({ delivery: delivery(i + 1), status: 'succeeded', nextAttemptAt: null, attemptedAt: at })));
      const states = await sql<{ status: string; n: number }>`select status, count(*)::int as n from webhook_deliveries group by status order by status`.execute(s.raw);
      assert.deepEqual(states.rows, [
        { status: 'pending', n: DELIVERIES - ROUND },
        { status: 'succeeded', n: ROUND },
      ]);
      assert.ok(sent, 'the outcomes statement was sent');
      const statement = sent!;
      assert.equal(statement.named, false, 'sent unnamed, so PostgreSQL plans it for the table as it is now');
      for (const mode of ['force_custom_plan', 'force_generic_plan']) {
        const plan = await s.raw.connection().execute(async (c) => {
          await sql`begin`.execute(c);
          try {
            await sql.raw(`set local plan_cache_mode = ${mode}`).execute(c);
            const types = statement.values.map(() => 'text').join(', ');
            await sql.raw(`prepare outcomes (${types}) as ${statement.text}`).execute(c);
            const args = statement.values.map((v) => `'${String(v).replaceAll("'", "''")}'`).join(', ');
            const rows = await sql.raw<{ 'QUERY PLAN': string }>(`explain execute outcomes (${args})`).execute(c);
            return rows.rows.map((r) => r['QUERY PLAN']).join('\n');
          } finally {
            await sql`rollback`.execute(c);
            await sql`deallocate all`.execute(c);
          }
        });
        assert.match(plan, /webhook_deliveries_pkey/, `${mode}:\n${plan}`);
        assert.doesNotMatch(plan, /Seq Scan on webhook_deliveries/, `${mode}:\n${plan}`);
      }
    });
  });
}
