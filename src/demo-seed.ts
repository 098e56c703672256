// `tycho seed --demo`: fills an organization with realistic, internally consistent CRM data through the
// domain's own write functions (so values are checked, links made and activities recorded as through the
// API): companies with domains, people working there (emails at the company's domain, phones, job titles),
// deals in funnel stages with a company and a contact, tasks on deals, notes on people and deals, a tagset,
// and a shared inbox with sent conversations. The same --seed gives the same data.
import { Faker, en } from '@faker-js/faker';
import type { Principal } from './domain/api-keys.ts';
import { createItem } from './domain/item-writes.ts';
import { createField } from './domain/collection-fields.ts';
import { loadSchema } from './domain/collection-schema.ts';
import { createNote } from './domain/notes.ts';
import { createTagset } from './domain/tagsets.ts';
import { createInbox } from './domain/inboxes.ts';
import { createDraft, sendDraft } from './domain/inbox-messages.ts';
import type { Store } from './domain/ports/store.ts';

export interface DemoOptions {
  /** People to create; companies, deals, tasks, notes and conversations scale with it. */
  size: number;
  seed: number;
  /** Called after each record with the count so far and the total. */
  progress?: (done: number, total: number) => void;
}

export interface DemoSummary {
  companies: number;
  people: number;
  deals: number;
  tasks: number;
  notes: number;
  conversations: number;
}

const STAGES = [
  { name: 'Lead', step_type: 'active' },
  { name: 'Qualified', step_type: 'active' },
  { name: 'Proposal', step_type: 'active' },
  { name: 'Negotiation', step_type: 'active' },
  { name: 'Won', step_type: 'success' },
  { name: 'Lost', step_type: 'failure' },
] as const;

/** How many of each record a seed of `size` people makes. */
export function demoCounts(size: number): DemoSummary {
  return {
    companies: Math.max(1, Math.ceil(size / 5)),
    people: size,
    deals: Math.max(1, Math.ceil(size / 3)),
    tasks: Math.max(1, Math.ceil(size / 3)),
    notes: Math.max(1, Math.ceil(size / 2)),
    conversations: Math.max(1, Math.ceil(size / 10)),
  };
}

const text = (data: string) => ({ type: 'value/text/single_line', data });
const relation = (id: string) => ({ type: 'value/relation', data: { type: 'item', id } });

/** The demo's own fields, made once: running the seed again adds records, not fields. */
async function ensureFields(store: Store, orgId: string): Promise<void> {
  const wanted: [string, string, Record<string, unknown>][] = [
    ['people', 'company', { type: 'field/relation', name: 'Company', relation_type: 'one_way', allowed_collections: [{ type: 'collection', ref: 'organizations' }] }],
    ['deals', 'stage', { type: 'field/stage', name: 'Stage', stages: STAGES }],
    ['deals', 'company', { type: 'field/relation', name: 'Company', relation_type: 'one_way', allowed_collections: [{ type: 'collection', ref: 'organizations' }] }],
    ['deals', 'contact', { type: 'field/relation', name: 'Contact', relation_type: 'one_way', allowed_collections: [{ type: 'collection', ref: 'people' }] }],
    ['tasks', 'deal', { type: 'field/relation', name: 'Deal', relation_type: 'one_way', allowed_collections: [{ type: 'collection', ref: 'deals' }] }],
  ];
  for (const [collection, ref, input] of wanted) {
    const schema = await loadSchema(store, orgId, collection);
    if (!schema.byRef.has(ref)) await createField(store, orgId, collection, input as never);
  }
}

