// Fewer round trips per transaction. The pool's clients run in pg's pipeline mode (open.ts): a statement goes
// on the wire at once, without waiting for the answers to the statements before it, and PostgreSQL answers in
// order. Inside a transaction, BEGIN and the statements whose answer nobody reads (`isHeldBack`) are sent and
// not waited for; the next statement that needs an answer, or COMMIT, waits for them all at once. A create is
// then two round trips: `begin`, the schema lock and its read; then the inserts and `commit`. Every statement
// keeps its name and parameters (extended protocol, planned once per connection: open.ts).
//
// A statement sent this way that fails aborts the transaction, so the statement waited for next fails too
// (or COMMIT answers ROLLBACK): the caller gets the first failure, which is the one that explains it.
type Query = (...args: unknown[]) => Promise<unknown>;

/** The answer handed to a caller that does not read it (the real one arrives later and is dropped). */
const NOT_READ = { command: null, rowCount: 0, rows: [], fields: [] };

const isWord = (text: string, word: string) => text.trim().toLowerCase() === word;

/**
 * Statements whose answer no caller reads: plain inserts and `store/sql/write-together.ts` statements (a
 * row and its dependants), never with RETURNING or ON CONFLICT DO NOTHING, whose count tells whether a row
 * was written; the advisory locks `store.lock` takes, which are still taken before the next statement runs
 * (and so before its snapshot is taken); and change notices (`select pg_notify(…)`,
 * store/postgres/changes.ts), delivered at commit anyway.
 */
export function isHeldBack(text: string): boolean {
  if (/^select pg_advisory_xact_lock(_shared)?\(hashtextextended\(k, 0\)\) from unnest\(\$1::text\[\]\) as k$/.test(text)) return true;
  if (/^select pg_notify\(\$1, \$2\)$/i.test(text)) return true;
  return /^(insert into |with "parent_row" as \()/i.test(text) && !/\breturning\b|\bdo nothing\b/i.test(text);
}

/** Makes `client` (in pipeline mode) wait for the answers of a transaction's statements only where they are read. */
export function pipelineTransactions(client: { query: unknown }): void {
  const query = (client.query as Query).bind(client);
  let inTransaction = false;
  /** Statements of this transaction sent without waiting, each settling to its error or undefined. */
  let unread: Promise<unknown>[] = [];

  /** The first failure among the statements not waited for (all of them were answered before `now`). */
  const firstFailure = async () => (await Promise.all(unread)).find((error) => error !== undefined);
  const sendUnread = (text: string, values?: unknown) => {
    unread.push(query(text, values).then(() => undefined, (error: unknown) => error));
    return Promise.resolve(NOT_READ);
  };
  const sendRead = (text: string, values?: unknown) =>
    query(text, values).catch(async (error: unknown) => {
      throw (await firstFailure()) ?? error;
    });
  const end = async (text: string) => {
    const sent = unread;
    inTransaction = false;
    unread = [];
    const answer = await query(text);
    const failure = (await Promise.all(sent)).find((error) => error !== undefined);
    // COMMIT of an aborted transaction "succeeds" with ROLLBACK: report why it was aborted.
    if (failure !== undefined && isWord(text, 'commit')) throw failure;
    return answer;
  };

  client.query = ((text: unknown, values?: unknown, ...rest: unknown[]) => {
    if (typeof text !== 'string' || rest.length > 0) return query(text, values, ...rest);
    const bare = !Array.isArray(values) || values.length === 0;
    if (!inTransaction) {
      if (!(bare && isWord(text, 'begin'))) return query(text, values);
      inTransaction = true;
      return sendUnread(text);
    }
    if (bare && (isWord(text, 'commit') || isWord(text, 'rollback'))) return end(text);
    return isHeldBack(text) ? sendUnread(text, values) : sendRead(text, values);
  }) as typeof client.query;
}
