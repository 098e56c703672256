import Database from 'better-sqlite3';
import { copyFileSync } from 'node:fs';
const org = process.argv[2]!;
for (const fk of ['ON', 'OFF']) {
  copyFileSync('/tmp/ds.sqlite', '/tmp/ds2.sqlite');
  const db = new Database('/tmp/ds2.sqlite');
  db.pragma(`foreign_keys = ${fk}`);
  const inColl = `(select id from collections where org_id = '${org}')`;
  const steps: [string, string][] = [
    ['item_values', `delete from item_values where item_id in (select id from items where collection_id in ${inColl})`],
    ['items', `delete from items where collection_id in ${inColl}`],
    ['activity_entities', `delete from activity_entities where activity_id in (select id from activities where org_id='${org}')`],
    ['activities', `delete from activities where org_id='${org}'`],
    ['fields', `delete from fields where collection_id in ${inColl}`],
    ['collections', `delete from collections where org_id='${org}'`],
    ['rest', `delete from api_keys where org_id='${org}'`],
    ['org', `delete from organizations where id='${org}'`],
  ];
  db.exec('begin');
  const out: string[] = [];
  for (const [name, q] of steps) {
    const s = performance.now();
    try { const r = db.prepare(q).run(); out.push(`${name} ${(performance.now() - s).toFixed(1)}ms (${r.changes})`); } catch (e) { out.push(`${name} ERR ${(e as Error).message}`); }
  }
  db.exec('rollback');
  console.log(`fk ${fk}: ${out.join(', ')}`);
  db.close();
}
