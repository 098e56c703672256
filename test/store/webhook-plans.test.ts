// The outbox's work indexes are partial (`where status = 'pending'`, migration 0023): they hold only the
// deliveries still to send, so sending one deletes its entries instead of moving them within indexes of every
// delivery ever made. A partial index serves only a statement that says `status = 'pending'` in its text; a
// bound value would leave SQLite a scan or an index of every delivery. Checked on the plans of the statements
// a delivery round, a retry, a re-send and one organization's round on its own clock prepare; and the pruning
// of old history reaches its rows through indexes too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, type Harness } from '../helpers/harness.ts';
import { plansOf, recordStatements, type StatementRecorder } from '../helpers/sqlite-plans.ts';
import { makeItem, text } from '../helpers/items.ts';
import { makeEndpoint, manualClock, startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { deliverDue, RETRY_SCHEDULE_MS } from '../../src/domain/webhook-delivery.ts';
import { httpWebhookSender } from '../../src/webhook-sender.ts';
import { PUBLIC_ONLY } from '../../src/domain/webhook-urls.ts';
import { HISTORY_RETENTION_MS, pruneWebhookHistory } from '../../src/domain/webhook-history.ts';

const PARTIAL = ['webhook_deliveries_endpoint_due', 'webhook_deliveries_endpoint_pending'];

describe('webhook work is found through the partial indexes of pending deliveries (sqlite)', () => {
  let h: Harness;
  let dir: string;
  let receiver: Receiver;
  const clock = manualClock();
  let recorder: StatementRecorder;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tycho-webhook-plans-'));
    recorder = recordStatements();
    h = await createHarness('sqlite', { clock, env: { DATABASE_URL: join(dir, 'tycho.sqlite') } });
    receiver = await startReceiver();
  });
  after(async () => {
    recorder.restore();
    await receiver.close();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads pending deliveries only through those indexes, each of which some statement uses', async () => {
    const sender = httpWebhookSender(PUBLIC_ONLY);
    const deliver = (orgId?: string) => deliverDue(h.store, sender, { clock, random: () => 0.5, ...(orgId ? { orgId } : {}) });
    const ep = await makeEndpoint(h, receiver, ['activity/item_created']);
    recorder.start();
    receiver.answer = 500;
    await makeItem(h, 'people', { name: text('Ada') });
    assert.equal((await deliver()).failed, 1);
    receiver.answer = 200;
    clock.advance(RETRY_SCHEDULE_MS[0]!);
    assert.equal((await deliver(h.orgId)).succeeded, 1, 'the retry, in a round of its organization alone');
    const resent = await h.post(`/v0/tycho/webhook_endpoints/${ep.id}/deliveries`, { event_id: receiver.received.at(-1)!.id });
    assert.equal(resent.status, 202, resent.text);
    assert.equal((await deliver()).succeeded, 1, 'the re-send');
    const statements = recorder.stop().filter((s) => /^select\b/i.test(s) && /"webhook_deliveries"/.test(s));
    const found = plansOf(join(dir, 'tycho.sqlite'), statements);
    const pendingReads = found.filter(({ statement }) => /status" = 'pending'/.test(statement));
    assert.ok(pendingReads.length >= 3, `the claim, the due read and the organization's claim were recorded: ${statements.join('\n')}`);
    for (const { statement, steps } of pendingReads) {
      assert.ok(
        steps.some((step) => PARTIAL.some((index) => step.includes(`INDEX ${index} `) || step.endsWith(`INDEX ${index}`))),
        `${statement}\nis planned without a partial index: ${steps.join(' | ')}`,
      );
    }
    const used = PARTIAL.filter((index) => found.some(({ steps }) => steps.some((step) => step.includes(`INDEX ${index}`) && !step.includes(`${index}_`))));
    assert.deepEqual(used, PARTIAL);
    assert.deepEqual(
      found.filter(({ statement }) => /"d"\."status" = \?/.test(statement)).map(({ statement }) => statement),
      [],
      'no read binds the status',
    );
  });

  it('prunes old history through indexes: no statement of the sweep scans attempts or deliveries', async () => {
    // Runs after the test above: its attempts and sent deliveries are the history, aged by a date past the retention.
    recorder.start();
    const removed = await pruneWebhookHistory(h.store, h.orgId, new Date(Date.now() + HISTORY_RETENTION_MS + 24 * 3600e3));
    assert.ok(removed >= 4, `the attempts and the sent deliveries went: ${removed}`);
    const statements = recorder.stop().filter((s) => /"webhook_(attempts|deliveries)"/.test(s));
    assert.ok(statements.length >= 3, `the read and both deletes were recorded: ${statements.join('\n')}`);
    for (const { statement, steps } of plansOf(join(dir, 'tycho.sqlite'), statements)) {
      assert.ok(!steps.some((step) => /^SCAN (webhook_attempts|webhook_deliveries)\b/.test(step)), `${statement}\nscans: ${steps.join(' | ')}`);
    }
  });
});
