// Item endpoints through HTTP (reference §5.3, §6.5, appendix A.5): create, retrieve, update with the strategy
// headers, delete, read-only keys, two-way relation sync, the item_created activity, and upsert's outcomes
// including the concurrent race.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { assertInvalid, email, makeField, makeItem, text, val } from '../helpers/items.ts';
import type { Store } from '../../src/domain/ports/store.ts';

const PEOPLE = '/v0/collections/people/items';
const ORGS = '/v0/collections/organizations/items';

/** A clock that moves one second forward on every reading, so every write has a later timestamp. */
function tickingClock(start = Date.parse('2025-02-17T16:00:00.000Z')) {
  let now = start;
  return () => new Date((now += 1000));
}

const rel = (id: string) => val('relation', { type: 'item', id });
const ids = (values: any[] | undefined) => (values ?? []).map((v) => v.data.id).sort();

for (const engine of ENGINES) {
  describe(`items CRUD (${engine})`, () => {
    let h: Harness;
    let peopleId: string;
    before(async () => {
      h = await createHarness(engine, { clock: tickingClock() });
      peopleId = (await h.get('/v0/collections/people')).body.id;
    });
    after(() => h.close());

    it('creates (201) and retrieves (200) an item', async () => {
      const res = await h.post(PEOPLE, { values: { name: text('Ada Lovelace'), email: [email('ada@example.com')] } });
      assert.equal(res.status, 201);
      assert.equal(res.body.type, 'item');
      assert.deepEqual(res.body.collection, { id: peopleId, type: 'collection', ref: 'people' });
      const got = await h.get(`${PEOPLE}/${res.body.id}`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, res.body);
      // Addressable by collection id as well as ref.
      assert.deepEqual((await h.get(`/v0/collections/${peopleId}/items/${res.body.id}`)).body, res.body);
    });

    it('answers 404 without detail for an unknown item id', async () => {
      const res = await h.get(`${PEOPLE}/1ChFEsgexNKTAqYqRGhYeA`);
      assert.equal(res.status, 404);
      assert.equal(errorOf(res).detail, undefined);
    });

    it('answers 404 for an item retrieved through another collection\'s path', async () => {
      const person = await makeItem(h, 'people', { name: text('Wrong Path') });
      const res = await h.get(`${ORGS}/${person.id}`);
      assert.equal(res.status, 404);
      assert.equal(errorOf(res).detail, undefined);
      assert.equal((await h.patch(`${ORGS}/${person.id}`, { values: { name: text('x') } })).status, 404);
      assert.equal((await h.delete(`${ORGS}/${person.id}`)).status, 404);
      assert.equal((await h.get(`${PEOPLE}/${person.id}`)).status, 200);
    });

    it('answers 404 to a PATCH of an unknown item even when its values would be refused', async () => {
      const person = await makeItem(h, 'people', { name: text('Elsewhere') });
      for (const path of [`${PEOPLE}/1ChFEsgexNKTAqYqRGhYeA`, `${ORGS}/${person.id}`]) {
        assert.equal((await h.patch(path, { values: { no_such_field: text('x') } })).status, 404, path);
        assert.equal((await h.patch(path, { values: { name: { type: 'value/number', data: 5 } } })).status, 404, path);
      }
      assert.equal((await h.patch(`${PEOPLE}/${person.id}`, { values: { no_such_field: text('x') } })).status, 422);
    });

    it('answers 404 to another organization\'s key', async () => {
      const person = await makeItem(h, 'people', { name: text('Private') });
      const other = await h.newOrg();
      assert.equal((await h.get(`${PEOPLE}/${person.id}`, { key: other.key })).status, 404);
      assert.equal((await h.patch(`${PEOPLE}/${person.id}`, { values: { name: text('Stolen') } }, { key: other.key })).status, 404);
      assert.equal((await h.delete(`${PEOPLE}/${person.id}`, { key: other.key })).status, 404);
      assert.deepEqual((await h.get(`${PEOPLE}/${person.id}`)).body.values.name, text('Private'));
    });

    it('PATCH touches only the listed refs and bumps updated_at', async () => {
      const created = await makeItem(h, 'people', {
        name: text('Grace Hopper'),
        job_title: text('Rear Admiral'),
        email: [email('grace@example.com')],
      });
      const res = await h.patch(`${PEOPLE}/${created.id}`, { values: { job_title: text('Computer Scientist') } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.values.job_title, text('Computer Scientist'));
      assert.deepEqual(res.body.values.name, text('Grace Hopper'));
      assert.deepEqual(res.body.values.email, [email('grace@example.com')]);
      assert.equal(res.body.values.created_at.data, created.values.created_at.data);
      assert.ok(res.body.values.updated_at.data > created.values.updated_at.data, 'updated_at moves forward');
      assert.deepEqual((await h.get(`${PEOPLE}/${created.id}`)).body, res.body);
    });

    it('PATCH with an invalid value → 422 at the field (reference A.5), naming the value; nothing changes', async () => {
      const created = await makeItem(h, 'people', { name: text('Unchanged'), job_title: text('Tester') });
      const detail = assertInvalid(
        await h.patch(`${PEOPLE}/${created.id}`, { values: { job_title: text('Changed'), phone: [val('telephone_number', '020 7123 4567')] } }),
        '/values/phone',
      );
      assert.match(detail, /^phone /);
      const second = assertInvalid(
        await h.patch(`${PEOPLE}/${created.id}`, { values: { phone: [val('telephone_number', '+442071234567'), val('telephone_number', '020 7123 4567')] } }),
        '/values/phone',
      );
      assert.match(second, /^phone\[1\] /);
      assert.deepEqual((await h.get(`${PEOPLE}/${created.id}`)).body, created);
    });

    it('a field made required after items exist: those items stay updatable until the request writes that field', async () => {
      const custom = (await h.post('/v0/collections', { name: 'Later Required' })).body;
      const old = (await h.post(`/v0/collections/${custom.id}/items`, { values: { name: text('Before') } })).body;
      const made = await h.post(`/v0/collections/${custom.id}/fields`, { type: 'field/boolean', name: 'Checked', required: true });
      assert.equal(made.status, 201, made.text);
      const patched = await h.patch(`/v0/collections/${custom.id}/items/${old.id}`, { values: { name: text('After') } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.body.values.name, text('After'));
      const upserted = await h.post(`/v0/collections/${custom.id}/items/upsert`, { identifiers: { name: text('After') }, values: { name: text('Again') } });
      assert.equal(upserted.status, 200, upserted.text);
      // Clearing it, or creating without it, is still refused.
      assertInvalid(await h.patch(`/v0/collections/${custom.id}/items/${old.id}`, { values: { checked: null } }), '/values/checked');
      assertInvalid(await h.post(`/v0/collections/${custom.id}/items`, { values: { name: text('New') } }), '/values/checked');
    });

    describe('update strategies', () => {
      const patch = (id: string, values: Record<string, unknown>, headers: Record<string, string> = {}) =>
        h.patch(`${PEOPLE}/${id}`, { values }, { headers });

      it('update-one-strategy: preserve keeps an existing value and fills an empty one', async () => {
        const set = await makeItem(h, 'people', { name: text('One Set'), job_title: text('Engineer') });
        const kept = await patch(set.id, { job_title: text('Manager') }, { 'update-one-strategy': 'preserve' });
        assert.equal(kept.status, 200, kept.text);
        assert.deepEqual(kept.body.values.job_title, text('Engineer'));
        const empty = await makeItem(h, 'people', { name: text('One Empty') });
        const filled = await patch(empty.id, { job_title: text('Manager') }, { 'update-one-strategy': 'preserve' });
        assert.deepEqual(filled.body.values.job_title, text('Manager'));
      });

      it('update-one-strategy: replace (the default) overwrites', async () => {
        const set = await makeItem(h, 'people', { name: text('One Replace'), job_title: text('Engineer') });
        assert.deepEqual((await patch(set.id, { job_title: text('Manager') })).body.values.job_title, text('Manager'));
        assert.deepEqual(
          (await patch(set.id, { job_title: text('Director') }, { 'update-one-strategy': 'replace' })).body.values.job_title,
          text('Director'),
        );
      });

      it('update-many-strategy: preserve keeps a non-empty array and fills an empty one', async () => {
        const set = await makeItem(h, 'people', { name: text('Many Set'), email: [email('a@example.com')] });
        const kept = await patch(set.id, { email: [email('b@example.com')] }, { 'update-many-strategy': 'preserve' });
        assert.equal(kept.status, 200, kept.text);
        assert.deepEqual(kept.body.values.email, [email('a@example.com')]);
        const empty = await makeItem(h, 'people', { name: text('Many Empty') });
        const filled = await patch(empty.id, { email: [email('b@example.com')] }, { 'update-many-strategy': 'preserve' });
        assert.deepEqual(filled.body.values.email, [email('b@example.com')]);
      });

      it('update-many-strategy: merge appends new values and drops duplicates', async () => {
        const set = await makeItem(h, 'people', { name: text('Many Merge'), email: [email('a@example.com'), email('b@example.com')] });
        const merged = await patch(
          set.id,
          { email: [email('b@example.com'), email('c@example.com'), email('c@example.com')] },
          { 'update-many-strategy': 'merge' },
        );
        assert.equal(merged.status, 200, merged.text);
        assert.deepEqual(merged.body.values.email, [email('a@example.com'), email('b@example.com'), email('c@example.com')]);
      });

      it('update-many-strategy: replace (the default) overwrites the whole array', async () => {
        const set = await makeItem(h, 'people', { name: text('Many Replace'), email: [email('a@example.com'), email('b@example.com')] });
        const replaced = await patch(set.id, { email: [email('c@example.com')] }, { 'update-many-strategy': 'replace' });
        assert.deepEqual(replaced.body.values.email, [email('c@example.com')]);
        assert.deepEqual((await patch(set.id, { email: [email('d@example.com')] })).body.values.email, [email('d@example.com')]);
      });

      it(
      'update-many-strategy: merge keeps distinct values that share their first 512 characters',
      async () => {
        const custom = (await h.post('/v0/collections', { name: 'Long Links' })).body;
        await makeField(h, custom.id, { name: 'links', type: 'field/uri/url', cardinality: 'many' });
        const long = `https://example.com/?q=${'x'.repeat(600)}`;
        const created = await makeItem(h, custom.id, { links: [val('uri/url', `${long}A`)] });
        const merged = await h.patch(
          `/v0/collections/${custom.id}/items/${created.id}`,
          { values: { links: [val('uri/url', `${long}B`)] } },
          { headers: { 'update-many-strategy': 'merge' } },
        );
        assert.deepEqual(merged.body.values.links, [val('uri/url', `${long}A`), val('uri/url', `${long}B`)]);
      },
    );

    it('the one strategy leaves many fields alone and vice versa', async () => {
        const set = await makeItem(h, 'people', { name: text('Mixed'), job_title: text('Engineer'), email: [email('a@example.com')] });
        const res = await patch(
          set.id,
          { job_title: text('Manager'), email: [email('b@example.com')] },
          { 'update-one-strategy': 'preserve', 'update-many-strategy': 'merge' },
        );
        assert.deepEqual(res.body.values.job_title, text('Engineer'));
        assert.deepEqual(res.body.values.email, [email('a@example.com'), email('b@example.com')]);
      });

      it('an invalid strategy header value → 400', async () => {
        const set = await makeItem(h, 'people', { name: text('Bad Header'), job_title: text('Engineer') });
        assert.equal((await patch(set.id, { job_title: text('x') }, { 'update-one-strategy': 'merge' })).status, 400);
        assert.equal((await patch(set.id, { job_title: text('x') }, { 'update-many-strategy': 'append' })).status, 400);
        const upsert = await h.post(`${PEOPLE}/upsert`, { identifiers: { email: email('hdr@example.com') }, values: {} }, { headers: { 'update-one-strategy': 'keep' } });
        assert.equal(upsert.status, 400);
        assert.deepEqual((await h.get(`${PEOPLE}/${set.id}`)).body.values.job_title, text('Engineer'));
      });
    });

    it('DELETE → 204 with an empty body; the item is gone', async () => {
      const created = await makeItem(h, 'people', { name: text('Doomed') });
      const res = await h.delete(`${PEOPLE}/${created.id}`);
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.equal((await h.get(`${PEOPLE}/${created.id}`)).status, 404);
      assert.equal((await h.delete(`${PEOPLE}/${created.id}`)).status, 404);
    });

    it('a read-only key may read and search but not create, update or delete', async () => {
      const readOnly = await h.readOnlyKey();
      const created = await makeItem(h, 'people', { name: text('Read Only') });
      const post = await h.post(PEOPLE, { values: { name: text('Nope') } }, { key: readOnly });
      assert.equal(post.status, 403);
      assert.equal(errorOf(post).title, 'Forbidden');
      assert.equal((await h.patch(`${PEOPLE}/${created.id}`, { values: { name: text('Nope') } }, { key: readOnly })).status, 403);
      assert.equal((await h.delete(`${PEOPLE}/${created.id}`, { key: readOnly })).status, 403);
      assert.equal((await h.post(`${PEOPLE}/upsert`, { identifiers: { email: email('ro@example.com') } }, { key: readOnly })).status, 403);
      assert.equal((await h.get(`${PEOPLE}/${created.id}`, { key: readOnly })).status, 200);
      const search = await h.post(`${PEOPLE}/search`, { filter: { op: 'eq', field: 'name', value: 'Read Only' } }, { key: readOnly });
      assert.equal(search.status, 200, search.text);
      assert.deepEqual(search.body.data.map((r: any) => r.data.id), [created.id]);
      assert.deepEqual((await h.get(`${PEOPLE}/${created.id}`)).body.values.name, text('Read Only'));
    });

    it('records an activity/item_created for every create', async () => {
      const created = await makeItem(h, 'people', { name: text('Logged') });
      const activities = await h.store.activities.listByEntity(h.orgId, 'item', created.id);
      assert.equal(activities.length, 1);
      const [activity] = activities;
      assert.equal(activity!.type, 'activity/item_created');
      assert.equal(activity!.occurredAt, created.values.created_at.data);
      const byRelation = Object.fromEntries(activity!.constituents.map((c) => [c.relation, c.entity]));
      // A write through an API key has no actor: the key is no documented entity type.
      assert.deepEqual(Object.keys(byRelation).sort(), ['object', 'target']);
      assert.deepEqual(byRelation.object, { id: created.id, type: 'item', collection: { id: peopleId, type: 'collection', ref: 'people' } });
      assert.deepEqual(byRelation.target, { id: peopleId, type: 'collection', ref: 'people' });
      // Updates record no further item_created.
      await h.patch(`${PEOPLE}/${created.id}`, { values: { name: text('Logged again') } });
      assert.equal((await h.store.activities.listByEntity(h.orgId, 'item', created.id)).filter((a) => a.type === 'activity/item_created').length, 1);
    });
  });

  describe(`two-way relations (${engine})`, () => {
    let h: Harness;
    let peopleId: string;
    let orgsId: string;
    const orgPeople = async (orgId: string) => (await h.get(`${ORGS}/${orgId}`)).body.values.people;
    const personOrg = async (personId: string) => (await h.get(`${PEOPLE}/${personId}`)).body.values.organization;

    before(async () => {
      h = await createHarness(engine, { clock: tickingClock() });
      peopleId = (await h.get('/v0/collections/people')).body.id;
      orgsId = (await h.get('/v0/collections/organizations')).body.id;
      const field = await makeField(h, 'people', {
        type: 'field/relation',
        name: 'Organization',
        relation_type: 'two_way',
        reverse_field_name: 'People',
        allowed_collections: [{ type: 'collection', ref: 'organizations' }],
      });
      assert.equal(field.ref, 'organization');
      assert.equal(field.reverse_fields[0].ref, 'people');
    });
    after(() => h.close());

    it('setting, changing and clearing a person\'s organization keeps the organizations\' people in sync', async () => {
      const acme = await makeItem(h, 'organizations', { name: text('Acme') });
      const globex = await makeItem(h, 'organizations', { name: text('Globex') });
      const person = await makeItem(h, 'people', { name: text('Wile E.'), organization: rel(acme.id) });
      assert.deepEqual(person.values.organization, val('relation', { id: acme.id, type: 'item', collection: { id: orgsId, type: 'collection', ref: 'organizations' } }));
      assert.deepEqual(await orgPeople(acme.id), [val('relation', { id: person.id, type: 'item', collection: { id: peopleId, type: 'collection', ref: 'people' } })]);

      const moved = await h.patch(`${PEOPLE}/${person.id}`, { values: { organization: rel(globex.id) } });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(await orgPeople(acme.id), undefined);
      assert.deepEqual(ids(await orgPeople(globex.id)), [person.id]);
      // The mirrored values are searchable on the other side.
      const onGlobex = await h.post(`${ORGS}/search`, { filter: { op: 'eq', field: 'people', value: person.id } });
      assert.deepEqual(onGlobex.body.data.map((r: any) => r.data.id), [globex.id]);

      await h.patch(`${PEOPLE}/${person.id}`, { values: { organization: null } });
      assert.equal(await orgPeople(globex.id), undefined);
      assert.equal(await personOrg(person.id), undefined);
    });

    it('several people of one organization all appear on it', async () => {
      const initech = await makeItem(h, 'organizations', { name: text('Initech') });
      const a = await makeItem(h, 'people', { name: text('Peter'), organization: rel(initech.id) });
      const b = await makeItem(h, 'people', { name: text('Milton'), organization: rel(initech.id) });
      assert.deepEqual(ids(await orgPeople(initech.id)), [a.id, b.id].sort());
    });

    it('setting from the inverse side updates the person, moving it from its previous organization', async () => {
      const umbrella = await makeItem(h, 'organizations', { name: text('Umbrella') });
      const tyrell = await makeItem(h, 'organizations', { name: text('Tyrell') });
      const person = await makeItem(h, 'people', { name: text('Rachael'), organization: rel(tyrell.id) });
      const res = await h.patch(`${ORGS}/${umbrella.id}`, { values: { people: [rel(person.id)] } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(ids(res.body.values.people), [person.id]);
      assert.equal((await personOrg(person.id)).data.id, umbrella.id);
      assert.equal(await orgPeople(tyrell.id), undefined);
      // Clearing from the inverse side clears the person.
      await h.patch(`${ORGS}/${umbrella.id}`, { values: { people: null } });
      assert.equal(await personOrg(person.id), undefined);
    });

    it('deleting the organization removes the relation value from its people', async () => {
      const doomed = await makeItem(h, 'organizations', { name: text('Aperture') });
      const person = await makeItem(h, 'people', { name: text('Chell'), organization: rel(doomed.id), job_title: text('Subject') });
      assert.equal((await h.delete(`${ORGS}/${doomed.id}`)).status, 204);
      const got = await h.get(`${PEOPLE}/${person.id}`);
      assert.equal(got.body.values.organization, undefined);
      assert.deepEqual(got.body.values.job_title, text('Subject'));
      const search = await h.post(`${PEOPLE}/search`, { filter: { op: 'eq', field: 'organization', value: doomed.id } });
      assert.deepEqual(search.body.data, []);
    });

    it('deleting a person removes it from its organization\'s people', async () => {
      const org = await makeItem(h, 'organizations', { name: text('Cyberdyne') });
      const stays = await makeItem(h, 'people', { name: text('Miles'), organization: rel(org.id) });
      const goes = await makeItem(h, 'people', { name: text('T-800'), organization: rel(org.id) });
      assert.equal((await h.delete(`${PEOPLE}/${goes.id}`)).status, 204);
      assert.deepEqual(ids(await orgPeople(org.id)), [stays.id]);
    });

    it('a relation of an item to itself is mirrored on the item, from either side (was: one side only)', async () => {
      const coll = await h.post('/v0/collections', { name: 'Teams' });
      assert.equal(coll.status, 201, coll.text);
      const parent = await makeField(h, coll.body.ref, {
        type: 'field/relation', name: 'Parent', cardinality: 'one', relation_type: 'two_way', reverse_field_name: 'Children',
        allowed_collections: [{ type: 'collection', ref: coll.body.ref }],
      });
      const children = parent.reverse_fields[0].ref as string;
      const url = `/v0/collections/${coll.body.ref}/items`;
      const team = await makeItem(h, coll.body.ref, { name: text('Root') });
      const other = await makeItem(h, coll.body.ref, { name: text('Other') });
      const selfRef = rel(team.id);

      const own = await h.patch(`${url}/${team.id}`, { values: { [parent.ref]: selfRef } });
      assert.equal(own.status, 200, own.text);
      assert.deepEqual(ids(own.body.values[children]), [team.id], 'the answer carries both sides');
      assert.deepEqual(ids((await h.get(`${url}/${team.id}`)).body.values[children]), [team.id]);
      const found = await h.post(`${url}/search`, { filter: { op: 'eq', field: children, value: team.id } });
      assert.deepEqual(found.body.data.map((r: any) => r.data.id), [team.id]);

      // Cleared from the other side: both go.
      const cleared = await h.patch(`${url}/${team.id}`, { values: { [children]: null } });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.values[parent.ref], undefined);
      assert.equal((await h.post(`${url}/search`, { filter: { op: 'eq', field: parent.ref, value: team.id } })).body.data.length, 0);

      // Set from the many side, where the one side pointed elsewhere: moved, and the other item lets go.
      assert.equal((await h.patch(`${url}/${team.id}`, { values: { [parent.ref]: rel(other.id) } })).status, 200);
      assert.deepEqual(ids((await h.get(`${url}/${other.id}`)).body.values[children]), [team.id]);
      const moved = await h.patch(`${url}/${team.id}`, { values: { [children]: [selfRef] } });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.values[parent.ref].data.id, team.id);
      assert.equal((await h.get(`${url}/${other.id}`)).body.values[children], undefined);
    });
  });

  describe(`upsert (${engine})`, () => {
    let h: Harness;
    const UPSERT = `${PEOPLE}/upsert`;
    const byEmail = async (address: string) =>
      (await h.post(`${PEOPLE}/search`, { filter: { op: 'eq', field: 'email', value: address } })).body.data.map((r: any) => r.data);

    before(async () => {
      h = await createHarness(engine, { clock: tickingClock() });
    });
    after(() => h.close());

    it('creates (201) when nothing matches, writing the identifier value even when values omit it', async () => {
      const res = await h.post(UPSERT, {
        identifiers: { email: [email('ada@example.com')] },
        values: { name: text('Ada Lovelace'), linked_in: val('uri/social_linked_in', { url: 'https://www.linkedin.com/in/ada-lovelace' }) },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.type, 'item');
      assert.equal(res.body.collection.ref, 'people');
      assert.deepEqual(res.body.values.email, [email('ada@example.com')]);
      assert.deepEqual(res.body.values.linked_in.data, { url: 'https://www.linkedin.com/in/ada-lovelace', username: 'in/ada-lovelace' });
      assert.deepEqual((await h.get(`${PEOPLE}/${res.body.id}`)).body, res.body);
      const activities = await h.store.activities.listByEntity(h.orgId, 'item', res.body.id);
      assert.deepEqual(activities.map((a) => a.type), ['activity/item_created']);
    });

    it('updates (200) the single match, honouring the strategy headers', async () => {
      const existing = await makeItem(h, 'people', { name: text('Bob'), job_title: text('Engineer'), email: [email('bob@example.com')] });
      const preserved = await h.post(
        UPSERT,
        { identifiers: { email: [email('bob@example.com')] }, values: { job_title: text('CEO'), email: [email('robert@example.com')] } },
        { headers: { 'update-one-strategy': 'preserve', 'update-many-strategy': 'merge' } },
      );
      assert.equal(preserved.status, 200, preserved.text);
      assert.equal(preserved.body.id, existing.id);
      assert.deepEqual(preserved.body.values.job_title, text('Engineer'));
      assert.deepEqual(preserved.body.values.email, [email('bob@example.com'), email('robert@example.com')]);
      assert.deepEqual(preserved.body.values.name, text('Bob'));

      const replaced = await h.post(UPSERT, { identifiers: { email: email('robert@example.com') }, values: { job_title: text('CTO'), email: [email('rob@example.com')] } });
      assert.equal(replaced.status, 200, replaced.text);
      assert.equal(replaced.body.id, existing.id);
      assert.deepEqual(replaced.body.values.job_title, text('CTO'));
      assert.deepEqual(replaced.body.values.email, [email('rob@example.com')]);
      // No item was created along the way.
      assert.equal((await byEmail('bob@example.com')).length, 0);
      assert.equal((await byEmail('rob@example.com')).length, 1);
      assert.equal((await h.store.activities.listByEntity(h.orgId, 'item', existing.id)).length, 1);
    });

    it('identifiers given as several values match on any of them', async () => {
      const existing = await makeItem(h, 'people', { name: text('Carol'), email: [email('carol@example.com')] });
      const res = await h.post(UPSERT, {
        identifiers: { email: [email('nobody@example.com'), email('carol@example.com')] },
        values: { job_title: text('Analyst') },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, existing.id);
      assert.deepEqual(res.body.values.job_title, text('Analyst'));
    });

    it('several identifier values of a cardinality-one field are values to match: any of them finds the item', async () => {
      const existing = await makeItem(h, 'people', { name: text('Quinn Match') });
      const res = await h.post(UPSERT, { identifiers: { name: [text('Q. Match'), text('Quinn Match')] }, values: { job_title: text('Diver') } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, existing.id);
      assert.deepEqual(res.body.values.name, text('Quinn Match'));
      assert.deepEqual(res.body.values.job_title, text('Diver'));
      // Creating needs to know which one the new item holds: values says it, or the request is refused.
      const named = await h.post(UPSERT, { identifiers: { name: [text('R. New'), text('Rita New')] }, values: { name: text('Rita New') } });
      assert.equal(named.status, 201, named.text);
      assert.deepEqual(named.body.values.name, text('Rita New'));
      const detail = assertInvalid(await h.post(UPSERT, { identifiers: { name: [text('S. New'), text('Sam New')] }, values: {} }), '/identifiers/name');
      assert.match(detail, /holds one value.*values\.name/);
      assert.deepEqual((await h.post(`${PEOPLE}/search`, { filter: { op: 'starts_with', field: 'name', value: 'Sam New' } })).body.data, []);
    });

    it('values is required (an empty map is fine)', async () => {
      assertInvalid(await h.post(UPSERT, { identifiers: { email: email('values@example.com') } }), '/values');
      assert.deepEqual(await byEmail('values@example.com'), []);
      assert.equal((await h.post(UPSERT, { identifiers: { email: email('values@example.com') }, values: {} })).status, 201);
    });

    it('identifiers matching two items → 409 with x-should-retry: false, and nothing is written', async () => {
      const one = await makeItem(h, 'people', { name: text('Dup One'), email: [email('one@dup.example')], phone: [val('telephone_number', '+14155552671')] });
      const two = await makeItem(h, 'people', { name: text('Dup Two'), email: [email('two@dup.example')] });
      const res = await h.post(UPSERT, {
        identifiers: { email: [email('one@dup.example'), email('two@dup.example')] },
        values: { job_title: text('Should not be written') },
      });
      assert.equal(res.status, 409, res.text);
      assert.equal(errorOf(res).title, 'Conflict');
      assert.equal(res.headers['x-should-retry'], 'false');
      // Two identifier fields, each matching a different item.
      const across = await h.post(UPSERT, {
        identifiers: { email: email('two@dup.example'), phone: val('telephone_number', '+14155552671') },
        values: { job_title: text('Should not be written') },
      });
      assert.equal(across.status, 409, across.text);
      assert.equal(across.headers['x-should-retry'], 'false');
      assert.deepEqual((await h.get(`${PEOPLE}/${one.id}`)).body, one);
      assert.deepEqual((await h.get(`${PEOPLE}/${two.id}`)).body, two);
      const written = await h.post(`${PEOPLE}/search`, { filter: { op: 'exists', field: 'job_title' } });
      assert.ok(!written.body.data.some((r: any) => r.data.values.job_title?.data === 'Should not be written'));
    });

    it('two identifiers matching the same item are one match', async () => {
      const existing = await makeItem(h, 'people', { name: text('Dan'), email: [email('dan@example.com')], phone: [val('telephone_number', '+442071234567')] });
      const res = await h.post(UPSERT, {
        identifiers: { email: email('dan@example.com'), phone: val('telephone_number', '+442071234567') },
        values: { job_title: text('Pilot') },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, existing.id);
    });

    it('empty identifiers → 422', async () => {
      assertInvalid(await h.post(UPSERT, { identifiers: {}, values: { name: text('Nobody') } }), '/identifiers');
      assertInvalid(await h.post(UPSERT, { identifiers: { email: null }, values: { name: text('Nobody') } }), '/identifiers');
      assertInvalid(await h.post(UPSERT, { values: { name: text('Nobody') } }), '/identifiers');
      assert.deepEqual((await h.post(`${PEOPLE}/search`, { filter: { op: 'eq', field: 'name', value: 'Nobody' } })).body.data, []);
    });

    it('an invalid identifier or value → 422 pointing at it, nothing written', async () => {
      assertInvalid(await h.post(UPSERT, { identifiers: { email: email('not an email') }, values: {} }), '/identifiers/email');
      assertInvalid(await h.post(UPSERT, { identifiers: { nope: text('x') }, values: {} }), '/identifiers/nope');
      assertInvalid(
        await h.post(UPSERT, { identifiers: { email: email('eve@example.com') }, values: { phone: val('telephone_number', '020 7123 4567') } }),
        '/values/phone',
      );
      assert.deepEqual(await byEmail('eve@example.com'), []);
    });

    it('ignores a repeated collection_id in the body', async () => {
      const res = await h.post(UPSERT, { collection_id: 'people', identifiers: { email: email('frank@example.com') }, values: {} });
      assert.equal(res.status, 201, res.text);
    });

    it(
      'matches whole identifier values, not their first 512 characters',
      async () => {
        const custom = (await h.post('/v0/collections', { name: 'Long Keys' })).body;
        await makeField(h, custom.id, { name: 'code', type: 'field/text/single_line' });
        const prefix = 'k'.repeat(600);
        const first = await h.post(`/v0/collections/${custom.id}/items/upsert`, { identifiers: { code: text(`${prefix}-1`) }, values: {} });
        assert.equal(first.status, 201, first.text);
        const second = await h.post(`/v0/collections/${custom.id}/items/upsert`, { identifiers: { code: text(`${prefix}-2`) }, values: {} });
        assert.equal(second.status, 201, second.text);
        assert.notEqual(second.body.id, first.body.id);
        assert.deepEqual((await h.get(`/v0/collections/${custom.id}/items/${first.body.id}`)).body.values.code, text(`${prefix}-1`));
      },
    );

    it('ten concurrent upserts of the same new identifier create exactly one item', async () => {
      const address = 'race@example.com';
      // Widen the race window: every identifier lookup inside a transaction yields to the event loop before it
      // answers, so the ten requests interleave between lookup and insert unless the store isolates them.
      const original = h.store.transaction;
      const slowed = new WeakSet<object>();
      (h.store as any).transaction = (fn: (tx: Store) => Promise<unknown>, ...rest: [string?]) =>
        original.call(h.store, (tx: Store) => {
          if (!slowed.has(tx.items)) {
            slowed.add(tx.items);
            const lookup = tx.items.withKeys.bind(tx.items);
            (tx.items as any).withKeys = async (...args: Parameters<typeof lookup>) => {
              const found = await lookup(...args);
              await new Promise((resolve) => setImmediate(resolve));
              return found;
            };
          }
          return fn(tx);
        }, ...rest);
      let responses;
      try {
        responses = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            h.post(UPSERT, { identifiers: { email: [email(address)] }, values: { name: text(`Racer ${i}`) } }),
          ),
        );
      } finally {
        (h.store as any).transaction = original;
      }
      const statuses = responses.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 200, 201], responses.map((r) => r.text).join('\n'));
      const found = await byEmail(address);
      assert.equal(found.length, 1);
      assert.ok(responses.every((r) => r.body.id === found[0].id));
    });
  });
}
