// `tycho import`: items from CSV (a header row of field refs, ids or names) or NDJSON (items as the API renders
// or takes them), streamed in batches. Each batch is one transaction: a row the domain refuses is reported
// with its line number and the API's own message, and the batch is applied again without it, so a batch is
// either wholly written or not at all. With an identifier field, rows upsert by its value (like POST
// …/items/upsert); without, they create items.
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { Store } from '../domain/ports/store.ts';
import type { Principal } from '../domain/api-keys.ts';
import { AppError } from '../domain/errors.ts';
import { fieldByKey, isTimestampField, loadSchema, type CollectionSchema } from '../domain/collection-schema.ts';
import { createItem, upsertItem } from '../domain/item-writes.ts';
import type { Field } from '../domain/fields.ts';
import type { Clock } from '../domain/clock.ts';
import type { BulkFormat } from './export.ts';
import { valueOfCell } from './cells.ts';

export interface ImportOptions {
  orgId: string;
  /** The target collection; NDJSON lines may name their own (`collection.ref`) when it is not given. */
  collection?: string;
  format: BulkFormat;
  input: Readable;
  /** Upsert by this field's value (ref or id) instead of creating every row. */
  identifier?: string;
  batchSize: number;
  clock?: Clock;
  /** A refused row: its line in the input and the API's message (with the pointer into the values). */
  reject: (line: number, message: string) => void;
  /** Called after each batch with the rows read so far. */
  progress?: (rows: number) => void;
}

export interface ImportResult {
  created: number;
  updated: number;
  rejected: number;
}

interface Row {
  line: number;
  collection: string;
  values: Record<string, unknown>;
}

/** Thrown inside a batch's transaction to undo it and name the row. */
class RowRefused extends Error {
  constructor(
    readonly row: Row,
    readonly error: AppError,
  ) {
    super(error.message);
  }
}

const describe = (error: AppError): string => {
  const where = error.source?.pointer ?? error.source?.parameter;
  return `${error.status} ${error.code}: ${where ? `${where} ` : ''}${error.detail ?? error.code}`;
};

/** CSV columns → fields; `id` and read-only columns (timestamps) are skipped, an unknown column stops the import. */
function columnsOf(schema: CollectionSchema, header: string[]): (Field | undefined)[] {
  return header.map((name) => {
    if (name === 'id') return undefined;
    const field = fieldByKey(schema, name) ?? schema.fields.find((f) => f.name === name);
    if (!field) {
      const refs = schema.fields.map((f) => f.ref).join(', ');
      throw new AppError('bad_request', `CSV column "${name}" is not a field of ${schema.collection.ref}; use field refs (${refs})`);
    }
    return field.readonly || isTimestampField(field) ? undefined : field;
  });
}

async function* csvRows(input: Readable, schema: CollectionSchema, collection: string): AsyncGenerator<Row> {
  let columns: (Field | undefined)[] | undefined;
  const parser = input.pipe(parse({ info: true, relax_column_count: false, bom: true, skip_empty_lines: true }));
  for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    if (!columns) {
      columns = columnsOf(schema, record);
      continue;
    }
    const values: Record<string, unknown> = {};
    columns.forEach((field, i) => {
      const value = field ? valueOfCell(schema, field, record[i] ?? '') : undefined;
      if (field && value !== undefined) values[field.ref] = value;
    });
    yield { line: info.lines, collection, values };
  }
}

/** The input's lines, read chunk by chunk (readline's iterator loses its end when the consumer awaits long). */
async function* linesOf(input: Readable): AsyncGenerator<string> {
  let carry = '';
  input.setEncoding('utf8');
  for await (const chunk of input as AsyncIterable<string>) {
    const parts = (carry + chunk).split('\n');
    carry = parts.pop()!;
    yield* parts;
  }
  if (carry !== '') yield carry;
}

