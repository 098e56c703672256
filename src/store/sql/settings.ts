// Settings table: process-independent values such as the cursor MAC key.
import type { Kysely } from 'kysely';
import type { SettingsRepo } from '../../domain/ports/store.ts';
import type { Database } from './schema.ts';

export function settingsRepo(db: Kysely<Database>): SettingsRepo {
  return {
    async getOrInsert(key, value) {
      await db.insertInto('settings').values({ key, value }).onConflict((oc) => oc.column('key').doNothing()).execute();
      const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
      return row.value;
    },
  };
}
