// The planner's statistics on SQLite: ANALYZE keeps only the per-index averages (sqlite_stat1). SQLite as
// better-sqlite3 builds it also keeps STAT4 samples, and with them plans a statement again on every execution
// whose parameters meet a sampled index; neither `store.analyze()` nor a database analysed elsewhere leaves any.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openStore } from '../../src/store/open-store.ts';
import { ensureOrganization } from '../../src/domain/organizations.ts';
import { createItem } from '../../src/domain/item-writes.ts';
import type { Principal } from '../../src/domain/api-keys.ts';

describe('SQLite statistics without samples', () => {
  let dir: string;
  let path: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tycho-statistics-'));
    path = join(dir, 'tycho.sqlite');
    const store = await openStore({ engine: 'sqlite', path });
    const { organization } = await ensureOrganization(store, 'statistics');
    const principal: Principal = { orgId: organization.id, scope: 'write', actor: { id: 'test', type: 'api_key' } };
    for (let i = 0; i < 30; i++) await createItem(store, principal, 'people', { values: { name: { type: 'value/text/single_line', data: `Person ${i}` } } });
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const counts = () => {
    const raw = new BetterSqlite3(path, { readonly: true });
    try {
      const count = (table: string) =>
        raw.prepare('select 1 from sqlite_schema where name = ?').get(table) ? (raw.prepare(`select count(*) from ${table}`).pluck().get() as number) : 0;
      return { averages: count('sqlite_stat1'), samples: count('sqlite_stat4') };
    } finally {
      raw.close();
    }
  };

  it('keeps the averages of every index and no samples after store.analyze()', async () => {
    const store = await openStore({ engine: 'sqlite', path });
    await store.analyze();
    await store.close();
    const { averages, samples } = counts();
    assert.ok(averages > 10, `sqlite_stat1 has ${averages} rows`);
    assert.equal(samples, 0);
  });

  it('drops the samples of a database analysed by hand when it opens it', async () => {
    const raw = new BetterSqlite3(path);
    raw.exec('analyze');
    raw.close();
    assert.ok(counts().samples > 0, 'ANALYZE wrote samples');
    const store = await openStore({ engine: 'sqlite', path });
    await store.close();
    assert.equal(counts().samples, 0);
    assert.ok(counts().averages > 10);
  });
});
