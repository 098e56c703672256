// Work that falls due with time: the registry that advancing an organization's clock runs before it returns.
// A runner does what is due at `now` for one organization, and must be safe to run again (runs may overlap
// across processes). `serve` also runs this work for every organization on its own clock: meetings held and
// old webhook history pruned in a sweep every minute (SWEPT_WORK), webhook deliveries and program messages in
// loops of their own.
import type { Store } from './ports/store.ts';
import type { Mailer } from './ports/mailer.ts';
import type { WebhookSender } from './ports/webhook-sender.ts';
import { recordMeetingsHeld } from './meetings.ts';
import { sendDue } from './program-messages.ts';
import { deliverDueAwaited, type DeliveryObserver } from './webhook-delivery.ts';
import { pruneWebhookHistory } from './webhook-history.ts';

/** `observer` is told of the webhook attempts a run makes (the process's metrics). */
export type DueRunner = (store: Store, options: { orgId: string; now: Date; observer?: DeliveryObserver }) => Promise<unknown>;

/** Runners by name (for logs). */
export type DueWork = Record<string, DueRunner>;

/** The work no loop of `serve` sends: its minute sweep runs this. */
export const SWEPT_WORK: DueWork = {
  meeting_held: (store, { orgId, now }) => recordMeetingsHeld(store, () => now, orgId),
  webhook_history: (store, { orgId, now }) => pruneWebhookHistory(store, orgId, now),
};

/** How the process sends: program messages over SMTP (to the local outbox without a mailer), webhooks. */
export interface DueWorkSenders {
  mailer?: Mailer;
  mailFrom?: string;
  webhookSender?: WebhookSender;
}

/** Every kind of work that waits for a time; add a line here for each new one. */
export function dueWork(senders: DueWorkSenders): DueWork {
  const { mailer, mailFrom, webhookSender } = senders;
  return {
    ...SWEPT_WORK,
    program_messages: (store, { orgId, now }) => sendDue(store, { now: now.toISOString(), orgId, ...(mailer ? { mailer } : {}), ...(mailFrom ? { from: mailFrom } : {}) }),
    ...(webhookSender
      ? { webhook_deliveries: (store, { orgId, now, observer }) => deliverDueAwaited(store, webhookSender, { clock: () => now, orgId, ...(observer ? { observer } : {}) }) }
      : {}),
  };
}

/** Runs every runner of `work` for the organization, in order; the first failure stops the run. */
export async function runDueWork(store: Store, options: Parameters<DueRunner>[1], work: DueWork): Promise<void> {
  for (const runner of Object.values(work)) await runner(store, options);
}
