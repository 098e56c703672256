// Picks the engine a database location names and opens it.
import { AppError } from '../domain/errors.ts';
import { openSqlite } from './sqlite/open.ts';
import type { Store } from './store.ts';

export type DatabaseLocation = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

export async function openStore(location: DatabaseLocation): Promise<Store> {
  if (location.engine === 'sqlite') return openSqlite(location.path);
  throw new AppError('service_unavailable', 'PostgreSQL is not yet supported; use a SQLite path or file: URL');
}
