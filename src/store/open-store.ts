// Picks the engine a database location names and opens it.
import { openSqlite } from './sqlite/open.ts';
import { openPostgres } from './postgres/open.ts';
import type { Store } from './store.ts';

export type DatabaseLocation = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string; poolSize: number };

export async function openStore(location: DatabaseLocation): Promise<Store> {
  return location.engine === 'sqlite' ? openSqlite(location.path) : openPostgres(location.url, location.poolSize);
}
