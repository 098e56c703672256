// A row and the rows that hang off it (an item and its index entries, an activity with its feed entries and
// webhook outbox rows) written in as few round trips as the engine allows: where data-modifying WITH clauses
// exist (PostgreSQL) one statement, whose foreign keys are checked at its end; elsewhere (SQLite, in-process,
// no round trips) one per table. A `notice` (the engine's, telling other processes at commit) rides along in
// that one statement too.
import type { Compilable, Kysely, QueryCreator, RawBuilder } from 'kysely';
import type { Database } from './schema.ts';

/** One INSERT, UPDATE or DELETE, built on the handle it is given. */
export type Write = (creator: QueryCreator<Database>) => Compilable & { execute(): Promise<unknown> };

export async function writeTogether(db: Kysely<Database>, oneStatement: boolean, writes: Write[], notice?: RawBuilder<unknown>): Promise<void> {
  if (!oneStatement) {
    for (const write of writes) await write(db).execute();
    if (notice) await db.selectNoFrom(notice.as('notice')).execute();
    return;
  }
  // Every write but the last runs in a WITH clause though nothing reads it; each name only has to be unique in
  // the statement. With a notice, the last one does too and the statement selects the notice.
  const inWith = notice ? writes : writes.slice(0, -1);
  let creator: QueryCreator<Database> = db;
  inWith.forEach((write, i) => (creator = creator.with(`write_${i}`, (c) => write(c) as never) as unknown as QueryCreator<Database>));
  if (notice) await creator.selectNoFrom(notice.as('notice')).execute();
  else await writes.at(-1)!(creator).execute();
}
