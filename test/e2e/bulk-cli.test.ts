// `tycho export` and `tycho import` as an operator runs them: real processes on a SQLite file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tycho } from '../helpers/tycho-cli.ts';

describe('tycho import and tycho export', () => {
  let dir: string;
  let env: Record<string, string>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tycho-bulk-'));
    env = { DATABASE_URL: join(dir, 'tycho.sqlite') };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('imports a CSV, exports it as NDJSON and CSV, and imports the NDJSON again by identifier', async () => {
    writeFileSync(join(dir, 'people.csv'), 'name,email,job_title\nAda Lovelace,ada@example.com,Analyst\n"Hopper, Grace","[""grace@example.com"",""gh@example.com""]",Admiral\n');
    const first = await tycho(['import', join(dir, 'people.csv'), '--collection', 'people'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /2 created, 0 updated, 0 rejected/);
    assert.equal(first.stdout, '');

    const ndjson = await tycho(['export', '--format', 'ndjson', '--collections', 'people', '--output', join(dir, 'people.ndjson')], env);
    assert.equal(ndjson.code, 0, ndjson.stderr);
    const items = readFileSync(join(dir, 'people.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(items.map((i) => i.values.email.map((e: any) => e.data)).sort(), [['ada@example.com'], ['grace@example.com', 'gh@example.com']]);

    const csv = await tycho(['export', '--format', 'csv', '--collections', 'people'], env);
    assert.equal(csv.code, 0, csv.stderr);
    assert.match(csv.stdout, /^id,name,created_at,updated_at,email,phone,job_title,linked_in,x\r?\n/);
    assert.match(csv.stdout, /"Hopper, Grace"/);

    const again = await tycho(['import', join(dir, 'people.ndjson'), '--identifier', 'email'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /0 created, 2 updated, 0 rejected/);
  });

  it('lists refused rows with their line and the API\'s message and exits 3', async () => {
    writeFileSync(join(dir, 'bad.csv'), 'name,email\nFine,fine@example.com\nBroken,not-an-email\n');
    const result = await tycho(['import', join(dir, 'bad.csv'), '--collection', 'people'], env);
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, /^line 3: 422 validation_failed: \/values\/email email .+$/m);
    assert.match(result.stderr, /1 created, 0 updated, 1 rejected/);
  });

  it('an unknown collection is named, with the ones there are (was: only "tycho: not_found")', async () => {
    const exported = await tycho(['export', '--format', 'csv', '--collections', 'nope'], env);
    assert.equal(exported.code, 1, exported.stderr);
    assert.match(exported.stderr, /^tycho: organization "default" has no collection "nope"; its collections are .*"people"/);
    writeFileSync(join(dir, 'one.csv'), 'name\nAda\n');
    const imported = await tycho(['import', join(dir, 'one.csv'), '--collection', 'nope'], env);
    assert.equal(imported.code, 1, imported.stderr);
    assert.match(imported.stderr, /no collection "nope"; its collections are/);
  });

  it('refuses a CSV export of several collections and an unknown format', async () => {
    const several = await tycho(['export', '--format', 'csv'], env);
    assert.equal(several.code, 1);
    assert.match(several.stderr, /CSV holds one collection/);
    const format = await tycho(['export', '--format', 'xml'], env);
    assert.equal(format.code, 2);
    assert.match(format.stderr, /--format takes ndjson or csv/);
  });
});
