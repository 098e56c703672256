// `tycho export`: every item of the chosen collections, streamed in keyset pages straight to the output, so
// memory stays flat whatever the size. NDJSON lines are items exactly as the API renders them; CSV (one
// collection) has a header of field refs and one cell per field (cells.ts).
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Store } from '../domain/ports/store.ts';
import { listCollections } from '../domain/collections.ts';
import { prepareQuery, runQuery } from '../domain/item-reads.ts';
import { AppError } from '../domain/errors.ts';
import type { Position } from '../domain/pagination.ts';
import { renderItem } from '../http/schemas/items.ts';
import { cellOf } from './cells.ts';

export type BulkFormat = 'ndjson' | 'csv';

/** Rows read per query: large enough to keep round trips few, small enough to hold no lock for long. */
const PAGE = 500;

export interface ExportOptions {
  orgId: string;
  /** Collection refs or ids; every collection of the organization when empty. */
  collections: string[];
  format: BulkFormat;
  out: Writable;
  /** Called after each page with the number of items written so far. */
  progress?: (written: number) => void;
}

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

async function allCollectionRefs(store: Store, orgId: string): Promise<string[]> {
  const refs: string[] = [];
  let after: Position | undefined;
  for (;;) {
    const page = await listCollections(store, orgId, { limit: 100, ...(after ? { after } : {}) });
    refs.push(...page.rows.map((c) => c.collection.ref));
    if (!page.hasNext || !page.end) return refs;
    after = page.end;
  }
}

/** Writes the items; returns how many. */
export async function exportItems(store: Store, options: ExportOptions): Promise<number> {
  const collections = options.collections.length > 0 ? options.collections : await allCollectionRefs(store, options.orgId);
  if (options.format === 'csv' && collections.length !== 1) {
    throw new AppError('bad_request', `CSV holds one collection; name it with --collections REF (got ${collections.length}: ${collections.join(', ')})`);
  }
  let written = 0;
  for (const key of collections) {
    const prepared = await prepareQuery(store, options.orgId, key, {}, () => ({ parameter: 'collections' }));
    const { fields } = prepared.schema;
    if (options.format === 'csv') await write(options.out, stringify([['id', ...fields.map((f) => f.ref)]]));
    let after: Position | undefined;
    for (;;) {
      const { page, schema } = await runQuery(store, options.orgId, prepared, { limit: PAGE, ...(after ? { after } : {}) });
      let chunk = '';
      for (const item of page.rows) {
        const wire = renderItem(item, schema);
        chunk += options.format === 'ndjson' ? `${JSON.stringify(wire)}\n` : stringify([[item.id, ...fields.map((f) => cellOf(f, wire.values[f.ref]))]]);
      }
      await write(options.out, chunk);
      written += page.rows.length;
      options.progress?.(written);
      if (!page.hasNext || !page.end) break;
      after = page.end;
    }
  }
  return written;
}
