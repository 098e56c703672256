// Program messages through HTTP (reference §5.10, §7.5): validation, the recipient matched or created in People,
// rendering with custom_variables and the person's values, real asynchronous sending over SMTP to a server
// started in the test (and to the local outbox without one), shielding of unsubscribed addresses, failures
// and retries, claims that never send a message twice, delivery events and the program's activity_metrics.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertBareNotFound, ENGINES, createHarness, errorOf, type Harness } from '../helpers/harness.ts';
import { assertInvalid, email, makeItem, text } from '../helpers/items.ts';
import { activitiesOf } from '../helpers/activities.ts';
import { makeProgram, makeTemplate } from '../helpers/programs.ts';
import { MAX_ATTEMPTS, sendDue } from '../../src/domain/program-messages.ts';
import { smtpMailer } from '../../src/mail.ts';
import { bodyOf, header, startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import type { Mailer } from '../../src/domain/ports/mailer.ts';
import type { Store } from '../../src/domain/ports/store.ts';

/** `store`, except that saving the outcome of message `id` fails, in and out of transactions. */
function failingToComplete(store: Store, id: string): Store {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'transaction') return (fn: (tx: Store) => Promise<unknown>, ...rest: unknown[]) => (target.transaction as Function)((tx: Store) => fn(failingToComplete(tx, id)), ...rest);
      if (key !== 'programMessages') return Reflect.get(target, key, receiver);
      const repo = target.programMessages;
      return new Proxy(repo, {
        get: (r, k) => (k === 'complete' ? (m: { id: string }, ...a: unknown[]) => (m.id === id ? Promise.reject(new Error('cannot save')) : (r.complete as Function)(m, ...a)) : Reflect.get(r, k)),
      });
    },
  });
}

/** A clock the test moves; sending happens at its time. */
function testClock(start = '2030-01-01T00:00:00.000Z') {
  let now = Date.parse(start);
  return { clock: () => new Date(now), at: () => new Date(now).toISOString(), advance: (ms: number) => (now += ms) };
}

