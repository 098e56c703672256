// Change signals between the processes sharing one PostgreSQL database. A writer NOTIFYs in its transaction
// (PostgreSQL delivers it at commit, never for a rollback) and each process keeps one LISTEN connection that
// counts the notices per topic. While that connection is down nobody can tell what changed, so there is no
// token and callers cache nothing; each new connection starts a new generation, so nothing cached before it
// is trusted after it. A topic may also have listeners (the webhook worker waits for new outbox rows): they
// are called on each notice, and while there are any the connection is re-made after a failure.
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { ChangeTopic } from '../sql/sql-store.ts';
import type { Database } from '../sql/schema.ts';

const CHANNEL = 'tycho_changes';
/** After a failed connection attempt, the next one waits this long (requests meanwhile read uncached). */
const RETRY_MS = 1000;

export interface ChangeSignals {
  token(topic: ChangeTopic): string | undefined;
  announce(db: Kysely<Database>, topic: ChangeTopic): Promise<void>;
  /** Calls `listener` on each notice of `topic` from any process; returns the function that stops it. */
  listen(topic: ChangeTopic, listener: () => void): () => void;
  close(): Promise<void>;
}

export function changeSignals(url: string): ChangeSignals {
  const counts = new Map<string, number>();
  const listeners = new Map<string, Set<() => void>>();
  const bump = (topic: string) => counts.set(topic, (counts.get(topic) ?? 0) + 1);
  const hear = (topic: string) => {
    bump(topic);
    for (const listener of listeners.get(topic) ?? []) listener();
  };
  const listened = () => [...listeners.values()].some((set) => set.size > 0);
  let listener: pg.Client | undefined;
  let generation = 0;
  let attempt: Promise<void> | undefined;
  let connecting: pg.Client | undefined;
  let failedAt = -Infinity;
  let closed = false;

  const drop = (client: pg.Client) => {
    if (listener === client) listener = undefined;
    client.end().catch(() => {});
    // Listeners wait for notices, not for a request that would reconnect on its way.
    if (listened() && !closed) setTimeout(connect, RETRY_MS).unref();
  };
  const connect = (): void => {
    if (attempt || closed || Date.now() - failedAt < RETRY_MS) return;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    client.on('notification', (notice) => hear(notice.payload ?? ''));
    client.on('error', () => drop(client));
    client.on('end', () => drop(client));
    connecting = client;
    attempt = client
      .connect()
      .then(() => client.query(`listen ${CHANNEL}`))
      .then(
        () => {
          if (closed) return drop(client);
          generation++;
          listener = client;
        },
        () => {
          failedAt = Date.now();
          drop(client);
        },
      )
      .finally(() => {
        attempt = undefined;
        connecting = undefined;
      });
  };

  return {
    token(topic) {
      if (!listener) {
        connect();
        return undefined;
      }
      return `${generation}:${counts.get(topic) ?? 0}`;
    },
    async announce(db, topic) {
      // Its answer is never read: inside a transaction nothing waits for it (pipeline.ts).
      await sql`select pg_notify(${CHANNEL}, ${topic})`.execute(db);
      // Seen here at once; the other processes see it when the notice arrives, moments after the commit.
      bump(topic);
    },
    listen(topic, fn) {
      const set = listeners.get(topic) ?? new Set();
      listeners.set(topic, set.add(fn));
      connect();
      return () => set.delete(fn);
    },
    async close() {
      closed = true;
      if (connecting) drop(connecting);
      if (listener) await listener.end().catch(() => {});
    },
  };
}
