// Import and export (src/bulk, `tycho import` / `tycho export`): round trips through CSV and NDJSON between
// organizations, upserts by an identifier, refused rows reported with their line and the API's own message,
// and batches that are written whole or not at all. The data is checked through the HTTP API.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { ENGINES, createHarness, type Harness } from '../helpers/harness.ts';
import { createCollection, createField } from '../helpers/fields.ts';
import { exportItems, type BulkFormat } from '../../src/bulk/export.ts';
import { importItems, type ImportResult } from '../../src/bulk/import.ts';

const FIELDS = [
  { name: 'Email', type: 'field/email', cardinality: 'many', unique: true },
  { name: 'Employees', type: 'field/number/unitless_integer' },
  { name: 'Revenue', type: 'field/number/monetary', default_unit: 'EUR' },
  { name: 'Tier', type: 'field/choice', options: [{ name: 'Gold', color: 'amber' }, { name: 'Silver', color: 'lunar' }] },
  { name: 'Active', type: 'field/boolean' },
  { name: 'Founded', type: 'field/date' },
  { name: 'Linked In', type: 'field/uri/social_linked_in' },
  { name: 'Remarks', type: 'field/text/multi_line' },
];

const v = (type: string, data: unknown) => ({ type: `value/${type}`, data });

function account(i: number, tierId: string) {
  return {
    name: v('text/single_line', `Account ${i}, "quoted"`),
    remarks: v('text/multi_line', `first line of ${i}\nsecond, "line"`),
    email: [v('email', `a${i}@example.com`), v('email', `billing${i}@example.com`)],
    employees: v('number/unitless_integer', i * 10),
    revenue: v('number/monetary', { currency: 'EUR', in_minor_units: i * 1000 }),
    tier: v('choice', { type: 'choice_field_option', id: tierId }),
    active: v('boolean', i % 2 === 0),
    founded: v('date', `20${String(10 + (i % 10)).padStart(2, '0')}-01-0${1 + (i % 9)}`),
    linked_in: v('uri/social_linked_in', { url: `https://linkedin.com/company/acct${i}` }),
  };
}

async function exported(h: Harness, orgId: string, collections: string[], format: BulkFormat): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  await exportItems(h.store, { orgId, collections, format, out });
  out.end();
  return text;
}

async function imported(h: Harness, orgId: string, text: string, options: { format: BulkFormat; collection?: string; identifier?: string; batchSize?: number }) {
  const rejected: string[] = [];
  const result: ImportResult = await importItems(h.store, {
    orgId,
    input: Readable.from([text]),
    batchSize: options.batchSize ?? 7,
    format: options.format,
    ...(options.collection ? { collection: options.collection } : {}),
    ...(options.identifier ? { identifier: options.identifier } : {}),
    reject: (line, message) => rejected.push(`line ${line}: ${message}`),
  });
  return { ...result, rejected };
}

/** The items of a collection as comparable values: no ids, timestamps or option ids, sorted by name. */
async function comparable(h: Harness, collection: string, key: string): Promise<unknown[]> {
  const res = await h.post(`/v0/collections/${collection}/items/search?limit=100`, {}, { key });
  assert.equal(res.status, 200, res.text);
  return res.body.data
    .map(({ data }: any) => {
      const { created_at, updated_at, tier, ...rest } = data.values;
      return { ...rest, ...(tier ? { tier: tier.data.name } : {}) };
    })
    .sort((a: any, b: any) => a.name.data.localeCompare(b.name.data));
}

