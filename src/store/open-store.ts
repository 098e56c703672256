// Picks the engine a database location names and opens it. Each engine's driver is loaded only when used.
import type { Store } from '../domain/ports/store.ts';

export type DatabaseLocation = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string; poolSize: number };

/** How a long-running server opens its database (`serve`): on SQLite, checkpoints from a thread of their own (sqlite/checkpointer.ts). */
export interface ServingOptions {
  onCheckpointError(message: string): void;
}

export async function openStore(location: DatabaseLocation, serving?: ServingOptions): Promise<Store> {
  if (location.engine === 'sqlite') return (await import('./sqlite/open.ts')).openSqlite(location.path, serving && { backgroundCheckpoints: serving.onCheckpointError });
  return (await import('./postgres/open.ts')).openPostgres(location.url, location.poolSize);
}
