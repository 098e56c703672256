// A row and the rows that hang off it (an item and its index entries, an activity with its feed entries and
// webhook outbox rows) written in as few round trips as the engine allows: where data-modifying WITH clauses
// exist (PostgreSQL) one statement, whose foreign keys are checked at its end; elsewhere (SQLite, in-process,
// no round trips) one per table. The statement starts `with "parent_row" as (`, which is how
// store/postgres/pipeline.ts knows its answer is not read.
import type { Compilable, Kysely, QueryCreator } from 'kysely';
import type { Database } from './schema.ts';

/** One INSERT, UPDATE or DELETE, built on the handle it is given. */
export type Write = (creator: QueryCreator<Database>) => Compilable & { execute(): Promise<unknown> };

export async function writeTogether(db: Kysely<Database>, oneStatement: boolean, [parent, ...children]: [Write, ...Write[]]): Promise<void> {
  if (!oneStatement || children.length === 0) {
    for (const write of [parent, ...children]) await write(db).execute();
    return;
  }
  // Every write but the last runs in a WITH clause though nothing reads it; the names only have to be unique.
  let creator = db.with('parent_row', (c) => parent(c) as never) as unknown as QueryCreator<Database>;
  children.slice(0, -1).forEach((write, i) => (creator = creator.with(`child_${String.fromCharCode(97 + i)}`, (c) => write(c) as never) as unknown as QueryCreator<Database>));
  await children.at(-1)!(creator).execute();
}