async function* ndjsonRows(input: Readable, collection: string | undefined, reject: ImportOptions['reject']): AsyncGenerator<Row> {
  let line = 0;
  for await (const text of linesOf(input)) {
    line++;
    if (text.trim() === '') continue;
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      reject(line, 'not JSON: each line must be one item such as {"values": {"name": {"type": "value/text/single_line", "data": "Acme"}}}');
      continue;
    }
    const target = collection ?? parsed?.collection?.ref;
    if (typeof parsed?.values !== 'object' || parsed.values === null || typeof target !== 'string') {
      reject(line, 'each line needs "values" (an object of field refs to values) and, without --collection, "collection": {"ref": …}');
      continue;
    }
    yield { line, collection: target, values: parsed.values };
  }
}

/** Leaves out what no request may write: timestamps and read-only fields, as exported items carry them. */
function writable(schema: CollectionSchema, values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).filter(([key]) => {
      const field = fieldByKey(schema, key);
      return !field || !(field.readonly || isTimestampField(field));
    }),
  );
}

export async function importItems(store: Store, options: ImportOptions): Promise<ImportResult> {
  const principal: Principal = { orgId: options.orgId, scope: 'write', actor: { id: 'tycho-import', type: 'api_key' } };
  const schemas = new Map<string, CollectionSchema>();
  const schemaOf = async (key: string) => schemas.get(key) ?? schemas.set(key, await loadSchema(store, options.orgId, key)).get(key)!;
  const result: ImportResult = { created: 0, updated: 0, rejected: 0 };
  const refuse = (line: number, message: string) => {
    result.rejected++;
    options.reject(line, message);
  };

  /** Writes one row; true when it created an item. */
  const writeRow = async (tx: Store, row: Row): Promise<boolean> => {
    const schema = schemas.get(row.collection)!;
    const values = writable(schema, row.values);
    if (options.identifier === undefined) {
      await createItem(tx, principal, row.collection, { values }, options.clock);
      return true;
    }
    const field = fieldByKey(schema, options.identifier);
    if (!field) throw new AppError('bad_request', `--identifier ${options.identifier} is not a field of ${schema.collection.ref}`);
    const identifier = values[field.ref] ?? values[field.id];
    if (identifier === undefined) throw new AppError('validation_failed', `the row has no value for the identifier field ${field.ref}`, { pointer: `/values/${field.ref}` });
    const upserted = await upsertItem(tx, principal, row.collection, { identifiers: { [field.ref]: identifier }, values }, { one: 'replace', many: 'replace' }, options.clock);
    return upserted.created;
  };

  const applyBatch = async (rows: Row[]) => {
    // Read before the transaction: inside it, only `tx` may touch the database (SQLite has one connection).
    let pending: Row[] = [];
    for (const row of rows) {
      try {
        await schemaOf(row.collection);
        pending.push(row);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        refuse(row.line, describe(error));
      }
    }
    while (pending.length > 0) {
      try {
        const created = await store.transaction(async (tx) => {
          let n = 0;
          for (const row of pending) {
            try {
              if (await writeRow(tx, row)) n++;
            } catch (error) {
              // A refused row undoes the batch; the rest is applied again without it.
              if (error instanceof AppError && error.status >= 409 && error.status < 500) throw new RowRefused(row, error);
              throw error;
            }
          }
          return n;
        });
        result.created += created;
        result.updated += pending.length - created;
        return;
      } catch (error) {
        if (!(error instanceof RowRefused)) throw error;
        refuse(error.row.line, describe(error.error));
        pending = pending.filter((r) => r !== error.row);
      }
    }
  };

  const rows =
    options.format === 'csv'
      ? csvRows(options.input, await schemaOf(requireCollection(options.collection)), requireCollection(options.collection))
      : ndjsonRows(options.input, options.collection, refuse);
  let batch: Row[] = [];
  let read = 0;
  for await (const row of rows) {
    batch.push(row);
    read++;
    if (batch.length >= options.batchSize) {
      await applyBatch(batch);
      batch = [];
      options.progress?.(read);
    }
  }
  await applyBatch(batch);
  options.progress?.(read);
  return result;
}

function requireCollection(collection: string | undefined): string {
  if (collection === undefined) throw new AppError('bad_request', 'a CSV import needs --collection REF');
  return collection;
}
