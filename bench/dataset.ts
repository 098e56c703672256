// Builds a benchmark dataset straight through the store (the bulk path): a `people` collection with a
// unique email, a name, an integer and a choice, and an item_created activity per item, in large
// transactions, with a progress bar.
import { SingleBar, Presets } from 'cli-progress';
import { newId } from '../src/domain/ids.ts';
import { indexEntries, type Item } from '../src/domain/items.ts';
import { loadSchema } from '../src/domain/collection-schema.ts';
import { storedWire } from '../src/domain/item-wire.ts';
import { createField } from '../src/domain/collection-fields.ts';
import type { Store } from '../src/domain/ports/store.ts';

export interface Dataset {
  collection: string;
  size: number;
  /** A name that exists, for search scenarios. */
  sampleName: (i: number) => string;
  sampleEmail: (i: number) => string;
}

// Items per transaction. Larger transactions cost more per row as they grow (5,000: 20,000 items in 10 s,
// 40,000 in 29 s, 100,000 in 199 s; 500: 18 s for 40,000 and 47 s for 100,000), and a bigger page cache made
// them slower still, so the time goes to the pages a transaction keeps dirty, not to reading.
const BATCH = 500;

export async function buildDataset(store: Store, orgId: string, size: number, quiet = false): Promise<Dataset> {
  await createField(store, orgId, 'people', { type: 'field/number/unitless_integer', name: 'Score' });
  await createField(store, orgId, 'people', { type: 'field/choice', name: 'Tier', options: [{ name: 'Gold' }, { name: 'Silver' }, { name: 'Bronze' }] });
  const schema = await loadSchema(store, orgId, 'people');
  const field = (ref: string) => schema.byRef.get(ref)!;
  const [name, email, score, tier] = ['name', 'email', 'score', 'tier'].map(field);
  const options = tier!.config.options!;
  const collectionPointer = { id: schema.collection.id, type: 'collection', ref: schema.collection.ref };
  const bar = new SingleBar({ format: 'dataset [{bar}] {value}/{total} items {duration}s', hideCursor: true, noTTYOutput: !quiet, notTTYSchedule: 5000 }, Presets.shades_classic);
  if (!quiet) bar.start(size, 0);
  const now = new Date().toISOString();
  for (let start = 0; start < size; start += BATCH) {
    await store.transaction(async (tx) => {
      for (let i = start; i < Math.min(size, start + BATCH); i++) {
        const values: Item['values'] = {
          [name!.id]: [personName(i)],
          [email!.id]: [personEmail(i)],
          [score!.id]: [(i * 7919) % 1000],
          [tier!.id]: [{ id: options[i % 3]!.id }],
        };
        const item: Item = { id: newId(), orgId, collectionId: schema.collection.id, values, createdAt: now, updatedAt: now };
        await tx.items.insert(item, storedWire(item, schema), indexEntries(schema.fields, values));
        // The feed grows with the data, as it does through the API.
        await tx.activities.insert({
          id: newId(),
          orgId,
          type: 'activity/item_created',
          occurredAt: now,
          constituents: [
            { type: 'constituent', relation: 'object', entity: { id: item.id, type: 'item', collection: collectionPointer } },
            { type: 'constituent', relation: 'target', entity: collectionPointer },
          ],
        });
      }
    });
    if (!quiet) bar.update(Math.min(size, start + BATCH));
  }
  if (!quiet) bar.stop();
  // As after any bulk import: let the planner see the new data before it plans queries over it.
  await store.analyze();
  return { collection: 'people', size, sampleName: personName, sampleEmail: personEmail };
}

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Radia', 'Linus'];

export function personName(i: number): string {
  return `${FIRST[i % FIRST.length]} Person${String(i).padStart(7, '0')}`;
}

export function personEmail(i: number): string {
  return `person${i}@example.com`;
}
