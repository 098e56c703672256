// Writes whose answer nobody reads: an UPDATE or DELETE whose caller wants neither rows nor a count. They carry
// a mark that store/postgres/pipeline.ts knows, so inside a transaction PostgreSQL gets them without a round
// trip of their own: they travel with the next statement that is waited for, and a failure among them fails
// that statement. Elsewhere the mark is only a comment.
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

export const UNREAD_MARK = '/* answer not read */ ';

export async function executeUnread<DB>(db: Kysely<DB>, query: Compilable<unknown>): Promise<void> {
  const compiled = query.compile();
  await db.executeQuery(CompiledQuery.raw(UNREAD_MARK + compiled.sql, [...compiled.parameters]));
}
