// A row and the rows that hang off it (an item and its index entries, an activity and its feed entries)
// written in as few round trips as the engine allows: where data-modifying WITH clauses exist (PostgreSQL)
// one statement, whose foreign keys are checked at its end; elsewhere (SQLite, in-process, no round trips) two.
import type { Compilable, Kysely, QueryCreator } from 'kysely';
import type { Database } from './schema.ts';

/** One INSERT, UPDATE or DELETE, built on the handle it is given. */
export type Write = (creator: QueryCreator<Database>) => Compilable & { execute(): Promise<unknown> };

export async function writeTogether(db: Kysely<Database>, oneStatement: boolean, parent: Write, children: Write | undefined): Promise<void> {
  if (children === undefined) {
    await parent(db).execute();
    return;
  }
  if (!oneStatement) {
    await parent(db).execute();
    await children(db).execute();
    return;
  }
  // The WITH clause runs though nothing reads it; the name only has to be unique in the statement.
  await children(db.with('parent_row', (creator) => parent(creator) as never) as unknown as QueryCreator<Database>).execute();
}
