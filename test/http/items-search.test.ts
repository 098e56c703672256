// Item search and list through HTTP (reference §5.3, §6.4, appendix A.6): every filter op, groups and nesting,
// the documented matching semantics, include, sort (refs, ids, descending, timestamps, relation paths),
// keyset pagination under a sort, and the 422 errors of malformed or unknown filters and sorts, 400 of cursors.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, type Harness, type Response } from '../helpers/harness.ts';
import { assertInvalid, email, int, makeField, makeItem, text, val, walkForward } from '../helpers/items.ts';

const PEOPLE = '/v0/collections/people/items';
const SEARCH = `${PEOPLE}/search`;

/** A clock that moves one second forward on every reading: distinct, increasing creation times. */
function tickingClock(start = Date.parse('2025-02-17T16:00:00.000Z')) {
  let now = start;
  return () => new Date((now += 1000));
}

interface Person {
  name: string;
  age?: number;
  emails?: string[];
  salary?: [string, number];
  born?: string;
  level?: 'Junior' | 'Senior' | 'Lead';
  vip?: boolean;
  org?: 'Acme' | 'Globex' | 'Initech';
}

// Created in this order.
const PEOPLE_DATA: Person[] = [
  { name: 'Alice Smith', age: 34, emails: ['alice@acme.com', 'a.smith@gmail.com'], salary: ['USD', 500000], born: '1990-05-01', level: 'Senior', vip: true, org: 'Acme' },
  { name: 'bob jones', age: 28, emails: ['bob@globex.com'], salary: ['USD', 420000], born: '1996-11-23', level: 'Junior', vip: false, org: 'Globex' },
  { name: 'CAROL White', age: 45, emails: ['carol@initech.com'], salary: ['EUR', 900000], born: '1979-02-14', level: 'Lead', vip: true, org: 'Initech' },
  { name: 'Dave Smithers', age: 51, emails: ['dave@acme.com', 'dave@hotmail.com'], salary: ['USD', 1000000], born: '1973-07-30', level: 'Lead', vip: false, org: 'Acme' },
  { name: 'Eve Adams', age: 23, emails: ['eve@globex.com'], salary: ['USD', 310000], born: '2001-01-01', level: 'Junior', org: 'Globex' },
  { name: 'frank Ocean', age: 37, emails: ['frank@example.org'], born: '1987-10-28', level: 'Senior', vip: true },
  { name: 'Grace Hopper', age: 60, emails: ['grace@navy.mil'], salary: ['USD', 1200000], born: '1964-12-09', level: 'Lead', vip: true, org: 'Initech' },
  { name: 'Heidi Klum', age: 28, emails: ['heidi@example.com'], salary: ['USD', 420000], born: '1996-06-01', level: 'Senior', vip: false, org: 'Acme' },
  { name: 'Ivan Petrov', emails: ['ivan@yandex.ru'], vip: false },
  { name: 'Judy Smith', age: 41, emails: ['judy@acme.com'], salary: ['USD', 650000], born: '1983-03-03', level: 'Senior', vip: true, org: 'Globex' },
  { name: 'mallory' },
  { name: 'Oscar Wilde', age: 19, emails: ['oscar@example.org'], salary: ['GBP', 100000], born: '2005-08-15', level: 'Junior', vip: false, org: 'Initech' },
];
const ALL = PEOPLE_DATA.map((p) => p.name);
const where = (test: (p: Person) => boolean) => PEOPLE_DATA.filter(test).map((p) => p.name).sort();

const nameOf = (item: any): string => item.values.name.data;

