// Marks a statement's text carries to tell the PostgreSQL driver (store/postgres/) how to send it; elsewhere
// they are only comments.
import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/**
 * A write whose answer nobody reads: an UPDATE or DELETE whose caller wants neither rows nor a count. Inside a
 * transaction, postgres/pipeline.ts sends it without a round trip of its own: it travels with the next
 * statement that is waited for, and a failure among such statements fails that one.
 */
export const UNREAD_MARK = '/* answer not read */ ';

export const unread = <R>(statement: CompiledQuery<R>): CompiledQuery<R> => ({ ...statement, sql: UNREAD_MARK + statement.sql });

export async function executeUnread<DB>(db: Kysely<DB>, query: Compilable<unknown>): Promise<void> {
  await db.executeQuery(unread(query.compile()));
}

/**
 * A statement whose best plan depends on its values, or on how big a table has grown since the connection
 * first sent it: which of several conditions should drive a read (a name prefix matching one item, or a
 * choice matching a third of them), or a join to rows of a JSON parameter. postgres/open.ts sends it unnamed,
 * so PostgreSQL plans it for these values and these tables each time instead of keeping one plan per
 * connection.
 */
export const PLANNED_PER_REQUEST_MARK = '/* planned per request */ ';

export const plannedPerRequest = <R>(statement: CompiledQuery<R>): CompiledQuery<R> => ({ ...statement, sql: PLANNED_PER_REQUEST_MARK + statement.sql });

/** Whether `text` is marked as planned per request (behind the unread mark, where it carries both). */
export const isPlannedPerRequest = (text: string): boolean =>
  text.startsWith(PLANNED_PER_REQUEST_MARK, text.startsWith(UNREAD_MARK) ? UNREAD_MARK.length : 0);
