// Programs and program templates through HTTP (reference §5.10): the Tycho extension that creates and updates
// them, the hosted read API with `include[]`, Liquid checked when a template is saved, list orders.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertBareNotFound, ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { assertInvalid, walkForward } from '../helpers/items.ts';
import { makeProgram, makeTemplate } from '../helpers/programs.ts';

for (const engine of ENGINES) {
  describe(`programs and templates (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('creates a program with defaults (draft, api, no tracking) and reads it back in the reference shape', async () => {
      const res = await h.post('/v0/tycho/programs', {});
      assert.equal(res.status, 201, res.text);
      const p = res.body;
      assert.equal(p.type, 'program');
      assert.equal(p.status, 'draft');
      assert.equal(p.trigger, 'api');
      assert.equal(p.track_opens, false);
      assert.equal(p.track_clicks, false);
      assert.equal(p.display_name, undefined);
      assert.equal(p.activity_metrics, undefined);
      assert.equal(p.program_template, undefined);
      const got = await h.get(`/v0/programs/${p.id}`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, p);
    });

    it('updates status, trigger, tracking, display_name and scheduled_at; null clears', async () => {
      const p = await makeProgram(h, { display_name: 'Welcome' });
      const res = await h.patch(`/v0/tycho/programs/${p.id}`, { status: 'paused', trigger: 'broadcast', track_opens: true, track_clicks: true, scheduled_at: '2030-01-02T03:04:05Z' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'paused');
      assert.equal(res.body.trigger, 'broadcast');
      assert.equal(res.body.track_opens, true);
      assert.equal(res.body.scheduled_at, '2030-01-02T03:04:05.000Z');
      assert.equal(res.body.display_name, 'Welcome');
      const cleared = await h.patch(`/v0/tycho/programs/${p.id}`, { display_name: null, scheduled_at: null });
      assert.equal(cleared.body.display_name, undefined);
      assert.equal(cleared.body.scheduled_at, undefined);
    });

    it('concurrent PATCHes of a program, and of a template, each keep every change', async () => {
      for (let round = 0; round < 5; round++) {
        const p = await makeProgram(h, { status: 'draft', display_name: 'Before' });
        const path = `/v0/tycho/programs/${p.id}`;
        await Promise.all([h.patch(path, { display_name: 'After' }), h.patch(path, { status: 'published' }), h.patch(path, { track_opens: true })]);
        // Regression (PostgreSQL): each PATCH wrote back the whole row it had read, undoing the others.
        const program = (await h.get(`/v0/programs/${p.id}`)).body;
        assert.deepEqual([program.display_name, program.status, program.track_opens], ['After', 'published', true]);
        const t = await h.post('/v0/tycho/program_templates', { program_id: p.id, subject: 'S0', body: { markdown: 'B0' } });
        assert.equal(t.status, 201, t.text);
        await Promise.all([h.patch(`/v0/tycho/program_templates/${t.body.id}`, { subject: 'S1' }), h.patch(`/v0/tycho/program_templates/${t.body.id}`, { body: { markdown: 'B1' } })]);
        const template = (await h.get(`/v0/program_templates/${t.body.id}`)).body;
        assert.deepEqual([template.subject, template.body.markdown], ['S1', 'B1']);
      }
    });

    it('refuses bad program values with pointers', async () => {
      assert.equal(errorOf(await h.post('/v0/tycho/programs', { status: 'live' })).source?.pointer, '/status');
      assertInvalid(await h.post('/v0/tycho/programs', { scheduled_at: 'tomorrow' }), '/scheduled_at');
      assertBareNotFound(await h.patch('/v0/tycho/programs/nope', { status: 'draft' }));
    });

    it('creates a template (one per program), includes the program, and the program includes it', async () => {
      const p = await makeProgram(h);
      const t = await makeTemplate(h, p.id, 'Hi {{ person.name }}', '# Welcome\n{{ body }}');
      assert.equal(t.type, 'program_template');
      assert.equal(t.subject, 'Hi {{ person.name }}');
      assert.deepEqual(t.body, { markdown: '# Welcome\n{{ body }}' });
      assert.equal(t.program, undefined);
      const withProgram = await h.get(`/v0/program_templates/${t.id}?include[]=program`);
      assert.equal(withProgram.body.program.id, p.id);
      const program = await h.get(`/v0/programs/${p.id}?include[]=program_template&include[]=activity_metrics`);
      assert.equal(program.body.program_template.id, t.id);
      assert.deepEqual(program.body.activity_metrics, { sent: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, failed: 0, shielded: 0, unsubscribed: 0 });
      const again = await h.post('/v0/tycho/program_templates', { program_id: p.id, subject: 'x', body: { markdown: 'y' } });
      assert.equal(again.status, 409, again.text);
      assert.equal(errorOf(await h.get(`/v0/programs/${p.id}?include[]=bogus`)).source?.parameter, 'include[]');
    });

    it('refuses a template that does not parse: 422 at its pointer with the Liquid error', async () => {
      const p = await makeProgram(h);
      const subject = assertInvalid(await h.post('/v0/tycho/program_templates', { program_id: p.id, subject: 'Hi {{ name ', body: { markdown: 'ok' } }), '/subject');
      assert.match(subject, /not closed/);
      const body = assertInvalid(await h.post('/v0/tycho/program_templates', { program_id: p.id, subject: 'Hi', body: { markdown: '{{ x | no_such_filter }}' } }), '/body/markdown');
      assert.match(body, /undefined filter: no_such_filter/);
      assertInvalid(await h.post('/v0/tycho/program_templates', { program_id: 'missing', subject: 'Hi', body: { markdown: 'x' } }), '/program_id');
      const t = await makeTemplate(h, p.id);
      assertInvalid(await h.patch(`/v0/tycho/program_templates/${t.id}`, { body: { markdown: '{% if %}' } }), '/body/markdown');
      const changed = await h.patch(`/v0/tycho/program_templates/${t.id}`, { subject: 'New {{ x }}' });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.subject, 'New {{ x }}');
    });

    it('lists programs oldest first and templates newest first, with working cursors', async () => {
      const other = await createHarness(engine);
      try {
        const made: { program: string; template: string }[] = [];
        for (let i = 0; i < 5; i++) {
          const p = await makeProgram(other);
          made.push({ program: p.id, template: (await makeTemplate(other, p.id)).id });
        }
        const programs = (await walkForward((q) => other.get(`/v0/programs?limit=2&${q}`))).flatMap((p) => p.data.map((x: any) => x.id));
        assert.deepEqual(programs, made.map((m) => m.program));
        const templates = (await walkForward((q) => other.get(`/v0/program_templates?limit=2&include[]=program&${q}`))).flatMap((p) => p.data);
        assert.deepEqual(templates.map((t: any) => t.id), made.map((m) => m.template).reverse());
        assert.ok(templates.every((t: any, i: number) => t.program.id === [...made].reverse()[i]!.program));
      } finally {
        await other.close();
      }
    });

    it('keeps organizations apart', async () => {
      const p = await makeProgram(h);
      const t = await makeTemplate(h, p.id);
      const { key } = await h.newOrg();
      assertBareNotFound(await h.get(`/v0/programs/${p.id}`, { key }));
      assertBareNotFound(await h.get(`/v0/program_templates/${t.id}`, { key }));
      assertInvalid(await h.post('/v0/tycho/program_templates', { program_id: p.id, subject: 'x', body: { markdown: 'y' } }, { key }), '/program_id');
      assert.deepEqual((await h.get('/v0/programs', { key })).body.data, []);
    });
  });
}
