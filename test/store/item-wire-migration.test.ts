// Migration 0019 gives items that existed before it their stored wire forms: the same bytes, under the same
// tag, as a write would have stored, so such items are answered without rendering from the first request.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStoreWithRaw, type RawStore } from '../helpers/raw-store.ts';
import { ENGINES } from '../helpers/harness.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { createField } from '../../src/domain/collection-fields.ts';
import { createItem } from '../../src/domain/item-writes.ts';
import { loadSchema } from '../../src/domain/collection-schema.ts';
import { wireTag } from '../../src/domain/item-wire.ts';
import type { Principal } from '../../src/domain/api-keys.ts';
import { up } from '../../src/store/migrations/0019-item-wire.ts';
import { POSTGRES_TYPES, SQLITE_TYPES } from '../../src/store/migrations/column-types.ts';

for (const engine of ENGINES) {
  describe(`migration 0019, item wire forms (${engine})`, () => {
    let s: RawStore;
    let principal: Principal;
    before(async () => {
      s = await openStoreWithRaw(engine);
      const { organization } = await ensureOrganization(s.store, 'wire-migration');
      principal = { orgId: organization.id, scope: 'write', actor: { id: 'test', type: 'api_key' } };
    });
    after(() => s.close());

    it('backfills every item with the form and tag a write stores', async () => {
      await createField(s.store, principal.orgId, 'deals', { type: 'field/choice', name: 'Tier', options: [{ name: 'Gold', color: 'amber' }] });
      const schema = await loadSchema(s.store, principal.orgId, 'deals');
      const tierOption = schema.byRef.get('tier')!.config.options![0]!.id;
      const written: { id: string; json: string }[] = [];
      // More than one batch of the migration's.
      for (let i = 0; i < 520; i++) {
        const values = { name: { type: 'value/text/single_line', data: `Deal ${i}` }, tier: { type: 'value/choice', data: { id: tierOption } } };
        const { item, json } = await createItem(s.store, principal, 'deals', { values });
        written.push({ id: item.id, json });
      }
      // The database as it was before the migration, then the migration.
      await s.raw.schema.alterTable('items').dropColumn('wire').execute();
      await s.raw.schema.alterTable('items').dropColumn('wire_tag').execute();
      await s.raw.transaction().execute((tx) => up(tx as any, engine === 'sqlite' ? SQLITE_TYPES : POSTGRES_TYPES));

      const tag = wireTag(schema);
      const rows = await s.raw.selectFrom('items').select(['id', 'wire', 'wire_tag']).where('collection_id', '=', schema.collection.id).execute();
      const stored = new Map(rows.map((r) => [r.id, r]));
      assert.equal(rows.length, written.length);
      for (const { id, json } of written) {
        assert.equal(stored.get(id)?.wire_tag, tag, id);
        assert.equal(stored.get(id)?.wire, json, id);
      }
    });
  });
}
