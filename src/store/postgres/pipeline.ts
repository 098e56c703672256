// Fewer round trips per transaction: what a transaction sends is held back while nothing needs its answer,
// and goes out with the next statement that does. BEGIN travels with the transaction's first statement; an
// insert or a lock whose answer nobody reads (see `isHeldBack`) travels with the next statement or with
// COMMIT. A create is then two round trips: `begin; <schema lock>`, then `<inserts>; commit`.
//
// pg sends a parameterised statement through the extended protocol, one statement at a time; several
// statements in one string go through the simple protocol, with the parameters written in as quoted
// literals. pg sends parameters as untyped text anyway, and a quoted literal is untyped text too, so
// PostgreSQL infers the same types for both. A statement that could hide a placeholder-like `$n` inside a
// literal or a comment, or that carries binary parameters or NUL characters, is sent as it is, after what
// was held back. A held-back insert that fails makes the statement it travelled with fail: inside a
// transaction, where any failure rolls everything back, that is the same outcome.
import pg from 'pg';

type Query = (...args: unknown[]) => Promise<unknown>;

/** pg's own conversion of a parameter to the text it sends (exported, though its types omit it). */
const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;

/** The answer to a statement that was not sent (yet). */
const NOT_SENT = { command: null, rowCount: 0, rows: [], fields: [] };

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

/** `text` with each `$n` replaced by its parameter as a literal, or undefined when that cannot be done safely. */
export function inlineParameters(text: string, values: readonly unknown[]): string | undefined {
  if (/['"`\\]|\$\$|--|\/\*/.test(text.replace(/"[a-z_]+"/g, ''))) return undefined;
  let safe = true;
  const inlined = text.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index < 0 || index >= values.length) {
      safe = false;
      return '';
    }
    const prepared = prepareValue(values[index]);
    if (prepared === null || prepared === undefined) return 'null';
    // A NUL would end the simple protocol's query string early; the extended protocol reports it properly.
    if (typeof prepared !== 'string' || prepared.includes('\0')) {
      safe = false;
      return '';
    }
    return pg.escapeLiteral(prepared);
  });
  return safe ? inlined : undefined;
}

/** The last statement's answer of a simple-protocol string (pg answers each statement of it). */
const lastOf = (results: unknown) => (Array.isArray(results) ? results[results.length - 1] : results);

/** Makes `client` hold back BEGIN and unread inserts of a transaction, as described above. */
export function pipelineTransactions(client: { query: unknown }): void {
  const query = (client.query as Query).bind(client);
  let inTransaction = false;
  /** Statements not sent yet, as literal SQL: 'begin' first while the transaction has sent nothing. */
  let held: string[] = [];
  const end = () => {
    inTransaction = false;
    held = [];
  };
  client.query = ((text: unknown, values?: unknown, ...rest: unknown[]) => {
    if (typeof text !== 'string' || rest.length > 0) {
      if (held.length > 0) return Promise.reject(new Error('a statement object cannot follow statements held back for a transaction'));
      return query(text, values, ...rest);
    }
    const parameters = Array.isArray(values) ? values : [];
    const bare = parameters.length === 0;
    if (bare && isWord(text, 'begin') && !inTransaction) {
      inTransaction = true;
      held = ['begin'];
      return Promise.resolve(NOT_SENT);
    }
    if (!inTransaction) return query(text, values);
    if (bare && isWord(text, 'rollback')) {
      const sent = held[0] !== 'begin';
      end();
      return sent ? query(text) : Promise.resolve(NOT_SENT);
    }
    if (bare && isWord(text, 'commit')) {
      const pending = held;
      end();
      if (pending.length === 1 && pending[0] === 'begin') return Promise.resolve(NOT_SENT);
      return pending.length === 0 ? query(text) : query([...pending, 'commit'].join('; ')).then(lastOf);
    }
    // Inlining costs a pass over the text: only for a statement that may be held or that carries what was held.
    const heldBack = isHeldBack(text);
    if (!heldBack && held.length === 0) return query(text, values);
    const inlined = inlineParameters(text, parameters);
    if (inlined !== undefined && heldBack) {
      held.push(inlined);
      return Promise.resolve(NOT_SENT);
    }
    const pending = held;
    held = [];
    if (pending.length === 0) return query(text, values);
    if (inlined !== undefined) return query([...pending, inlined].join('; ')).then(lastOf);
    return query(pending.join('; ')).then(() => query(text, values));
  }) as typeof client.query;
}
