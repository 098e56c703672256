// The webhook delivery loop (`tycho serve` runs it on a thread of its own: webhook-thread.ts): `deliverDue`
// again and again — soon while a round leaves work due behind it, and as soon as it is woken because
// deliveries became due (a commit that wrote outbox rows, in this process or, on PostgreSQL, another one);
// otherwise after a pause, which finds what no signal announced (retries falling due, writes by processes that
// cannot signal). A round that sent everything it found is not followed by another at once: that one would find
// nothing but what was announced meanwhile, which wakes it. An organization with a controlled clock has its
// deliveries fall due on that clock (domain/due-times.ts); the list of such clocks is reread only when one
// changes. Rounds start at most every ROUND_SPACING_MS: under a stream of events, each then sends a batch
// rather than the one or two events committed since the last, and its fixed costs (the claim, the read, the
// transaction that records it) are shared; the first event after a quiet spell still goes at once. Stopping
// lets the attempts in flight finish (at most the 30 s timeout), sends nothing new and releases the endpoint
// leases (kept from round to round otherwise: webhook-delivery.ts), so another process picks the rest up.
import { hostname } from 'node:os';
import { realClock, type Clock } from './domain/clock.ts';
import { controlledClocks } from './domain/org-clock.ts';
import { newId } from './domain/ids.ts';
import type { Store } from './domain/ports/store.ts';
import type { WebhookSender } from './domain/ports/webhook-sender.ts';
import { deliverDue, type DeliveryObserver, type Recorder } from './domain/webhook-delivery.ts';

/** The pause between idle rounds, when nothing wakes the worker: one cheap indexed read. */
export const IDLE_POLL_MS = 100;
/**
 * The least time from one round's start to the next's. Under saturating creates, 25 ms cut the delivery CPU
 * per event by a quarter to a third; 50 ms little more, but on PostgreSQL it tripled the lag, since larger
 * batches go out one event after another (bench/README.md).
 */
export const ROUND_SPACING_MS = 25;

export interface DeliveryWorker {
  /** Deliveries became due at once (committed elsewhere than in the worker's store): start a round now. */
  wake(): void;
  /** Resolves when the attempts in flight have finished and the leases are released. */
  stop(): Promise<void>;
}

/**
 * How a worker on another thread is woken without a message per commit: the waker marks work pending and
 * posts a wake only while the worker says it is idle (its next round is the idle poll). `busy` is called as a
 * round starts, before it reads what is due; `idle` when the worker is about to wait for the idle poll, and
 * answers whether work was marked pending meanwhile (then a round follows soon instead).
 */
export interface WakeGate {
  busy(): void;
  idle(): boolean;
}

export interface WorkerOptions {
  /** The real time (organizations' controlled clocks are offsets of it). */
  clock?: Clock;
  pollMs?: number;
  /** ROUND_SPACING_MS by default. */
  roundSpacingMs?: number;
  /** Requests in flight at once. */
  concurrency?: number;
  observer?: DeliveryObserver;
  /** Who writes each round's record: `store`, by default. */
  recorder?: Recorder;
  wakeGate?: WakeGate;
  onError(error: unknown): void;
}

export function startDeliveryWorker(store: Store, sender: WebhookSender, options: WorkerOptions): DeliveryWorker {
  const owner = `${hostname()}:${process.pid}:${newId()}`;
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  /** When the pending timer fires (performance.now()). */
  let timerAt = 0;
  let round: Promise<void> | undefined;
  /** Deliveries became due during the round in flight: it may have looked before they were there. */
  let wokenMeanwhile = false;
  const schedule = (ms: number) => {
    if (timer) clearTimeout(timer);
    timerAt = performance.now() + ms;
    timer = setTimeout(tick, ms);
  };
  const spacing = options.roundSpacingMs ?? ROUND_SPACING_MS;
  let startedAt = -Infinity;
  /** How long until the next round may start. */
  const nextRoundIn = () => Math.max(0, startedAt + spacing - performance.now());
  const clock = options.clock ?? realClock;
  const orgClocks = controlledClocks(store, clock);
  const tick = () => {
    timer = undefined;
    startedAt = performance.now();
    wokenMeanwhile = false;
    options.wakeGate?.busy();
    round = orgClocks()
      .then((controlled) =>
        deliverDue(store, sender, {
          clock,
          orgClocks: controlled,
          owner,
          signal: stopping.signal,
          ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
          ...(options.observer ? { observer: options.observer } : {}),
          ...(options.recorder ? { recorder: options.recorder } : {}),
          keepLeases: true,
        }),
      )
      .then((done) => done.more)
      .catch((error: unknown) => {
        options.onError(error);
        return false;
      })
      .then((more) => {
        round = undefined;
        if (stopping.signal.aborted) return;
        const soon = more || wokenMeanwhile || options.wakeGate?.idle() === true;
        schedule(soon ? nextRoundIn() : (options.pollMs ?? IDLE_POLL_MS));
      });
  };
  // Called right after a commit: the round starts on a later turn, not inside the writer's call.
  const wake = () => {
    if (stopping.signal.aborted) return;
    if (round) wokenMeanwhile = true;
    else if (!timer || performance.now() + nextRoundIn() < timerAt) schedule(nextRoundIn());
  };
  const stopWaking = store.onDeliveriesDue(wake);
  tick();
  return {
    wake,
    async stop() {
      stopping.abort();
      stopWaking();
      if (timer) clearTimeout(timer);
      await round;
      // Kept between rounds: another process takes the endpoints over now rather than when the leases run out.
      await store.webhookEndpoints.releaseLeases(owner).catch((error: unknown) => options.onError(error));
    },
  };
}
