// Fewer round trips per transaction. The pool's clients run in pg's pipeline mode (open.ts): a statement goes
// on the wire at once, without waiting for the answers to the statements before it, and PostgreSQL answers in
// order. Inside a transaction, BEGIN and the statements whose answer nobody reads (`isHeldBack`) are sent and
// not waited for; the next statement that needs an answer, or COMMIT, waits for them all at once. A create is
// then two round trips: `begin`, the schema lock and its read; then the inserts and `commit`. Every statement
// keeps its name and parameters (extended protocol, planned once per connection: open.ts).
//
// What is not waited for is also not written at once: the socket is corked until the statement that is
// waited for, so a round trip's statements leave in one write (one loopback send costs more CPU than the
// statement it carries).
//
// A read whose answer is needed only later (`readAhead`: the schema tag read under the schema lock) travels
// the same way: its caller gets a `Later` at once, so the statements after it are not held up, and asking it
// for the answer sends whatever is still held.
//
// A statement sent this way that fails aborts the transaction, so the statement waited for next fails too
// (or COMMIT answers ROLLBACK): the caller gets the first failure, which is the one that explains it.
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Later } from '../sql/sql-store.ts';
import { UNREAD_MARK } from '../sql/statement-marks.ts';

type Query = (...args: unknown[]) => Promise<unknown>;
interface Corkable {
  cork(): void;
  uncork(): void;
}

/** The answer handed to a caller that does not read it (the real one arrives later and is dropped). */
const NOT_READ = { command: null, rowCount: 0, rows: [], fields: [] };

const isWord = (text: string, word: string) => text.trim().toLowerCase() === word;

/** Marks a statement as a read ahead: see `readAhead`. */
const READ_AHEAD = '/* read ahead */ ';
/** Where the answer of a read ahead rides on the rows handed back at once. */
const LATER = Symbol('read ahead');

/**
 * Sends `query` inside a transaction without waiting for its answer, which arrives with the next statement
 * that is waited for, or when `answer` is called. Resolves as soon as the statement is on its way, so the
 * caller can send the next one; outside a transaction the read is simply made.
 */
export async function readAhead<DB, R>(db: Kysely<DB>, query: Compilable<R>): Promise<Later<R[]>> {
  const compiled = query.compile();
  const { rows } = await db.executeQuery<R>(CompiledQuery.raw(READ_AHEAD + compiled.sql, [...compiled.parameters]));
  return { answer: (rows as R[] & { [LATER]?: () => Promise<R[]> })[LATER] ?? (() => Promise.resolve(rows)) };
}

/**
 * Statements whose answer no caller reads: writes marked so (`store/sql/statement-marks.ts`), plain inserts and
 * `store/sql/write-together.ts` statements (a
 * row and its dependants), never with RETURNING or ON CONFLICT DO NOTHING, whose count tells whether a row
 * was written; the advisory locks `store.lock` takes, which are still taken before the next statement runs
 * (and so before its snapshot is taken); and change notices (`select pg_notify(…)`,
 * store/postgres/changes.ts), delivered at commit anyway.
 */
export function isHeldBack(text: string): boolean {
  if (text.startsWith(UNREAD_MARK)) return true;
  if (/^select pg_advisory_xact_lock(_shared)?\(hashtextextended\(k, 0\)\) from unnest\(\$1::text\[\]\) as k$/.test(text)) return true;
  if (/^select pg_notify\(\$1, \$2\)$/i.test(text)) return true;
  return /^(insert into |with "parent_row" as \()/i.test(text) && !/\breturning\b|\bdo nothing\b/i.test(text);
}

/** Makes `client` (in pipeline mode) wait for the answers of a transaction's statements only where they are read. */
export function pipelineTransactions(client: { query: unknown; connection?: { stream?: Partial<Corkable> } }): void {
  const query = (client.query as Query).bind(client);
  /** The socket this client writes to now (read each time: pg sets it up on connect). */
  const stream = () => client.connection?.stream;
  let corked: Partial<Corkable> | undefined;
  const hold = () => {
    const socket = stream();
    if (corked || !socket?.cork || !socket.uncork) return;
    socket.cork();
    corked = socket;
  };
  /** Writes what was held together with what was just sent. */
  const flush = () => {
    const socket = corked;
    corked = undefined;
    socket?.uncork?.();
  };
  let inTransaction = false;
  /** Statements of this transaction sent without waiting, each settling to its error or undefined. */
  let unread: Promise<unknown>[] = [];

  /** The first failure among statements not waited for (each settled to its error or undefined). */
  const firstFailure = async (sent: Promise<unknown>[]) => (await Promise.all(sent)).find((error) => error !== undefined);
  const sendUnread = (text: string, values?: unknown) => {
    hold();
    unread.push(query(text, values).then(() => undefined, (error: unknown) => error));
    return Promise.resolve(NOT_READ);
  };
  const sendAhead = (text: string, values?: unknown) => {
    hold();
    const answer = query(text, values) as Promise<{ rows: unknown[] }>;
    unread.push(answer.then(() => undefined, (error: unknown) => error));
    const later = answer.then((result) => result.rows);
    // Its failure also fails the next statement waited for; a caller that never reads it leaves no unhandled rejection.
    later.catch(() => {});
    // Asking for the answer sends what is held: nothing else may be coming to carry it.
    const ask = () => {
      flush();
      return later;
    };
    return Promise.resolve({ ...NOT_READ, rows: Object.assign([], { [LATER]: ask }) });
  };
  const sendRead = (text: string, values?: unknown) => {
    const answer = query(text, values);
    flush();
    return answer.catch(async (error: unknown) => {
      throw (await firstFailure(unread)) ?? error;
    });
  };
  const end = async (text: string) => {
    const sent = unread;
    inTransaction = false;
    unread = [];
    const ending = query(text);
    flush();
    const answer = await ending;
    const failure = await firstFailure(sent);
    // COMMIT of an aborted transaction "succeeds" with ROLLBACK: report why it was aborted.
    if (failure !== undefined && isWord(text, 'commit')) throw failure;
    return answer;
  };

  client.query = ((text: unknown, values?: unknown, ...rest: unknown[]) => {
    if (typeof text !== 'string' || rest.length > 0) {
      const answer = query(text, values, ...rest);
      flush();
      return answer;
    }
    const bare = !Array.isArray(values) || values.length === 0;
    if (!inTransaction) {
      if (!(bare && isWord(text, 'begin'))) return query(text, values);
      inTransaction = true;
      return sendUnread(text);
    }
    if (bare && (isWord(text, 'commit') || isWord(text, 'rollback'))) return end(text);
    if (text.startsWith(READ_AHEAD)) return sendAhead(text, values);
    return isHeldBack(text) ? sendUnread(text, values) : sendRead(text, values);
  }) as typeof client.query;
}