for (const engine of ENGINES) {
  describe(`Import and export (${engine})`, () => {
    let h: Harness;
    let other: { orgId: string; key: string };
    const N = 23;

    before(async () => {
      h = await createHarness(engine);
      other = await h.newOrg();
      for (const key of [h.key, other.key]) {
        await createCollection(h, 'Accounts', key);
        for (const field of FIELDS) await createField(h, 'accounts', field, key);
      }
      const tier = (await h.get('/v0/collections/accounts')).body.fields.find((f: any) => f.ref === 'tier');
      for (let i = 1; i <= N; i++) {
        const res = await h.post('/v0/collections/accounts/items', { values: account(i, tier.options[i % 2].id) });
        assert.equal(res.status, 201, res.text);
      }
    });
    after(() => h.close());

    it('round-trips a collection through CSV into another organization', async () => {
      const csv = await exported(h, h.orgId, ['accounts'], 'csv');
      assert.match(csv.split('\n')[0]!, /^id,name,created_at,updated_at,email,employees,revenue,tier,active,founded,linked_in,remarks\r?$/);
      const result = await imported(h, other.orgId, csv, { format: 'csv', collection: 'accounts' });
      assert.deepEqual(result, { created: N, updated: 0, rejected: [] });
      assert.deepEqual(await comparable(h, 'accounts', other.key), await comparable(h, 'accounts', h.key));
    });

    it('round-trips NDJSON, and upserts by an identifier instead of duplicating', async () => {
      const ndjson = await exported(h, h.orgId, ['people', 'accounts'], 'ndjson');
      assert.equal(ndjson.trim().split('\n').length, N);
      const again = await imported(h, h.orgId, ndjson, { format: 'ndjson', identifier: 'email' });
      assert.deepEqual(again, { created: 0, updated: N, rejected: [] });
      const before = await comparable(h, 'accounts', h.key);
      assert.equal(before.length, N, 'no duplicates');
      const csv = await exported(h, h.orgId, ['accounts'], 'csv');
      const changed = csv.replace('a1@example.com', 'a1@example.com').replace(/,10,/, ',11,');
      const upserted = await imported(h, other.orgId, changed, { format: 'csv', collection: 'accounts', identifier: 'email' });
      assert.deepEqual(upserted, { created: 0, updated: N, rejected: [] });
      assert.equal((await comparable(h, 'accounts', other.key)).length, N);
    });

    it('reports refused rows with their line and the API\'s message, and writes every other row once', async () => {
      const wrong = { employees: v('number/unitless_integer', 'lots') };
      const api = await h.post('/v0/collections/accounts/items', { values: wrong }, { key: other.key });
      assert.equal(api.status, 422);
      const lines = [
        JSON.stringify({ values: { name: v('text/single_line', 'Ok 1') } }),
        JSON.stringify({ values: { name: v('text/single_line', 'Bad 1'), ...wrong } }),
        '',
        'not json',
        JSON.stringify({ values: { name: v('text/single_line', 'Ok 2'), email: [v('email', 'a5@example.com')] } }),
        JSON.stringify({ values: { name: v('text/single_line', 'Ok 3') } }),
      ];
      const taken = await h.post('/v0/collections/accounts/items', { values: { email: [v('email', 'a5@example.com')] } }, { key: other.key });
      const message = (res: typeof api) => {
        const [error] = res.body.errors;
        return `${error.status} ${error.code}: ${error.source.pointer} ${error.detail}`;
      };
      const result = await imported(h, other.orgId, lines.join('\n'), { format: 'ndjson', collection: 'accounts', batchSize: 10 });
      assert.equal(result.created, 2);
      assert.deepEqual(result.rejected, [
        `line 4: not JSON: each line must be one item such as {"values": {"name": {"type": "value/text/single_line", "data": "Acme"}}}`,
        `line 2: ${message(api)}`,
        `line 5: ${message(taken)}`,
      ]);
      const names = (await comparable(h, 'accounts', other.key)).map((i: any) => i.name.data).filter((n: string) => /^(Ok|Bad)/.test(n));
      assert.deepEqual(names, ['Ok 1', 'Ok 3'], 'the batch was applied once, without the refused rows');
    });

    it('refuses a CSV column that is not a field before writing anything', async () => {
      await assert.rejects(imported(h, other.orgId, 'name,shoe_size\nA,42\n', { format: 'csv', collection: 'accounts' }), /CSV column "shoe_size" is not a field of accounts/);
      await assert.rejects(exported(h, h.orgId, [], 'csv'), /CSV holds one collection/);
    });
  });
}
