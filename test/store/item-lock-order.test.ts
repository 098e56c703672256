// Item writes lock in one order (domain/locks.ts): the relations lock, then the items a write points relations
// at before its own item, and a deleted item before the items pointing at it. A delete that has locked its item and a PATCH re-sending
// a relation to it would otherwise hold what the other needs next; PostgreSQL breaks such a deadlock only
// after a second, and a stream of those PATCHes can keep a delete failing. SQLite's writers take turns, so
// only PostgreSQL can wait inside a write.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { twoWriters, untilWaitingOnLock, type RawStore } from '../helpers/raw-store.ts';
import { ENGINES } from '../helpers/harness.ts';
import { createField } from '../../src/domain/collection-fields.ts';
import { createItem, deleteItem, updateItem, upsertItem } from '../../src/domain/item-writes.ts';
import { REPLACE } from '../../src/domain/item-values.ts';
import { AppError } from '../../src/domain/errors.ts';
import { relationsLock } from '../../src/domain/locks.ts';
import type { Principal } from '../../src/domain/api-keys.ts';
import type { Store } from '../../src/domain/ports/store.ts';

const employer = (id: string) => ({ employer: { type: 'value/relation', data: { type: 'item', id } } });
const email = (data: string) => ({ email: [{ type: 'value/email', data }] });
const name = (data: string) => ({ name: { type: 'value/text/single_line', data } });

for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`item writes lock relation targets before their own item (${engine})`, () => {
    let s: RawStore;
    let other: Store;
    let principal: Principal;
    before(async () => {
      ({ s, other, principal } = await twoWriters(engine, 'item-lock-order'));
      await createField(s.store, principal.orgId, 'people', {
        type: 'field/relation',
        name: 'Employer',
        relation_type: 'one_way',
        allowed_collections: [{ type: 'collection', ref: 'organizations' }],
      });
    });
    after(() => s.close());

    /** Whether another transaction could lock the item `id` right now, without waiting. */
    async function lockable(id: string): Promise<boolean> {
      try {
        await s.raw.transaction().execute((trx) => sql`select id from items where id = ${id} for update nowait`.execute(trx));
        return true;
      } catch (error) {
        if ((error as { code?: string }).code === '55P03') return false;
        throw error;
      }
    }

    /** A company and a person working there. */
    async function companyAndEmployee(address: string) {
      const { item: company } = await createItem(s.store, principal, 'organizations', { values: name(`Company of ${address}`) });
      const { item: person } = await createItem(s.store, principal, 'people', { values: { ...email(address), ...employer(company.id) } });
      return { company, person };
    }

    /**
     * A delete of `company` by another process, stopped after it locked the company: `write` starts meanwhile
     * and must wait for the company without holding the person, which the delete then locks and rewrites.
     */
    async function deleteAround(company: string, person: string, write: () => Promise<unknown>) {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const companyLocked = new Promise<void>((resolve) => (locked = resolve));
      const deletion = other.transaction(async (tx) => {
        // As deleteItem takes them: the relations lock, then the item.
        await tx.lock([relationsLock(principal.orgId)]);
        await tx.items.findMany(principal.orgId, [company], 'exclusive');
        locked();
        await held;
        await deleteItem(tx, principal, 'organizations', company);
      });
      await companyLocked;
      const writing = write().then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      await untilWaitingOnLock(s.raw);
      let free: boolean;
      try {
        free = await lockable(person);
      } finally {
        release();
        await deletion;
      }
      assert.equal(free, true, 'the waiting write holds no lock on the person the delete rewrites next');
      return writing;
    }

    it('a PATCH re-sending the relation waits for the delete, then answers that the company is gone', async () => {
      const { company, person } = await companyAndEmployee('patch@lock.test');
      const outcome = await deleteAround(company.id, person.id, () =>
        updateItem(s.store, principal, 'people', person.id, { values: { ...employer(company.id), ...name('Patched') } }, REPLACE),
      );
      assert.ok('error' in outcome && outcome.error instanceof AppError, 'the PATCH fails');
      assert.equal((outcome.error as AppError).status, 422);
      assert.match((outcome.error as AppError).detail ?? '', /does not exist/);
      const [after] = await s.store.items.findMany(principal.orgId, [person.id]);
      assert.equal(Object.keys(after!.values).some((id) => JSON.stringify(after!.values[id]).includes(company.id)), false, 'the delete removed the relation');
    });

    it('an upsert matching the person and re-sending the relation waits the same way', async () => {
      const { company, person } = await companyAndEmployee('upsert@lock.test');
      const outcome = await deleteAround(company.id, person.id, () =>
        upsertItem(s.store, principal, 'people', { identifiers: email('upsert@lock.test'), values: employer(company.id) }, REPLACE),
      );
      assert.ok('error' in outcome && outcome.error instanceof AppError, 'the upsert fails');
      assert.match((outcome.error as AppError).detail ?? '', /does not exist/);
    });


    it('a write that kept colliding is a write_contention conflict after five runs, each counted by SQLSTATE', async () => {
      const before = s.store.transactionRetries()['40P01'] ?? 0;
      const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
      await assert.rejects(
        s.store.transaction(async () => {
          throw deadlock;
        }),
        (error: unknown) => error instanceof AppError && error.code === 'write_contention' && error.status === 409,
      );
      assert.equal(s.store.transactionRetries()['40P01'], before + 5);
    });
  });
}
