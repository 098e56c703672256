// A row and the rows that hang off it (an item and its index entries, an activity with its feed entries and
// webhook outbox rows) written in as few round trips as the engine allows: where data-modifying WITH clauses
// exist (PostgreSQL) one statement, whose foreign keys are checked at its end; elsewhere (SQLite, in-process,
// no round trips) one per table. Nobody reads their answers: the statement starts `with "parent_row" as (`,
// or a lone one carries the unread mark (statement-marks.ts), which is how store/postgres/pipeline.ts knows.
// So they may never be `RETURNING` or `ON CONFLICT DO NOTHING`, whose answer says what was written.
//
// These are the writes of every create and upsert, so their statements are shapes (shapes.ts): the writes are
// built over the binder's slots once per shape key, which must name everything their structure depends on
// (row counts, which writes there are).
import type { Compilable, Kysely, QueryCreator } from 'kysely';
import type { Database } from './schema.ts';
import { shapesOf, type Binder } from './shapes.ts';
import type { Engine } from './sql-store.ts';
import { unread } from './statement-marks.ts';

/** One INSERT, UPDATE or DELETE, built on the handle it is given. */
export type Write = (creator: QueryCreator<Database>) => Compilable & { execute(): Promise<unknown> };

export async function writeTogether(
  db: Kysely<Database>,
  engine: Pick<Engine, 'name' | 'writableCtes'>,
  key: string,
  { values }: Binder,
  [parent, ...children]: [Write, ...Write[]],
): Promise<void> {
  const shapes = shapesOf(engine);
  if (!engine.writableCtes || children.length === 0) {
    // Marked, a lone UPDATE (a document whose index rows did not change) is not waited for, as an INSERT is not.
    for (const [i, write] of [parent, ...children].entries()) await db.executeQuery(unread(shapes.statement(`${key}#${i}`, values, () => write(db))));
    return;
  }
  const together = () => {
    // Every write but the last runs in a WITH clause though nothing reads it; the names only have to be unique.
    let creator = db.with('parent_row', (c) => parent(c) as never) as unknown as QueryCreator<Database>;
    children.slice(0, -1).forEach((write, i) => (creator = creator.with(`child_${String.fromCharCode(97 + i)}`, (c) => write(c) as never) as unknown as QueryCreator<Database>));
    return children.at(-1)!(creator);
  };
  await db.executeQuery(shapes.statement(key, values, together));
}
