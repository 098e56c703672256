// The ordered list of schema migrations. Append only: a released migration is never edited.
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as foundation from './0001-foundation.ts';
import * as items from './0002-items.ts';
import * as activities from './0003-activities.ts';

const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-items': items,
  '0003-activities': activities,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const { error } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error;
}
