// Picks the engine a database location names and opens it. Each engine's driver is loaded only when used.
import type { Store } from '../domain/ports/store.ts';

export type DatabaseLocation = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string; poolSize: number };

export async function openStore(location: DatabaseLocation): Promise<Store> {
  if (location.engine === 'sqlite') return (await import('./sqlite/open.ts')).openSqlite(location.path);
  return (await import('./postgres/open.ts')).openPostgres(location.url, location.poolSize);
}