for (const engine of ENGINES) {
  describe(`item search (${engine})`, () => {
    let h: Harness;
    let ageField: any;
    let levelField: any;
    const orgIds: Record<string, string> = {};
    const idOf: Record<string, string> = {};

    const search = (body: unknown, query = '') => h.post(`${SEARCH}${query ? `?${query}` : ''}`, body);

    /** The names the filter matches, sorted. */
    const matching = async (filter: unknown): Promise<string[]> => {
      const res = await search({ filter }, 'limit=100');
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((r: any) => nameOf(r.data)).sort();
    };

    /** Names in the order a sort returns them (one page of 100). */
    const sorted = async (sort: string[]): Promise<any[]> => {
      const res = await search({ sort }, 'limit=100');
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((r: any) => r.data);
    };

    const option = (name: string) => levelField.options.find((o: any) => o.name === name).id;

    before(async () => {
      h = await createHarness(engine, { clock: tickingClock() });
      ageField = await makeField(h, 'people', { name: 'Age', type: 'field/number/unitless_integer' });
      await makeField(h, 'people', { name: 'Salary', type: 'field/number/monetary', default_unit: 'USD' });
      await makeField(h, 'people', { name: 'Born', type: 'field/date' });
      levelField = await makeField(h, 'people', {
        name: 'Level',
        type: 'field/choice',
        options: [{ name: 'Junior', color: 'green' }, { name: 'Senior', color: 'blue' }, { name: 'Lead', color: 'red' }],
      });
      await makeField(h, 'people', { name: 'VIP', type: 'field/boolean' });
      await makeField(h, 'people', {
        name: 'Organization',
        type: 'field/relation',
        relation_type: 'one_way',
        allowed_collections: [{ type: 'collection', ref: 'organizations' }],
      });
      for (const name of ['Globex', 'Initech', 'Acme']) orgIds[name] = (await makeItem(h, 'organizations', { name: text(name) })).id;
      for (const p of PEOPLE_DATA) {
        const values: Record<string, unknown> = { name: text(p.name) };
        if (p.age !== undefined) values.age = int(p.age);
        if (p.emails) values.email = p.emails.map(email);
        if (p.salary) values.salary = val('number/monetary', { currency: p.salary[0], in_minor_units: p.salary[1] });
        if (p.born) values.born = val('date', p.born);
        if (p.level) values.level = val('choice', { type: 'choice_field_option', id: option(p.level) });
        if (p.vip !== undefined) values.vip = val('boolean', p.vip);
        if (p.org) values.organization = val('relation', { type: 'item', id: orgIds[p.org] });
        idOf[p.name] = (await makeItem(h, 'people', values)).id;
      }
    });
    after(() => h.close());

    it('answers a list of search_result wrappers around full items with their collection', async () => {
      const res = await search({ filter: { op: 'eq', field: 'name', value: 'Alice Smith' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.type, 'list');
      assert.deepEqual(res.body.meta, { cursors: {} });
      assert.equal(res.body.data.length, 1);
      const [result] = res.body.data;
      assert.equal(result.type, 'search_result');
      const item = (await h.get(`${PEOPLE}/${idOf['Alice Smith']}`)).body;
      assert.deepEqual(result.data, item);
      assert.equal(result.data.collection.ref, 'people');
      assert.equal(result.data.values.age.data, 34);
    });

    it('searches everything with an empty body or no filter', async () => {
      assert.deepEqual(await matching(undefined), [...ALL].sort());
      const res = await h.post(`${SEARCH}?limit=100`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.length, ALL.length);
    });

    describe('value ops, case-insensitive on text', () => {
      it('starts_with', async () => {
        assert.deepEqual(await matching({ op: 'starts_with', field: 'name', value: 'carol' }), ['CAROL White']);
        assert.deepEqual(await matching({ op: 'starts_with', field: 'name', value: 'J' }), ['Judy Smith']);
        assert.deepEqual(await matching({ op: 'starts_with', field: 'name', value: 'BOB' }), ['bob jones']);
      });

      it('ends_with', async () => {
        assert.deepEqual(await matching({ op: 'ends_with', field: 'name', value: 'SMITH' }), ['Alice Smith', 'Judy Smith']);
        assert.deepEqual(await matching({ op: 'ends_with', field: 'name', value: 'ocean' }), ['frank Ocean']);
      });

      it('contains and not_contains', async () => {
        assert.deepEqual(await matching({ op: 'contains', field: 'name', value: 'smith' }), ['Alice Smith', 'Dave Smithers', 'Judy Smith']);
        assert.deepEqual(await matching({ op: 'contains', field: 'name', value: '%' }), []);
        assert.deepEqual(await matching({ op: 'not_contains', field: 'name', value: 'SMITH' }), where((p) => !/smith/i.test(p.name)));
      });

      it('eq and not_eq', async () => {
        assert.deepEqual(await matching({ op: 'eq', field: 'name', value: 'BOB JONES' }), ['bob jones']);
        assert.deepEqual(await matching({ op: 'eq', field: 'name', value: 'bob' }), []);
        assert.deepEqual(await matching({ op: 'not_eq', field: 'name', value: 'MALLORY' }), where((p) => p.name !== 'mallory'));
      });

      it('gt, lt, gte, lte on an integer field', async () => {
        assert.deepEqual(await matching({ op: 'gt', field: 'age', value: 40 }), where((p) => p.age !== undefined && p.age > 40));
        assert.deepEqual(await matching({ op: 'lt', field: 'age', value: 28 }), ['Eve Adams', 'Oscar Wilde']);
        assert.deepEqual(await matching({ op: 'gte', field: 'age', value: 28 }), where((p) => p.age !== undefined && p.age >= 28));
        assert.deepEqual(await matching({ op: 'lte', field: 'age', value: 28 }), ['Eve Adams', 'Heidi Klum', 'Oscar Wilde', 'bob jones']);
        assert.deepEqual(await matching({ op: 'eq', field: 'age', value: 28 }), ['Heidi Klum', 'bob jones']);
      });

      it('not_eq holds for items without a value', async () => {
        assert.deepEqual(await matching({ op: 'not_eq', field: 'age', value: 28 }), where((p) => p.age !== 28));
      });

      it('exists, and not exists', async () => {
        assert.deepEqual(await matching({ op: 'exists', field: 'age' }), where((p) => p.age !== undefined));
        assert.deepEqual(await matching({ op: 'not', filter: { op: 'exists', field: 'age' } }), ['Ivan Petrov', 'mallory']);
        assert.deepEqual(await matching({ op: 'not', filter: { op: 'exists', field: 'email' } }), ['mallory']);
      });

      it('fields are named by ref or by id', async () => {
        assert.deepEqual(await matching({ op: 'gt', field: ageField.id, value: 50 }), ['Dave Smithers', 'Grace Hopper']);
      });
    });

    describe('semantics per type', () => {
      it('a many field matches when any of its elements matches', async () => {
        assert.deepEqual(await matching({ op: 'eq', field: 'email', value: 'A.Smith@gmail.com' }), ['Alice Smith']);
        assert.deepEqual(await matching({ op: 'ends_with', field: 'email', value: '@hotmail.com' }), ['Dave Smithers']);
        assert.deepEqual(await matching({ op: 'contains', field: 'email', value: 'ACME' }), ['Alice Smith', 'Dave Smithers', 'Judy Smith']);
        // not_contains: no element contains it (items without emails included).
        assert.deepEqual(
          await matching({ op: 'not_contains', field: 'email', value: 'acme' }),
          where((p) => !(p.emails ?? []).some((e) => e.includes('acme'))),
        );
      });

      it('monetary values compare in minor units, whatever the currency', async () => {
        assert.deepEqual(await matching({ op: 'gt', field: 'salary', value: 500000 }), ['CAROL White', 'Dave Smithers', 'Grace Hopper', 'Judy Smith']);
        assert.deepEqual(await matching({ op: 'eq', field: 'salary', value: 420000 }), ['Heidi Klum', 'bob jones']);
        assert.deepEqual(await matching({ op: 'lte', field: 'salary', value: 100000 }), ['Oscar Wilde']);
        assert.deepEqual(await matching({ op: 'gte', field: 'salary', value: 1000000 }), ['Dave Smithers', 'Grace Hopper']);
      });

      it('dates compare as ISO strings; the time part of a date filter is ignored', async () => {
        assert.deepEqual(await matching({ op: 'gt', field: 'born', value: '1990-01-01' }), where((p) => p.born !== undefined && p.born > '1990-01-01'));
        assert.deepEqual(await matching({ op: 'lt', field: 'born', value: '1980-01-01' }), ['CAROL White', 'Dave Smithers', 'Grace Hopper']);
        assert.deepEqual(await matching({ op: 'gte', field: 'born', value: '1990-05-01' }), where((p) => p.born !== undefined && p.born >= '1990-05-01'));
        assert.deepEqual(await matching({ op: 'lte', field: 'born', value: '1973-07-30' }), ['Dave Smithers', 'Grace Hopper']);
        assert.deepEqual(await matching({ op: 'eq', field: 'born', value: '1990-05-01T12:00:00Z' }), ['Alice Smith']);
        assert.deepEqual(await matching({ op: 'starts_with', field: 'born', value: '1996' }), ['Heidi Klum', 'bob jones']);
      });

      it('created_at compares as an instant', async () => {
        const res = await search({ sort: ['created_at'] }, 'limit=100');
        const sixth = res.body.data[5].data.values.created_at.data;
        assert.deepEqual(await matching({ op: 'gt', field: 'created_at', value: sixth }), [...ALL.slice(6)].sort());
        assert.deepEqual(await matching({ op: 'lte', field: 'created_at', value: sixth }), [...ALL.slice(0, 6)].sort());
        // As the Ruby SDK writes a Time (Time#to_s); a time without a zone names no instant.
        const ruby = (sixth as string).replace('T', ' ').replace('Z', ' UTC');
        assert.deepEqual(await matching({ op: 'gt', field: 'created_at', value: ruby }), [...ALL.slice(6)].sort());
        assertInvalid(await search({ filter: { op: 'gt', field: 'created_at', value: ruby.replace(' UTC', '') } }), '/filter/value');
      });

      it('choice fields match by option id', async () => {
        assert.deepEqual(await matching({ op: 'eq', field: 'level', value: option('Senior') }), where((p) => p.level === 'Senior'));
        assert.deepEqual(await matching({ op: 'not_eq', field: 'level', value: option('Lead') }), where((p) => p.level !== 'Lead'));
      });

      it('booleans match true and false', async () => {
        assert.deepEqual(await matching({ op: 'eq', field: 'vip', value: true }), where((p) => p.vip === true));
        assert.deepEqual(await matching({ op: 'eq', field: 'vip', value: false }), where((p) => p.vip === false));
      });

      it('values sent as strings compare as the type of their field (seed §4.4 shows every value as a string; was: 422)', async () => {
        assert.deepEqual(await matching({ op: 'eq', field: 'age', value: '34' }), await matching({ op: 'eq', field: 'age', value: 34 }));
        assert.deepEqual(await matching({ op: 'gte', field: 'age', value: '40.5' }), where((p) => (p.age ?? 0) >= 40.5));
        assert.deepEqual(await matching({ op: 'eq', field: 'vip', value: 'true' }), where((p) => p.vip === true));
        assert.deepEqual(await matching({ op: 'eq', field: 'vip', value: 'false' }), where((p) => p.vip === false));
      });

      it('relations match by item id', async () => {
        assert.deepEqual(await matching({ op: 'eq', field: 'organization', value: orgIds.Acme }), ['Alice Smith', 'Dave Smithers', 'Heidi Klum']);
      });
    });

    it(
      'text ops see the whole value, beyond 512 characters',
      async () => {
        const long = `${'z'.repeat(600)}-TAIL`;
        const item = await makeItem(h, 'people', { name: text('Long Name'), job_title: text(long) });
        try {
          for (const filter of [
            { op: 'eq', field: 'job_title', value: long.toLowerCase() },
            { op: 'ends_with', field: 'job_title', value: '-tail' },
            { op: 'contains', field: 'job_title', value: 'z-TAIL' },
          ]) {
            assert.deepEqual(await matching(filter), ['Long Name'], JSON.stringify(filter).slice(0, 80));
          }
        } finally {
          await h.delete(`${PEOPLE}/${item.id}`);
        }
      },
    );

    describe('groups', () => {
      it('and: every filter matches', async () => {
        assert.deepEqual(
          await matching({ op: 'and', filters: [{ op: 'contains', field: 'name', value: 'smith' }, { op: 'gt', field: 'age', value: 40 }] }),
          ['Dave Smithers', 'Judy Smith'],
        );
      });

      it('or: any filter matches', async () => {
        assert.deepEqual(
          await matching({ op: 'or', filters: [{ op: 'eq', field: 'level', value: option('Lead') }, { op: 'lt', field: 'age', value: 20 }] }),
          ['CAROL White', 'Dave Smithers', 'Grace Hopper', 'Oscar Wilde'],
        );
      });

      it('not: the single filter does not match', async () => {
        assert.deepEqual(await matching({ op: 'not', filter: { op: 'contains', field: 'name', value: 'smith' } }), where((p) => !/smith/i.test(p.name)));
        assert.deepEqual(await matching({ op: 'not', filter: { op: 'not', filter: { op: 'eq', field: 'name', value: 'mallory' } } }), ['mallory']);
      });

      it('groups nest three levels deep', async () => {
        const filter = {
          op: 'and',
          filters: [
            { op: 'exists', field: 'email' },
            {
              op: 'or',
              filters: [
                { op: 'gte', field: 'age', value: 50 },
                { op: 'and', filters: [{ op: 'eq', field: 'vip', value: true }, { op: 'lt', field: 'age', value: 40 }] },
              ],
            },
            { op: 'not', filter: { op: 'ends_with', field: 'email', value: '@ACME.com' } },
          ],
        };
        assert.deepEqual(await matching(filter), ['Grace Hopper', 'frank Ocean']);
      });
    });

    describe('include', () => {
      it('returns only the listed fields, by ref', async () => {
        const res = await search({ filter: { op: 'eq', field: 'name', value: 'Alice Smith' }, include: ['name', 'age'] });
        assert.equal(res.status, 200, res.text);
        const item = res.body.data[0].data;
        assert.deepEqual(Object.keys(item.values).sort(), ['age', 'name']);
        assert.deepEqual(item.values.age, int(34));
        assert.equal(item.id, idOf['Alice Smith']);
        assert.equal(item.collection.ref, 'people');
      });

      it('returns only the listed fields, by id', async () => {
        const res = await search({ filter: { op: 'eq', field: 'name', value: 'Alice Smith' }, include: [ageField.id] });
        assert.deepEqual(res.body.data[0].data.values, { age: int(34) });
      });

      it('an unknown field in include → 422', async () => {
        assertInvalid(await search({ include: ['name', 'nope'] }), '/include/1');
      });
    });

    describe('sort', () => {
      const ages = (items: any[]) => items.map((i) => i.values.age?.data ?? null);

      it('by a ref ascending, items without a value last', async () => {
        const items = await sorted(['age']);
        assert.deepEqual(ages(items), [19, 23, 28, 28, 34, 37, 41, 45, 51, 60, null, null]);
        assert.deepEqual(items.slice(-2).map(nameOf).sort(), ['Ivan Petrov', 'mallory']);
      });

      it('descending with a - prefix, items without a value still last', async () => {
        const items = await sorted(['-age']);
        assert.deepEqual(ages(items), [60, 51, 45, 41, 37, 34, 28, 28, 23, 19, null, null]);
        assert.deepEqual(ages(await sorted([`-${ageField.id}`])), ages(items));
        // Ties (the two 28s) go by id in the key's direction: the valued part is the ascending list reversed.
        const valued = (list: any[]) => list.filter((i) => i.values.age).map((i) => i.id);
        assert.deepEqual(valued(items), valued(await sorted(['age'])).reverse());
        const tied = items.filter((i) => i.values.age?.data === 28).map((i) => i.id);
        assert.deepEqual(tied, [...tied].sort().reverse());
      });

      it('by created_at, both ways', async () => {
        assert.deepEqual((await sorted(['created_at'])).map(nameOf), ALL);
        assert.deepEqual((await sorted(['-created_at'])).map(nameOf), [...ALL].reverse());
      });

      it('by several keys', async () => {
        const items = await sorted(['-vip', 'age']);
        assert.deepEqual(
          items.map((i) => [i.values.vip?.data ?? null, i.values.age?.data ?? null]),
          [[true, 34], [true, 37], [true, 41], [true, 45], [true, 60], [false, 19], [false, 28], [false, 28], [false, 51], [false, null], [null, 23], [null, null]],
        );
      });

      it('by a relation path (organization.name)', async () => {
        const orgName = (i: any) => PEOPLE_DATA.find((p) => p.name === nameOf(i))!.org ?? null;
        const asc = await sorted(['organization.name']);
        assert.deepEqual(asc.map(orgName), ['Acme', 'Acme', 'Acme', 'Globex', 'Globex', 'Globex', 'Initech', 'Initech', 'Initech', null, null, null]);
        const desc = await sorted(['-organization.name', 'age']);
        assert.deepEqual(desc.map(orgName), ['Initech', 'Initech', 'Initech', 'Globex', 'Globex', 'Globex', 'Acme', 'Acme', 'Acme', null, null, null]);
        assert.deepEqual(desc.slice(0, 3).map(nameOf), ['Oscar Wilde', 'CAROL White', 'Grace Hopper']);
      });

      it('applies to filtered results', async () => {
        const res = await search({ filter: { op: 'exists', field: 'salary' }, sort: ['-salary'] }, 'limit=100');
        assert.deepEqual(
          res.body.data.map((r: any) => r.data.values.salary.data.in_minor_units),
          [1200000, 1000000, 900000, 650000, 500000, 420000, 420000, 310000, 100000],
        );
      });
    });

    describe('pagination under a sort', () => {
      for (const sort of [['-age'], ['organization.name'], ['born'], ['-vip', 'age'], ['name']]) {
        it(`walks next to the end and prev back, each item once (sort ${sort.join(',')})`, async () => {
          const expected = (await sorted(sort)).map((i) => i.id);
          assert.equal(expected.length, ALL.length);
          const pages = await walkForward((query) => search({ sort }, `limit=3${query ? `&${query}` : ''}`));
          assert.equal(pages.length, 4);
          assert.equal(pages[0].meta.cursors.prev, undefined);
          assert.equal(pages[3].meta.cursors.next, undefined);
          assert.ok(pages.every((p) => p.data.length === 3));
          const forward = pages.flatMap((p) => p.data.map((r: any) => r.data.id));
          assert.deepEqual(forward, expected);

          const backward: string[][] = [];
          let cursor: string | undefined = pages[3].meta.cursors.prev;
          backward.push(pages[3].data.map((r: any) => r.data.id));
          while (cursor) {
            const res: Response = await search({ sort }, `limit=3&before=${encodeURIComponent(cursor)}`);
            assert.equal(res.status, 200, res.text);
            backward.unshift(res.body.data.map((r: any) => r.data.id));
            cursor = res.body.meta.cursors.prev;
            assert.ok(backward.length <= 4, 'prev ends');
          }
          assert.deepEqual(backward.flat(), expected);
        });
      }

      it('turns pages exactly where the items without a value begin, both ways', async () => {
        // Ten items have an age: page 5 of 2 ends with the last of them, page 6 holds the two without one.
        const expected = (await sorted(['-age'])).map((i) => i.id);
        const pages = await walkForward((query) => search({ sort: ['-age'] }, `limit=2${query ? `&${query}` : ''}`));
        assert.deepEqual(pages.flatMap((p) => p.data.map((r: any) => r.data.id)), expected);
        assert.equal(pages.length, 6);
        assert.deepEqual(pages[5].data.map((r: any) => r.data.values.age ?? null), [null, null]);
        const back = await search({ sort: ['-age'] }, `limit=2&before=${encodeURIComponent(pages[5].meta.cursors.prev)}`);
        assert.deepEqual(back.body.data.map((r: any) => r.data.id), expected.slice(8, 10));
        assert.equal(typeof back.body.meta.cursors.next, 'string');
        assert.equal(typeof back.body.meta.cursors.prev, 'string');
      });

      it('pages a sort under a broad filter', async () => {
        const filter = { op: 'eq', field: 'vip', value: true };
        const pages = await walkForward((query) => search({ filter, sort: ['-age'] }, `limit=2${query ? `&${query}` : ''}`));
        const ages = pages.flatMap((p) => p.data.map((r: any) => r.data.values.age?.data ?? null));
        assert.deepEqual(ages, [60, 45, 41, 37, 34]);
      });

      it('pages a filtered search', async () => {
        const filter = { op: 'exists', field: 'age' };
        const pages = await walkForward((query) => search({ filter, sort: ['age'] }, `limit=4${query ? `&${query}` : ''}`));
        const ages = pages.flatMap((p) => p.data.map((r: any) => r.data.values.age.data));
        assert.deepEqual(ages, [19, 23, 28, 28, 34, 37, 41, 45, 51, 60]);
        assert.equal(pages.length, 3);
      });
    });

    describe('errors', () => {
      it('an unknown field → 422 pointing into the filter', async () => {
        const res = await search({ filter: { op: 'and', filters: [{ op: 'exists', field: 'name' }, { op: 'eq', field: 'nope', value: 'x' }] } });
        const detail = assertInvalid(res, '/filter/filters/1/field');
        assert.ok(detail.includes('nope'));
        assertInvalid(await search({ filter: { op: 'exists', field: 'nope' } }), '/filter/field');
        assertInvalid(await search({ filter: { op: 'not', filter: { op: 'eq', field: 'nope', value: 1 } } }), '/filter/filter/field');
      });

      it('a filter value that does not fit the field → 422 at /filter/value', async () => {
        assertInvalid(await search({ filter: { op: 'gt', field: 'born', value: 'yesterday' } }), '/filter/value');
        assertInvalid(await search({ filter: { op: 'gt', field: 'age', value: 'forty' } }), '/filter/value');
        assertInvalid(await search({ filter: { op: 'eq', field: 'vip', value: 'maybe' } }), '/filter/value');
      });

      it('an op that does not apply to the field\'s type → 422', async () => {
        const res = await search({ filter: { op: 'contains', field: 'age', value: '3' } });
        assert.equal(res.status, 422, res.text);
        assert.match(res.body.errors[0].source.pointer, /^\/filter/);
        assert.equal((await search({ filter: { op: 'gt', field: 'vip', value: true } })).status, 422);
        assert.equal((await search({ filter: { op: 'starts_with', field: 'level', value: 'Se' } })).status, 422);
      });

      for (const [label, filter] of [
        ['a filter that is not an object', 'name = Alice'],
        ['an array as a filter', [{ op: 'exists', field: 'name' }]],
        ['and without filters', { op: 'and' }],
        ['or with filters not an array', { op: 'or', filters: { op: 'exists', field: 'name' } }],
        ['not without filter', { op: 'not', filters: [{ op: 'exists', field: 'name' }] }],
        ['an unknown op', { op: 'like', field: 'name', value: 'A%' }],
        ['no op at all', { field: 'name', value: 'Alice' }],
        ['a malformed nested filter', { op: 'and', filters: [{ op: 'exists', field: 'name' }, 42] }],
      ] as const) {
        it(`a malformed filter → 422 invalid_filter at its pointer: ${label}`, async () => {
          const res = await search({ filter });
          assert.equal(res.status, 422, res.text);
          assert.equal(res.body.errors[0].status, '422');
          assert.equal(res.body.errors[0].code, 'invalid_filter');
          assert.match(res.body.errors[0].source.pointer, /^\/filter/);
        });
      }

      it('an unknown sort field → 422', async () => {
        assertInvalid(await search({ sort: ['age', '-nope'] }), '/sort/1');
        assertInvalid(await search({ sort: ['name.first'] }), '/sort/0');
        assertInvalid(await search({ sort: ['organization.nope'] }), '/sort/0');
      });

      it('a cursor made under another sort, or not a cursor at all → 400', async () => {
        const first = await search({ sort: ['age'] }, 'limit=3');
        const next = first.body.meta.cursors.next;
        assert.equal(typeof next, 'string');
        assert.equal((await search({ sort: ['age'] }, `limit=3&after=${encodeURIComponent(next)}`)).status, 200);
        assert.equal((await search({ sort: ['-age'] }, `limit=3&after=${encodeURIComponent(next)}`)).status, 400);
        assert.equal((await search({}, `limit=3&after=${encodeURIComponent(next)}`)).status, 400);
        assert.equal((await search({ sort: ['age'] }, 'limit=3&after=not-a-cursor')).status, 400);
      });
    });

    describe('GET …/items', () => {
      it('lists full items with sort[]=-age, paginated', async () => {
        const pages = await walkForward((query) => h.get(`${PEOPLE}?sort[]=-age&limit=5${query ? `&${query}` : ''}`));
        assert.equal(pages.length, 3);
        const items = pages.flatMap((p) => p.data);
        assert.deepEqual(items.map((i: any) => i.values.age?.data ?? null), [60, 51, 45, 41, 37, 34, 28, 28, 23, 19, null, null]);
        assert.equal(new Set(items.map((i: any) => i.id)).size, ALL.length);
        const alice = items.find((i: any) => i.id === idOf['Alice Smith']);
        assert.deepEqual(alice, (await h.get(`${PEOPLE}/${idOf['Alice Smith']}`)).body);
        assert.equal(alice.type, 'item');
      });

      it('lists in creation order without a sort', async () => {
        const res = await h.get(`${PEOPLE}?limit=100`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data.map(nameOf), ALL);
      });

      it('bug: include[] on the list was ignored — it limits the values to those fields (ids or refs), as search does with include', async () => {
        const ageId = (await h.get('/v0/collections/people/fields/age')).body.id;
        const res = await h.get(`${PEOPLE}?sort[]=-age&limit=3&include[]=name&include[]=${ageId}`);
        assert.equal(res.status, 200, res.text);
        for (const item of res.body.data) assert.deepEqual(Object.keys(item.values).sort(), ['age', 'name']);
        assert.deepEqual(res.body.data.map(nameOf), (await h.get(`${PEOPLE}?sort[]=-age&limit=3`)).body.data.map(nameOf));
        // Pages keep the selection.
        const next = await h.get(`${PEOPLE}?sort[]=-age&limit=3&include[]=name&after=${encodeURIComponent(res.body.meta.cursors.next)}`);
        assert.equal(next.status, 200, next.text);
        for (const item of next.body.data) assert.deepEqual(Object.keys(item.values), ['name']);
        const bad = await h.get(`${PEOPLE}?include[]=name&include[]=nope`);
        assert.equal(bad.status, 422, bad.text);
        assert.equal(bad.body.errors[0].source.parameter, 'include[]');
        assert.match(bad.body.errors[0].detail, /nope/);
      });

      it('refuses an unknown sort field and a cursor of another sort', async () => {
        const bad = await h.get(`${PEOPLE}?sort[]=nope`);
        assert.equal(bad.status, 422, bad.text);
        assert.equal(bad.body.errors[0].source.parameter, 'sort[]');
        const next = (await h.get(`${PEOPLE}?sort[]=-age&limit=2`)).body.meta.cursors.next;
        assert.equal((await h.get(`${PEOPLE}?sort[]=age&limit=2&after=${encodeURIComponent(next)}`)).status, 400);
      });

      it('refuses a cursor of another search filter, and a list cursor on a filtered search (was: 200, a page of the other list)', async () => {
        const smiths = { filter: { field: 'name', op: 'contains', value: 'smith' } };
        const first = await h.post(`${SEARCH}?limit=1`, smiths);
        const cursor = encodeURIComponent(first.body.meta.cursors.next);
        const second = await h.post(`${SEARCH}?limit=1&after=${cursor}`, smiths);
        assert.equal(second.status, 200, second.text);
        // The same filter spelt with the field's id pages on.
        const byId = await h.post(`${SEARCH}?limit=1&after=${cursor}`, { filter: { ...smiths.filter, field: (await h.get('/v0/collections/people')).body.fields.find((f: any) => f.ref === 'name').id } });
        assert.deepEqual(byId.body.data, second.body.data);
        for (const other of [{ filter: { field: 'name', op: 'contains', value: 'o' } }, {}]) {
          const res = await h.post(`${SEARCH}?limit=1&after=${cursor}`, other);
          assert.equal(res.status, 400, res.text);
          assert.equal(res.body.errors[0].source.parameter, 'after');
        }
        const listCursor = encodeURIComponent((await h.get(`${PEOPLE}?limit=1`)).body.meta.cursors.next);
        assert.equal((await h.post(`${SEARCH}?limit=1&after=${listCursor}`, smiths)).status, 400);
        assert.equal((await h.post(`${SEARCH}?limit=1&after=${listCursor}`, {})).status, 200, 'an unfiltered search is the list');
      });
    });
  });
}

for (const engine of ENGINES) {
  describe(`contains on identifiers and on wildcard characters (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
      await makeField(h, 'people', { name: 'Code', ref: 'code', type: 'field/identifier' });
      for (const [name, code] of [['first', 'AbC-123'], ['second', 'xyz-abc'], ['third', 'a%b_c\\d']]) {
        await makeItem(h, 'people', { name: text(name!), code: val('identifier', code!) });
      }
    });
    after(() => h.close());

    const matching = async (filter: unknown): Promise<string[]> => {
      const res = await h.post(`${SEARCH}?limit=100`, { filter });
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((r: any) => nameOf(r.data)).sort();
    };

    it('compares identifiers verbatim on both engines (was: SQLite ignored ASCII case in contains)', async () => {
      assert.deepEqual(await matching({ op: 'contains', field: 'code', value: 'bC-1' }), ['first']);
      assert.deepEqual(await matching({ op: 'contains', field: 'code', value: 'abc' }), ['second']);
      assert.deepEqual(await matching({ op: 'not_contains', field: 'code', value: 'ABC' }), ['first', 'second', 'third']);
    });

    it('takes %, _ and \\ as the characters they are', async () => {
      assert.deepEqual(await matching({ op: 'contains', field: 'code', value: '%b_' }), ['third']);
      assert.deepEqual(await matching({ op: 'contains', field: 'code', value: 'c\\d' }), ['third']);
      assert.deepEqual(await matching({ op: 'contains', field: 'code', value: '_' }), ['third']);
      assert.deepEqual(await matching({ op: 'contains', field: 'name', value: '%' }), []);
    });
  });
}