export async function seedDemo(store: Store, principal: Principal, options: DemoOptions): Promise<DemoSummary> {
  const faker = new Faker({ locale: [en] });
  faker.seed(options.seed);
  faker.setDefaultRefDate('2026-01-01T00:00:00.000Z');
  const counts = demoCounts(options.size);
  const total = Object.values(counts).reduce((a, b) => a + b, 0) + 2;
  let done = 0;
  const tick = () => options.progress?.(++done, total);
  const orgId = principal.orgId;

  await ensureFields(store, orgId);
  const steps = (await loadSchema(store, orgId, 'deals')).byRef.get('stage')!;
  const funnel = (await store.funnels.findMany(orgId, [steps.config.funnelId!]))[0]!;

  const companies: { id: string; name: string; domain: string }[] = [];
  for (let i = 0; i < counts.companies; i++) {
    const name = faker.company.name();
    const domain = `${faker.helpers.slugify(name).toLowerCase().replace(/[^a-z0-9-]/g, '').replace(/-+/g, '-').replace(/^-|-$/g, '')}.example.com`;
    const item = await createItem(store, principal, 'organizations', {
      values: { name: text(name), domain: { type: 'value/uri/domain', data: domain } },
    });
    companies.push({ id: item.item.id, name, domain });
    tick();
  }

  const people: { id: string; name: string; email: string; company: (typeof companies)[number] }[] = [];
  for (let i = 0; i < counts.people; i++) {
    const company = faker.helpers.arrayElement(companies);
    const first = faker.person.firstName();
    const last = faker.person.lastName();
    const email = `${faker.helpers.slugify(`${first}.${last}`).toLowerCase().replace(/[^a-z0-9.]/g, '')}.${i}@${company.domain}`;
    const item = await createItem(store, principal, 'people', {
      values: {
        name: text(`${first} ${last}`),
        email: { type: 'value/email', data: email },
        phone: { type: 'value/telephone_number', data: `+1212555${String(100 + (i % 100)).padStart(4, '0')}` },
        job_title: text(faker.person.jobTitle()),
        company: relation(company.id),
      },
    });
    people.push({ id: item.item.id, name: `${first} ${last}`, email, company });
    tick();
  }

  const deals: string[] = [];
  for (let i = 0; i < counts.deals; i++) {
    const contact = faker.helpers.arrayElement(people);
    const step = faker.helpers.weightedArrayElement(funnel.steps.map((s, n) => ({ value: s, weight: [30, 20, 15, 10, 15, 10][n] ?? 10 })));
    const item = await createItem(store, principal, 'deals', {
      values: {
        name: text(`${contact.company.name} — ${faker.commerce.productName()}`),
        amount: { type: 'value/number/monetary', data: { currency: 'USD', in_minor_units: faker.number.int({ min: 50, max: 5000 }) * 1000 } },
        close_date: { type: 'value/date', data: faker.date.soon({ days: 180 }).toISOString().slice(0, 10) },
        stage: { type: 'value/funnel_step', data: { type: 'funnel_step', id: step.id } },
        company: relation(contact.company.id),
        contact: relation(contact.id),
      },
    });
    deals.push(item.item.id);
    tick();
  }

  for (let i = 0; i < counts.tasks; i++) {
    await createItem(store, principal, 'tasks', {
      values: {
        name: text(faker.helpers.arrayElement(['Send proposal', 'Follow up', 'Schedule demo', 'Prepare contract', 'Call back', 'Review pricing'])),
        due_date: { type: 'value/date', data: faker.date.soon({ days: 30 }).toISOString().slice(0, 10) },
        completed: { type: 'value/boolean', data: faker.datatype.boolean({ probability: 0.3 }) },
        deal: relation(faker.helpers.arrayElement(deals)),
      },
    });
    tick();
  }

  for (let i = 0; i < counts.notes; i++) {
    const person = faker.helpers.arrayElement(people);
    await createNote(store, principal, {
      body: `## Call with ${person.name}\n\n${faker.lorem.paragraph()}`,
      associations: [{ type: 'item', id: person.id }, { type: 'item', id: faker.helpers.arrayElement(deals) }],
    });
    tick();
  }

  const inbox = await createInbox(store, orgId, { name: 'Sales', email: `sales-${options.seed}@demo.example.com` });
  tick();
  await createTagset(store, orgId, {
    name: 'Lead source',
    tags: ['Website', 'Referral', 'Conference', 'Outbound'].map((name) => ({ name })),
    associations: [{ type: 'calls' }, { type: 'meetings' }, { type: 'inbox', id: inbox.id }],
  });
  tick();
  for (let i = 0; i < counts.conversations; i++) {
    const person = faker.helpers.arrayElement(people);
    const subject = `${faker.helpers.arrayElement(['Quick question about', 'Following up on', 'Pricing for'])} ${faker.commerce.productName()}`;
    const first = await createDraft(store, principal, { inbox_id: inbox.id, subject, body: faker.lorem.paragraphs(2), to: [{ email: person.email, name: person.name }] });
    await sendDraft(store, principal, first.id);
    for (let reply = faker.number.int({ min: 0, max: 2 }); reply > 0; reply--) {
      const next = await createDraft(store, principal, { inbox_id: inbox.id, conversation_id: first.conversationId, body: faker.lorem.paragraph(), to: [{ email: person.email, name: person.name }] });
      await sendDraft(store, principal, next.id);
    }
    tick();
  }
  return counts;
}
