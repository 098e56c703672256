// POST /collections/{collection_id}/items/merge (reference §5.3): the source is deleted and the destination
// returned; values combine (destination wins, empty fields take the source's, many-fields merge without
// duplicates, unique values move), relations and links to the source move to the destination,
// activity/item_merged is recorded, and bad pointers are 422s. Notes, files and call participants follow.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createHarness, type Harness } from '../helpers/harness.ts';
import { assertInvalid, email, makeCollection, makeField, makeItem, text, val } from '../helpers/items.ts';
import { activitiesOf, activitiesOfType } from '../helpers/activities.ts';
import { postMultipart } from '../helpers/multipart.ts';

const PEOPLE = '/v0/collections/people/items';
const ORGS = '/v0/collections/organizations/items';
const rel = (id: string) => val('relation', { type: 'item', id });
const ptr = (id: string) => ({ type: 'item', id });
const relIds = (v: any) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x: any) => x.data.id).sort());

for (const engine of ENGINES) {
  describe(`items merge (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
      await makeField(h, 'people', {
        type: 'field/relation',
        name: 'Employer',
        relation_type: 'two_way',
        reverse_field_name: 'Staff',
        allowed_collections: [{ type: 'collection', ref: 'organizations' }],
      });
      await makeField(h, 'people', { type: 'field/text/single_line', name: 'Badge', unique: true });
      await makeField(h, 'people', { type: 'field/text/single_line', name: 'Title' });
    });
    after(() => h.close());

    it('deletes the source and returns the destination with the values combined', async () => {
      const source = await makeItem(h, 'people', {
        name: text('Ada (old)'),
        title: text('Countess'),
        badge: text('B-100'),
        email: [email('ada@old.example'), email('shared@example.com')],
      });
      const destination = await makeItem(h, 'people', { name: text('Ada Lovelace'), email: [email('SHARED@example.com'), email('ada@new.example')] });
      const res = await h.post(`${PEOPLE}/merge`, { source: ptr(source.id), destination: ptr(destination.id) });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, destination.id);
      assert.deepEqual(res.body.values.name, text('Ada Lovelace'));
      assert.deepEqual(res.body.values.title, text('Countess'));
      assert.deepEqual(res.body.values.badge, text('B-100'));
      assert.deepEqual(
        res.body.values.email.map((v: any) => v.data),
        ['SHARED@example.com', 'ada@new.example', 'ada@old.example'],
      );
      assert.equal((await h.get(`${PEOPLE}/${source.id}`)).status, 404);
      assert.deepEqual((await h.get(`${PEOPLE}/${destination.id}`)).body, res.body);
      // The moved unique value is the destination's now: searchable there, and still unique.
      const found = await h.post(`${PEOPLE}/search`, { filter: { op: 'eq', field: 'badge', value: 'B-100' } });
      assert.deepEqual(found.body.data.map((r: any) => r.data.id), [destination.id]);
      assertInvalid(await h.post(PEOPLE, { values: { badge: text('B-100') } }), '/values/badge');
    });

    it('moves relations pointing at the source (both sides of two-way relations) without duplicates', async () => {
      const oldOrg = await makeItem(h, 'organizations', { name: text('Acme Old') });
      const newOrg = await makeItem(h, 'organizations', { name: text('Acme') });
      const a = await makeItem(h, 'people', { name: text('A'), employer: rel(oldOrg.id) });
      const b = await makeItem(h, 'people', { name: text('B'), employer: rel(newOrg.id) });
      // A one-way many relation pointing at both: one pointer remains.
      const lists = await makeCollection(h, 'Merge Lists');
      await makeField(h, lists.id, { type: 'field/relation', name: 'Members', cardinality: 'many', relation_type: 'one_way', allowed_collections: [{ type: 'collection', ref: 'organizations' }] });
      const list = await makeItem(h, lists.id, { name: text('L'), members: [rel(oldOrg.id), rel(newOrg.id)] });

      const res = await h.post(`${ORGS}/merge`, { source: ptr(oldOrg.id), destination: ptr(newOrg.id) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(relIds(res.body.values.staff), [a.id, b.id].sort());
      assert.deepEqual(relIds((await h.get(`${PEOPLE}/${a.id}`)).body.values.employer), [newOrg.id]);
      assert.deepEqual(relIds((await h.get(`${PEOPLE}/${b.id}`)).body.values.employer), [newOrg.id]);
      assert.deepEqual(relIds((await h.get(`/v0/collections/${lists.id}/items/${list.id}`)).body.values.members), [newOrg.id]);
      // The index follows: a search for the destination finds A.
      const found = await h.post(`${PEOPLE}/search`, { filter: { op: 'eq', field: 'employer', value: newOrg.id } });
      assert.deepEqual(found.body.data.map((r: any) => r.data.id).sort(), [a.id, b.id].sort());
    });

    it('writes along two-way relations that meet (A → B with B → A, a merge with PATCHes of its items) never deadlock', async () => {
      const peers = await makeCollection(h, 'Peers');
      const two = (name: string, cardinality: string) =>
        makeField(h, peers.id, { type: 'field/relation', name, cardinality, relation_type: 'two_way', reverse_field_name: `${name} of`, allowed_collections: [{ type: 'collection', id: peers.id }] });
      await two('Peer', 'one');
      await two('Buddies', 'many');
      const items = `/v0/collections/${peers.id}/items`;
      const deadlocks = async () => Number(/^tycho_db_transaction_retries_total\{sqlstate="40P01"\} (\d+)/m.exec((await h.get('/metrics')).text)?.[1] ?? 0);
      const before = await deadlocks();
      for (let round = 0; round < 4; round++) {
        const [a, b] = [await makeItem(h, peers.id, { name: text(`A${round}`) }), await makeItem(h, peers.id, { name: text(`B${round}`) })];
        const mutual = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 ? h.patch(`${items}/${b.id}`, { values: { peer: rel(a.id) } }) : h.patch(`${items}/${a.id}`, { values: { peer: rel(b.id) } }))));
        for (const res of mutual) assert.equal(res.status, 200, res.text);

        const [x, y] = [await makeItem(h, peers.id, { name: text(`X${round}`) }), await makeItem(h, peers.id, { name: text(`Y${round}`) })];
        await makeItem(h, peers.id, { name: text(`Z${round}`), buddies: [rel(x.id), rel(y.id)] });
        const z = (await h.post(`${items}/search`, { filter: { op: 'eq', field: 'name', value: `Z${round}` } })).body.data[0].data;
        const raced = await Promise.all([
          h.post(`${items}/merge`, { source: ptr(x.id), destination: ptr(y.id) }),
          ...[0, 1, 2, 3].map((i) => h.patch(`${items}/${i % 2 ? y.id : x.id}`, { values: { buddies: [rel(z.id)] } }, { headers: { 'update-many-strategy': 'merge' } })),
        ]);
        // The PATCHes of the source either ran before the merge or find it gone.
        for (const res of raced) assert.ok([200, 404].includes(res.status), res.text);
      }
      // Regression (PostgreSQL): each pair of such writes could deadlock, held a connection each for the second
      // PostgreSQL takes to notice, and ended in a retry, or a 409 once retries ran out.
      assert.equal(await deadlocks(), before);
    });

    it('a one-valued two-way relation the destination keeps wins: the source\'s target drops the merged pair', async () => {
      const orgA = await makeItem(h, 'organizations', { name: text('Org A') });
      const orgB = await makeItem(h, 'organizations', { name: text('Org B') });
      const source = await makeItem(h, 'people', { name: text('Src'), employer: rel(orgA.id) });
      const destination = await makeItem(h, 'people', { name: text('Dst'), employer: rel(orgB.id) });
      const res = await h.post(`${PEOPLE}/merge`, { source: ptr(source.id), destination: ptr(destination.id) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(relIds(res.body.values.employer), [orgB.id]);
      assert.deepEqual(relIds((await h.get(`${ORGS}/${orgA.id}`)).body.values.staff), []);
      assert.deepEqual(relIds((await h.get(`${ORGS}/${orgB.id}`)).body.values.staff), [destination.id]);
    });

    it('an empty one-valued two-way relation takes the source\'s, and the target mirrors the destination', async () => {
      const orgA = await makeItem(h, 'organizations', { name: text('Org C') });
      const source = await makeItem(h, 'people', { name: text('Src2'), employer: rel(orgA.id) });
      const destination = await makeItem(h, 'people', { name: text('Dst2') });
      const res = await h.post(`${PEOPLE}/merge`, { source: ptr(source.id), destination: ptr(destination.id) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(relIds(res.body.values.employer), [orgA.id]);
      assert.deepEqual(relIds((await h.get(`${ORGS}/${orgA.id}`)).body.values.staff), [destination.id]);
    });

    it('moves notes linked to the source, and keeps the source\'s activities as history', async () => {
      const source = await makeItem(h, 'people', { name: text('Note Source') });
      const destination = await makeItem(h, 'people', { name: text('Note Destination') });
      const only = await h.post('/v0/notes', { body: { markdown: 'about the source' }, associations: [ptr(source.id)] });
      const both = await h.post('/v0/notes', { body: { markdown: 'about both' }, associations: [ptr(source.id), ptr(destination.id)] });
      assert.equal(only.status, 201, only.text);
      const file = await postMultipart(h, '/v0/files', [
        { name: 'file', filename: 'f.txt', content: 'f', contentType: 'text/plain' },
        { name: 'associations', value: JSON.stringify([ptr(source.id)]) },
      ]);
      assert.equal(file.status, 201, file.text);
      const res = await h.post(`${PEOPLE}/merge`, { source: ptr(source.id), destination: ptr(destination.id) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual((await h.get(`/v0/notes/${only.body.id}`)).body.associations.map((a: any) => a.id), [destination.id]);
      assert.deepEqual((await h.get(`/v0/notes/${both.body.id}`)).body.associations.map((a: any) => a.id), [destination.id]);
      assert.deepEqual((await h.get(`/v0/files/${file.body.id}`)).body.associations.map((a: any) => a.id), [destination.id]);

      const merged = (await activitiesOfType(h, 'activity/item_merged')).filter((a) => a.constituents.some((c: any) => c.entity.id === source.id));
      assert.equal(merged.length, 1);
      const roles = Object.fromEntries(merged[0].constituents.map((c: any) => [c.relation, c.entity.id]));
      assert.deepEqual(roles, { object: source.id, target: destination.id });
      assert.equal(merged[0].constituents[0].entity.collection.ref, 'people');
      assert.ok((await activitiesOf(h, 'item', source.id)).some((a) => a.type === 'activity/item_created'));
    });

    it('a call participant matched to the source is matched to the destination', async () => {
      const phone = '+15550007777';
      const source = await makeItem(h, 'people', { name: text('Caller Src'), phone: [val('telephone_number', phone)] });
      const destination = await makeItem(h, 'people', { name: text('Caller Dst') });
      const call = await h.post('/v0/calls', {
        direction: 'incoming',
        participants: [{ phone, role: 'caller' }],
        provider: 'openphone',
        provider_id: `merge-${source.id}`,
        provider_status: 'completed',
        start_at: '2025-02-17T15:01:00Z',
      });
      assert.equal(call.status, 201, call.text);
      assert.equal(call.body.participants[0].person.id, source.id);
      assert.equal((await h.post(`${PEOPLE}/merge`, { source: ptr(source.id), destination: ptr(destination.id) })).status, 200);
      const after = await h.get(`/v0/calls/${call.body.id}`);
      assert.equal(after.body.participants[0].person.id, destination.id);
    });

    it('refuses the same item twice and items of another collection (422 with pointers), unknown items (404)', async () => {
      const person = await makeItem(h, 'people', { name: text('Solo') });
      const org = await makeItem(h, 'organizations', { name: text('Elsewhere') });
      assertInvalid(await h.post(`${PEOPLE}/merge`, { source: ptr(person.id), destination: ptr(person.id) }), '/destination/id');
      for (const body of [{ source: ptr('1ChFEsgexNKTAqYqRGhYeA'), destination: ptr(person.id) }, { source: ptr(person.id), destination: ptr('nope') }]) {
        const unknown = await h.post(`${PEOPLE}/merge`, body);
        assert.equal(unknown.status, 404, unknown.text);
        assert.equal(unknown.body.errors[0].title, 'Not Found');
      }
      assertInvalid(await h.post(`${PEOPLE}/merge`, { source: ptr(person.id), destination: ptr(org.id) }), '/destination/id');
      assertInvalid(await h.post(`${PEOPLE}/merge`, { source: ptr(org.id), destination: ptr(person.id) }), '/source/id');
      assertInvalid(await h.post(`${PEOPLE}/merge`, { source: ptr(person.id) }), '/destination');
      assert.equal((await h.post('/v0/collections/nope/items/merge', { source: ptr(person.id), destination: ptr(org.id) })).status, 404);
      // Nothing changed.
      assert.equal((await h.get(`${PEOPLE}/${person.id}`)).status, 200);
      assert.equal((await h.get(`${ORGS}/${org.id}`)).status, 200);
    });

    it('racing merges of one pair in both directions: one wins, the other finds its source gone (404)', async () => {
      const a = await makeItem(h, 'people', { name: text('Race A'), email: [email('race-a@example.com')] });
      const b = await makeItem(h, 'people', { name: text('Race B'), email: [email('race-b@example.com')] });
      const [ab, ba] = await Promise.all([
        h.post(`${PEOPLE}/merge`, { source: ptr(a.id), destination: ptr(b.id) }),
        h.post(`${PEOPLE}/merge`, { source: ptr(b.id), destination: ptr(a.id) }),
      ]);
      assert.deepEqual([ab.status, ba.status].sort(), [200, 404], `${ab.text} ${ba.text}`);
      const survivor = ab.status === 200 ? ab.body : ba.body;
      assert.equal(survivor.values.email.length, 2);
      const left = await Promise.all([a.id, b.id].map(async (id) => (await h.get(`${PEOPLE}/${id}`)).status));
      assert.deepEqual(left.sort(), [200, 404]);
    });

    it('a read-only key cannot merge', async () => {
      const a = await makeItem(h, 'people', { name: text('RO a') });
      const b = await makeItem(h, 'people', { name: text('RO b') });
      const res = await h.post(`${PEOPLE}/merge`, { source: ptr(a.id), destination: ptr(b.id) }, { key: await h.readOnlyKey() });
      assert.equal(res.status, 403);
    });
  });
}
