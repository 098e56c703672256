// Unsubscribes (reference §5.11) and agent settings (§5.19) through HTTP: addresses validated and
// normalised, 200 on add (also when already listed), paginated list, delete by URL-encoded address, 404 when
// unknown; the agent settings singleton, its five writable properties and null clearing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertBareNotFound, ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { assertInvalid, walkForward } from '../helpers/items.ts';

for (const engine of ENGINES) {
  describe(`unsubscribes (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('adds an address lower-cased (200), and adding it again answers the same entry', async () => {
      const added = await h.post('/v0/unsubscribes', { email: 'Jane.Doe+news@Example.COM' });
      assert.equal(added.status, 200, added.text);
      assert.deepEqual(Object.keys(added.body).sort(), ['created_at', 'email', 'type']);
      assert.equal(added.body.type, 'unsubscribe');
      assert.equal(added.body.email, 'jane.doe+news@example.com');
      const again = await h.post('/v0/unsubscribes', { email: 'JANE.DOE+NEWS@example.com' });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, added.body);
    });

    it('refuses what is not an address: 422 at /email', async () => {
      // Regression: the detail showed an item value ({"type": "value/email", …}), a shape this body does not take.
      assert.equal(assertInvalid(await h.post('/v0/unsubscribes', { email: 'nobody' }), '/email'), 'email must be an email address such as "jane@example.com", got "nobody"');
      assert.equal(assertInvalid(await h.post('/v0/unsubscribes', { email: '' }), '/email'), 'email must be an email address such as "jane@example.com", got ""');
      assertInvalid(await h.post('/v0/unsubscribes', {}), '/email');
      assert.equal(errorOf(await h.post('/v0/unsubscribes', { email: 42 })).source?.pointer, '/email');
    });

    it('lists in the order added, with cursors, and keeps organizations apart', async () => {
      const other = await createHarness(engine);
      try {
        const emails = Array.from({ length: 5 }, (_, i) => `list${i}@example.com`);
        for (const email of emails) assert.equal((await other.post('/v0/unsubscribes', { email })).status, 200);
        const pages = await walkForward((q) => other.get(`/v0/unsubscribes?limit=2&${q}`));
        assert.deepEqual(pages.flatMap((p) => p.data.map((u: any) => u.email)), emails);
        assert.equal(pages.length, 3);
        assert.deepEqual((await h.get('/v0/unsubscribes?limit=100')).body.data.filter((u: any) => u.email.startsWith('list')), []);
      } finally {
        await other.close();
      }
    });

    it('deletes by URL-encoded address (204), whatever its case; 404 when it is not listed', async () => {
      await h.post('/v0/unsubscribes', { email: 'remove.me@example.com' });
      const { key } = await h.newOrg();
      assertBareNotFound(await h.delete(`/v0/unsubscribes/${encodeURIComponent('remove.me@example.com')}`, { key }));
      const res = await h.delete(`/v0/unsubscribes/${encodeURIComponent('Remove.Me@example.com')}`);
      assert.equal(res.status, 204, res.text);
      assert.equal(res.text, '');
      assertBareNotFound(await h.delete(`/v0/unsubscribes/${encodeURIComponent('remove.me@example.com')}`));
      assertBareNotFound(await h.delete('/v0/unsubscribes/not-an-address'));
    });
  });

  describe(`agent settings (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('reads the singleton (no id, unset properties absent), patches any subset, null clears', async () => {
      const first = await h.get('/v0/agent_settings');
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(Object.keys(first.body).sort(), ['created_at', 'type', 'updated_at']);
      assert.equal(first.body.type, 'agent_settings');
      const all = {
        deal_summary_prompt: 'Summarise the deal',
        meeting_prebrief_prompt: 'Brief me',
        meeting_summary_prompt: 'Summarise the meeting',
        meeting_web_search: true,
        organization_info: 'We make widgets',
      };
      const patched = await h.patch('/v0/agent_settings', all);
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual({ ...patched.body, created_at: undefined, updated_at: undefined }, { type: 'agent_settings', ...all, created_at: undefined, updated_at: undefined });
      assert.equal(patched.body.created_at, first.body.created_at);
      const partly = await h.patch('/v0/agent_settings', { meeting_web_search: false, organization_info: null });
      assert.equal(partly.body.meeting_web_search, false);
      assert.equal(partly.body.organization_info, undefined);
      assert.equal(partly.body.deal_summary_prompt, 'Summarise the deal');
      assert.deepEqual((await h.get('/v0/agent_settings')).body, partly.body);
      const { key } = await h.newOrg();
      assert.equal((await h.get('/v0/agent_settings', { key })).body.deal_summary_prompt, undefined, 'per organization');
    });

    it('refuses wrong types and over-long text with pointers, ignores unknown properties; read-only keys cannot patch', async () => {
      assert.equal(errorOf(await h.patch('/v0/agent_settings', { meeting_web_search: 'yes' })).source?.pointer, '/meeting_web_search');
      const ignored = await h.patch('/v0/agent_settings', { deal_summary_model: 'x' });
      assert.equal(ignored.status, 200, 'properties of older API generations are ignored');
      assert.equal(ignored.body.deal_summary_model, undefined);
      assertInvalid(await h.patch('/v0/agent_settings', { organization_info: 'x'.repeat(20_001) }), '/organization_info');
      const res = await h.patch('/v0/agent_settings', { organization_info: 'x' }, { key: await h.readOnlyKey() });
      assert.equal(res.status, 403);
    });
  });
}
