// A transaction's BEGIN travels with its first statement: one round trip instead of two for every
// transaction. pg sends a parameterised statement through the extended protocol, which takes one statement
// at a time; `begin; <statement>` goes through the simple protocol instead, with the parameters written in
// as quoted literals. pg sends parameters as untyped text anyway, and a quoted literal is untyped text too,
// so PostgreSQL infers the same types for both. Statements that could hide a placeholder-like `$n` inside a
// literal or a comment, or that carry binary parameters or NUL characters, are not folded: BEGIN is then sent on its own first.
import pg from 'pg';

type Query = (...args: unknown[]) => Promise<unknown>;

/** pg's own conversion of a parameter to the text it sends (exported, though its types omit it). */
const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;

/** A result for the statements that are not sent (BEGIN deferred, or a transaction that never sent one). */
const NOT_SENT = { command: null, rowCount: 0, rows: [], fields: [] };

const isTransactionControl = (text: string, word: string) => text.trim().toLowerCase() === word;

/** `text` with each `$n` replaced by its parameter as a literal, or undefined when that cannot be done safely. */
export function inlineParameters(text: string, values: readonly unknown[]): string | undefined {
  if (/['"`\\]|\$\$|--|\/\*/.test(text)) return undefined;
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

/**
 * Makes `client` hold back a bare `begin` and send it with the next statement. `commit` or `rollback` of a
 * transaction that sent nothing sends nothing either.
 */
export function foldBegin(client: { query: unknown }): void {
  const query = (client.query as Query).bind(client);
  let pendingBegin = false;
  client.query = ((text: unknown, values?: unknown, ...rest: unknown[]) => {
    if (typeof text !== 'string' || rest.length > 0) return query(text, values, ...rest);
    const parameters = Array.isArray(values) ? values : [];
    if (isTransactionControl(text, 'begin') && parameters.length === 0 && !pendingBegin) {
      pendingBegin = true;
      return Promise.resolve(NOT_SENT);
    }
    if (!pendingBegin) return query(text, values);
    pendingBegin = false;
    if ((isTransactionControl(text, 'commit') || isTransactionControl(text, 'rollback')) && parameters.length === 0) return Promise.resolve(NOT_SENT);
    const inlined = inlineParameters(text, parameters);
    if (inlined === undefined) return query('begin').then(() => query(text, values));
    // The simple protocol answers each statement of the string; the caller asked for the last one.
    return query(`begin; ${inlined}`).then((results) => (Array.isArray(results) ? results[results.length - 1] : results));
  }) as typeof client.query;
}