for (const engine of ENGINES) {
  describe(`program messages (${engine})`, () => {
    let h: Harness;
    let smtp: TestSmtp;
    let mailer: Mailer;
    const time = testClock();
    let template: any;
    let program: any;

    before(async () => {
      h = await createHarness(engine, { clock: time.clock });
      smtp = await startSmtp();
      mailer = smtpMailer(smtp.url);
      program = await makeProgram(h, { display_name: 'Onboarding' });
      template = await makeTemplate(h, program.id, 'Hello {{ person.name }}', 'Hi {{ first_name }}, your code is {{ custom_variables.code }}. Job: {{ person.job_title }}');
    });
    after(async () => {
      mailer.close();
      await smtp.close();
      await h.close();
    });

    const send = (body: Record<string, unknown>, key?: string) => h.post('/v0/program_messages', body, key ? { key } : {});

    it('accepts a message (202, the reference shape) and sends it over SMTP with the rendered subject and body', async () => {
      const person = await makeItem(h, 'people', { name: text('Ada Lovelace'), email: email('ada@example.com'), job_title: text('Analyst') });
      const res = await send({ person: { email: 'Ada@EXAMPLE.com' }, program_template_id: template.id, custom_variables: { first_name: 'Ada', code: 'X1' } });
      assert.equal(res.status, 202, res.text);
      assert.equal(res.body.type, 'program_message');
      assert.equal(res.body.program_template.id, template.id);
      assert.equal(res.body.program_template.subject, template.subject);
      assert.equal(res.body.created_at, time.at());

      const queued = await h.get(`/v0/tycho/program_messages/${res.body.id}`);
      assert.equal(queued.body.status, 'queued');
      assert.equal(queued.body.recipient.id, person.id, 'matched to the existing person by email');
      const people = (await h.get('/v0/collections/people')).body;
      assert.deepEqual(queued.body.recipient.collection, { id: people.id, type: 'collection', ref: 'people' }, 'a full item pointer');
      assert.equal(smtp.received.length, 0, 'nothing is sent before the sender runs');

      const report = await sendDue(h.store, { now: time.at(), mailer, from: 'Acme <news@acme.test>' });
      assert.deepEqual(report, { sent: 1, failed: 0, shielded: 0, retried: 0 });
      assert.equal(smtp.received.length, 1);
      const [mail] = smtp.received;
      assert.deepEqual(mail!.to, ['Ada@example.com']);
      assert.equal(mail!.from, 'news@acme.test');
      assert.equal(header(mail!.raw, 'Subject'), 'Hello Ada Lovelace');
      assert.equal(bodyOf(mail!.raw), 'Hi Ada, your code is X1. Job: Analyst');

      const sent = await h.get(`/v0/tycho/program_messages/${res.body.id}`);
      assert.equal(sent.body.status, 'sent');
      assert.equal(sent.body.transport, 'smtp');
      assert.equal(sent.body.subject, 'Hello Ada Lovelace');
      const activities = await activitiesOf(h, 'program_message', res.body.id);
      assert.deepEqual(activities.map((a) => a.type), ['activity/program_message_sent']);
      const byRelation = activities[0].constituents.map((c: any) => `${c.relation}:${c.entity.type}`);
      assert.deepEqual(byRelation, ['object:program_template', 'object:program', 'object:program_message', 'target:item']);
      assert.equal(activities[0].constituents[3].entity.id, person.id);
      assert.equal(activities[0].constituents[3].entity.collection.ref, 'people');
      assert.equal((await sendDue(h.store, { now: time.at(), mailer })).sent, 0, 'a sent message is not sent again');
    });

    it('creates the recipient in People when no person has the address', async () => {
      const res = await send({ person: { email: 'new.person@example.com' }, program_template_id: template.id });
      assert.equal(res.status, 202, res.text);
      const delivery = (await h.get(`/v0/tycho/program_messages/${res.body.id}`)).body;
      const person = await h.get(`/v0/collections/people/items/${delivery.recipient.id}`);
      assert.equal(person.status, 200, person.text);
      assert.equal(person.body.values.email[0].data, 'new.person@example.com');
      const again = await send({ person: { email: 'new.person@example.com' }, program_template_id: template.id });
      assert.equal((await h.get(`/v0/tycho/program_messages/${again.body.id}`)).body.recipient.id, delivery.recipient.id, 'the same person next time');
      await sendDue(h.store, { now: time.at(), mailer });
    });

    it('refuses bad requests with pointers, and programs that are not published with trigger api', async () => {
      assertInvalid(await send({ program_template_id: template.id }), '/person');
      assertInvalid(await send({ person: {}, program_template_id: template.id }), '/person/email');
      // Regression: the detail showed an item value ({"type": "value/email", …}), a shape this body does not take.
      const detail = assertInvalid(await send({ person: { email: 'not an address' }, program_template_id: template.id }), '/person/email');
      assert.match(detail, /^person\.email must be an email address such as "jane@example\.com", got "not an address"$/);
      assert.doesNotMatch(assertInvalid(await send({ person: { email: ' ' }, program_template_id: template.id }), '/person/email'), /value\/email|clear/);
      assertInvalid(await send({ person: { email: 'a@example.com' } }), '/program_template_id');
      // An unknown template, or another organization's, is a 404 (the reference's status matrix).
      assertBareNotFound(await send({ person: { email: 'a@example.com' }, program_template_id: 'nope' }));
      for (const change of [{ status: 'draft' }, { status: 'paused' }, { status: 'published', trigger: 'broadcast' }]) {
        const p = await makeProgram(h, change);
        const t = await makeTemplate(h, p.id);
        const detail = assertInvalid(await send({ person: { email: 'a@example.com' }, program_template_id: t.id }), '/program_template_id');
        assert.match(detail, /published with trigger "api"/);
      }
      const { key } = await h.newOrg();
      assertBareNotFound(await send({ person: { email: 'a@example.com' }, program_template_id: template.id }, key));
    });

    it('shields an unsubscribed recipient with reason email_on_unsubscribe_list and sends nothing', async () => {
      assert.equal((await h.post('/v0/unsubscribes', { email: 'Gone@Example.com' })).status, 200);
      const res = await send({ person: { email: 'gone@example.com' }, program_template_id: template.id });
      assert.equal(res.status, 202, res.text);
      const before = smtp.received.length;
      assert.equal((await sendDue(h.store, { now: time.at(), mailer })).shielded, 1);
      assert.equal(smtp.received.length, before);
      const delivery = (await h.get(`/v0/tycho/program_messages/${res.body.id}`)).body;
      assert.equal(delivery.status, 'shielded');
      assert.equal(delivery.reason_code, 'email_on_unsubscribe_list');
      const [activity] = await activitiesOf(h, 'program_message', res.body.id);
      assert.equal(activity.type, 'activity/program_message_shielded');
      assert.equal(activity.constituents[0].relation, 'actor');
    });

    it('fails a message whose template cannot render (liquid_error), and retries a refused delivery before failing it', async () => {
      const p = await makeProgram(h);
      const broken = await makeTemplate(h, p.id, 'Hi', "{% include 'secrets' %}");
      const res = await send({ person: { email: 'x@example.com' }, program_template_id: broken.id });
      assert.equal((await sendDue(h.store, { now: time.at(), mailer })).failed, 1);
      const failed = (await h.get(`/v0/tycho/program_messages/${res.body.id}`)).body;
      assert.equal(failed.status, 'failed');
      assert.equal(failed.reason_code, 'liquid_error');
      assert.match(failed.error, /Failed to lookup "secrets"/);

      const refused = await send({ person: { email: 'someone@refused.test' }, program_template_id: template.id });
      for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
        assert.equal((await sendDue(h.store, { now: time.at(), mailer })).retried, 1, `attempt ${attempt} is retried`);
        assert.equal((await sendDue(h.store, { now: time.at(), mailer })).retried, 0, 'not again before its retry is due');
        time.advance(60_000 * 2 ** (attempt - 1));
      }
      assert.equal((await sendDue(h.store, { now: time.at(), mailer })).failed, 1);
      const delivery = (await h.get(`/v0/tycho/program_messages/${refused.body.id}`)).body;
      assert.equal(delivery.status, 'failed');
      assert.equal(delivery.attempts, MAX_ATTEMPTS);
      assert.match(delivery.error, /mailbox unavailable/);
      assert.deepEqual((await activitiesOf(h, 'program_message', refused.body.id)).map((a) => a.type), ['activity/program_message_failed']);
    });

    it('a template whose filters make U+0000 sends U+FFFD in its place; a message that cannot be saved holds up no other', async () => {
      const p = await makeProgram(h);
      const nul = await makeTemplate(h, p.id, 'A{{ "%00" | url_decode }}B', 'x{{ custom_variables.x | url_decode }}y');
      const res = await send({ person: { email: 'nul@example.com' }, program_template_id: nul.id, custom_variables: { x: '%00' } });
      // Regression (PostgreSQL): saving the rendered text failed, and the claimed batch was retried without end.
      assert.equal((await sendDue(h.store, { now: time.at(), mailer })).sent, 1);
      const sent = (await h.get(`/v0/tycho/program_messages/${res.body.id}`)).body;
      assert.deepEqual([sent.status, sent.subject, sent.body], ['sent', 'A\uFFFDB', 'x\uFFFDy']);

      // Any other failure to save one message: the rest of its batch is still sent, and the error is raised after.
      const poison = await send({ person: { email: 'poison@example.com' }, program_template_id: template.id });
      const fine = await send({ person: { email: 'fine@example.com' }, program_template_id: template.id });
      await assert.rejects(sendDue(failingToComplete(h.store, poison.body.id), { now: time.at(), mailer }), /cannot save/);
      assert.equal((await h.get(`/v0/tycho/program_messages/${fine.body.id}`)).body.status, 'sent');
      assert.equal((await h.get(`/v0/tycho/program_messages/${poison.body.id}`)).body.status, 'sending', 'claimed until its lease runs out');
      time.advance(300_000);
      assert.equal((await sendDue(h.store, { now: time.at(), mailer })).sent, 1);
    });

    it('sends each message once when senders run side by side, and takes over a message whose sender died', async () => {
      const before = smtp.received.length;
      const ids = [];
      for (let i = 0; i < 12; i++) ids.push((await send({ person: { email: `bulk${i}@example.com` }, program_template_id: template.id })).body.id);
      const reports = await Promise.all([sendDue(h.store, { now: time.at(), mailer }), sendDue(h.store, { now: time.at(), mailer }), sendDue(h.store, { now: time.at(), mailer })]);
      assert.equal(reports.reduce((n, r) => n + r.sent, 0), 12);
      assert.equal(smtp.received.length - before, 12);
      assert.deepEqual(new Set(smtp.received.slice(before).map((m) => m.to[0])).size, 12);

      // A claim whose sender never finishes: the message is due again once the lease has passed.
      const orphan = await send({ person: { email: 'orphan@example.com' }, program_template_id: template.id });
      assert.equal((await h.store.programMessages.claimDue({ others: time.at(), orgs: [] }, { others: new Date(Date.parse(time.at()) + 300_000).toISOString(), orgs: [] }, 10)).length, 1);
      assert.equal((await sendDue(h.store, { now: time.at(), mailer })).sent, 0);
      time.advance(300_000);
      assert.equal((await sendDue(h.store, { now: time.at(), mailer })).sent, 1);
      assert.equal((await h.get(`/v0/tycho/program_messages/${orphan.body.id}`)).body.status, 'sent');
    });

    it('records delivery events as activities, counts them once per message in activity_metrics, and unsubscribes', async () => {
      const p = await makeProgram(h);
      const t = await makeTemplate(h, p.id);
      const a = (await send({ person: { email: 'reader@example.com' }, program_template_id: t.id })).body.id;
      const b = (await send({ person: { email: 'leaver@example.com' }, program_template_id: t.id })).body.id;
      const pending = (await send({ person: { email: 'later@example.com' }, program_template_id: t.id })).body.id;
      await sendDue(h.store, { now: time.at(), mailer, limit: 2 });
      const event = (id: string, type: string) => h.post(`/v0/tycho/program_messages/${id}/events`, { type });
      for (const [id, type] of [[a, 'opened'], [a, 'opened'], [a, 'clicked'], [b, 'bounced'], [b, 'complained'], [b, 'unsubscribed']] as const) {
        const res = await event(id, type);
        assert.equal(res.status, 200, res.text);
      }
      assert.equal(errorOf(await event(pending, 'opened')).code, 'invalid_state');
      assert.equal(errorOf(await event(a, 'read')).source?.pointer, '/type');
      assertBareNotFound(await event('nope', 'opened'));

      const metrics = (await h.get(`/v0/programs/${p.id}?include[]=activity_metrics`)).body.activity_metrics;
      assert.deepEqual(metrics, { sent: 2, opened: 1, clicked: 1, bounced: 1, complained: 1, failed: 0, shielded: 0, unsubscribed: 1 });
      assert.deepEqual(
        (await activitiesOf(h, 'program_message', a)).map((x) => x.type).sort(),
        ['activity/program_message_clicked', 'activity/program_message_opened', 'activity/program_message_opened', 'activity/program_message_sent'],
      );
      const [unsubscribed] = (await activitiesOf(h, 'program_message', b)).filter((x) => x.type === 'activity/program_message_unsubscribed');
      assert.ok(unsubscribed.constituents.some((c: any) => c.relation === 'object' && c.entity.type === 'unsubscribe'));
      const list = (await h.get('/v0/unsubscribes?limit=100')).body.data.map((u: any) => u.email);
      assert.ok(list.includes('leaver@example.com'));
      await sendDue(h.store, { now: time.at(), mailer });
    });
  });

  describe(`program message events in webhook payloads (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    /** The payload the webhooks and the event feed carry for the message's event of this type. */
    async function payload(messageId: string, type: string): Promise<any> {
      const feed = (await h.get(`/v0/tycho/events?limit=100&event_type[eq]=activity/program_message_${type}`)).body.data;
      return feed.map((e: any) => e.payload).find((p: any) => p.program_message?.id === messageId);
    }

    it('carry the optional properties of §7.5 the message knows: recipient_emails, reason_code, email, bounced_recipient_emails', async () => {
      const p = await makeProgram(h);
      const t = await makeTemplate(h, p.id);
      const broken = await makeTemplate(h, (await makeProgram(h)).id, 'Hi', "{% include 'x' %}");
      await h.post('/v0/unsubscribes', { email: 'gone@example.com' });
      const sent = (await h.post('/v0/program_messages', { person: { email: 'Reader@Example.com' }, program_template_id: t.id })).body.id;
      const shielded = (await h.post('/v0/program_messages', { person: { email: 'gone@example.com' }, program_template_id: t.id })).body.id;
      const failed = (await h.post('/v0/program_messages', { person: { email: 'x@example.com' }, program_template_id: broken.id })).body.id;
      await sendDue(h.store, { now: new Date().toISOString() });
      for (const type of ['bounced', 'unsubscribed']) assert.equal((await h.post(`/v0/tycho/program_messages/${sent}/events`, { type })).status, 200);

      // Regression: only program_message and recipient were sent; the message's address and reason were lost.
      const sentPayload = await payload(sent, 'sent');
      assert.deepEqual(sentPayload.recipient_emails, ['Reader@example.com']);
      assert.equal(sentPayload.recipient.type, 'item');
      assert.equal((await payload(shielded, 'shielded')).reason_code, 'email_on_unsubscribe_list');
      assert.equal((await payload(failed, 'failed')).reason_code, 'liquid_error');
      assert.equal((await payload(sent, 'unsubscribed')).email, 'Reader@example.com');
      assert.deepEqual((await payload(sent, 'bounced')).bounced_recipient_emails, ['Reader@example.com']);
    });
  });

  describe(`program messages without SMTP: the local outbox (${engine})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness(engine);
    });
    after(() => h.close());

    it('delivers to the outbox, readable through GET /v0/tycho/outbox, per organization', async () => {
      const p = await makeProgram(h);
      const t = await makeTemplate(h, p.id, 'Welcome {{ name }}', 'Body for {{ person.email }}');
      const res = await h.post('/v0/program_messages', { person: { email: 'box@example.com' }, program_template_id: t.id, custom_variables: { name: 'Box' } });
      assert.equal(res.status, 202, res.text);
      assert.deepEqual((await h.get('/v0/tycho/outbox')).body.data, []);
      assert.equal((await sendDue(h.store, { now: new Date().toISOString() })).sent, 1);
      const outbox = await h.get('/v0/tycho/outbox');
      assert.equal(outbox.status, 200);
      assert.equal(outbox.body.data.length, 1);
      const [mail] = outbox.body.data;
      assert.equal(mail.program_message_id, res.body.id);
      assert.equal(mail.to, 'box@example.com');
      assert.equal(mail.subject, 'Welcome Box');
      assert.equal(mail.body, 'Body for box@example.com');
      assert.equal(mail.transport, 'outbox');
      assert.equal(mail.status, 'sent');
      const { key } = await h.newOrg();
      assert.deepEqual((await h.get('/v0/tycho/outbox', { key })).body.data, []);
      assertBareNotFound(await h.get(`/v0/tycho/program_messages/${res.body.id}`, { key }));
    });
  });
}
