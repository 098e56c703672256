// Round trips of writes on PostgreSQL (upserts': upsert-early-match.test.ts). An item create sends its writes
// with a guard of the schema tag it saw last (sql-store.ts lockSchema): one round trip. A call upsert holds
// the schema lock shared, so the organization's schema tag travels with the call's lookup; the participants'
// phones are matched in one statement; a new participant's links are only inserted and an update's link
// deletes and row update are not waited for (store/sql/statement-marks.ts), so they all travel with COMMIT. A program
// message's acceptance reads its template, its program and its recipient, the tag travelling with the first.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RawStore } from '../helpers/raw-store.ts';
import { ENGINES } from '../helpers/harness.ts';
import { openCountedStore, untilSubscriptionsRemembered, type CountedStore } from '../helpers/round-trips.ts';
import { createItem } from '../../src/domain/item-writes.ts';
import { upsertCall, type CallInput } from '../../src/domain/calls.ts';
import { createProgram, createTemplate } from '../../src/domain/programs.ts';
import { acceptProgramMessage } from '../../src/domain/program-messages.ts';
import type { Principal } from '../../src/domain/api-keys.ts';

const ADA_PHONE = '+14155552671';
const ADA_EMAIL = 'ada@example.com';
let templateId = '';
const message = () => ({ person: { email: ADA_EMAIL }, program_template_id: templateId });

const call = (providerId: string, callee: string): CallInput => ({
  direction: 'outgoing',
  participants: [
    { phone: ADA_PHONE, role: 'caller' },
    { phone: callee, role: 'callee' },
  ],
  provider: 'openphone',
  provider_id: providerId,
  provider_status: 'completed',
  start_at: '2026-11-20T10:00:00Z',
});

for (const engine of ENGINES.filter((e) => e === 'postgres')) {
  describe(`round trips of call upserts and program messages (${engine})`, () => {
    let counted: CountedStore;
    let s: RawStore;
    let principal: Principal;
    before(async () => {
      counted = await openCountedStore('write-round-trips');
      ({ s, principal } = counted);
      await createItem(s.store, principal, 'people', { values: { phone: [{ type: 'value/telephone_number', data: ADA_PHONE }], email: [{ type: 'value/email', data: ADA_EMAIL }] } });
      const program = await createProgram(s.store, principal.orgId, { status: 'published', trigger: 'api' });
      templateId = (await createTemplate(s.store, principal.orgId, { program_id: program.id, subject: 'Hi', body: { markdown: 'Hello' } })).id;
      await acceptProgramMessage(s.store, principal, message());
      // Warm: the schemas cached, statements named.
      for (const id of ['w-1', 'w-2']) {
        await upsertCall(s.store, principal, call(id, '+14155550100'));
        await upsertCall(s.store, principal, call(id, '+14155550100'));
        await upsertCall(s.store, principal, call(id, '+14155550101'));
      }
      let n = 0;
      await untilSubscriptionsRemembered(counted.trips, () => createItem(s.store, principal, 'people', { values: { name: { type: 'value/text/single_line', data: `Listen ${n++}` } } }));
    });
    after(() => counted?.close());

    it('creates an item in one: the guard of the schema tag it saw last travels with the writes and commit', async () => {
      const create = () => createItem(s.store, principal, 'people', { values: { name: { type: 'value/text/single_line', data: 'One trip' } } });
      assert.equal(await counted.trips.count(create), 1);
    });

    it('logs a new call in four: the schema and lookup; the phones; the matched people; the writes and commit', async () => {
      assert.equal(await counted.trips.count(() => upsertCall(s.store, principal, call('n-1', '+14155550100'))), 4);
    });

    it('updates it, one participant replaced, in five: its tags read besides', async () => {
      assert.equal(await counted.trips.count(() => upsertCall(s.store, principal, call('n-1', '+14155550199'))), 5);
    });

    it('accepts a program message to a known person in four: the tag and template; the program; the person; the message and commit', async () => {
      assert.equal(await counted.trips.count(() => acceptProgramMessage(s.store, principal, message())), 4);
    });
  });
}
