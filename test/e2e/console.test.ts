// The operator console and the docs page in a real browser: Debian's Chromium driven by playwright-core
// (never a downloaded browser). Signs in with an API key, browses to an item, runs a filter search, adds a
// note, sees a webhook delivery and re-sends it, and tries an operation from /docs against the running server.
// Screenshots go to test-artifacts/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { createHarness, type Harness } from '../helpers/harness.ts';
import { text } from '../helpers/items.ts';
import { makeEndpoint, startReceiver } from '../helpers/webhooks.ts';
import { CONSOLE_DIST } from '../../src/http/routes/console.ts';
import { deliverDue } from '../../src/domain/webhook-delivery.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { httpWebhookSender } from '../../src/webhook-sender.ts';
import { PUBLIC_ONLY } from '../../src/domain/webhook-urls.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts');
// CI installs Chromium (.ci/run) and sets this, so there a missing browser fails instead of skipping.
const required = process.env.TYCHO_REQUIRE_BROWSER === '1';
const skip = !existsSync(CHROMIUM) && !required ? `${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)` : false;

describe('Operator console and docs page in Chromium', { skip }, () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  let base: string;
  let ada: string;

  before(async () => {
    // npm install builds the console; a checkout that skipped it builds it here.
    if (!existsSync(join(CONSOLE_DIST, 'index.html'))) await build({ configFile: join(import.meta.dirname, '../../console/vite.config.ts') });
    h = await createHarness('sqlite');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
    for (const name of ['Grace Hopper', 'Alan Turing', 'Ada Lovelace']) {
      const res = await h.post('/v0/collections/people/items', { values: { name: { type: 'value/text/single_line', data: name } } });
      assert.equal(res.status, 201);
      if (name === 'Ada Lovelace') ada = res.body.id;
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await h?.close();
  });

  it('refuses a wrong key with the API\'s answer, then signs in with a good one', async () => {
    await page.goto(`${base}/console`);
    await page.fill('input[name=key]', 'tycho_wrong_key_0123456789abcdef');
    await page.click('button[type=submit]');
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /Unauthorized/);
    await page.fill('input[name=key]', h.key);
    await page.click('button[type=submit]');
    await page.getByRole('link', { name: 'People' }).waitFor();
    // Optional sections show when their API answers for this key; sandboxes need an admin key, this one is not.
    // They show together, once every probe has answered, which may be after the collections.
    await page.getByRole('link', { name: 'Request journal' }).waitFor();
    assert.deepEqual(await page.locator('header nav a').allInnerTexts(), ['Collections', 'Notes', 'Files', 'Activity', 'Webhooks', 'Request journal']);
  });

  it('browses from the collections to an item and adds a note to it through the API', async () => {
    await page.getByRole('link', { name: 'People' }).click();
    await page.getByRole('link', { name: ada }).click();
    await page.locator('.value', { hasText: 'Ada Lovelace' }).waitFor();
    await page.fill('textarea[name=note]', 'Met at the console test');
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.getByRole('status').filter({ hasText: 'Note added.' }).waitFor();
    const notes = await h.get('/v0/notes');
    assert.deepEqual(notes.body.data.map((n: any) => [n.body.markdown, n.associations[0].id]), [['Met at the console test', ada]]);
    await page.getByRole('link', { name: 'Notes' }).click();
    await page.locator('.note-body', { hasText: 'Met at the console test' }).waitFor();
  });

  it('searches a collection with the filter language', async () => {
    await page.goto(`${base}/console/#/collections/people`);
    await page.locator('td', { hasText: 'Alan Turing' }).waitFor();
    await page.fill('textarea[name=filter]', '{"field": "name", "op": "contains", "value": "hop"}');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('td', { hasText: 'Alan Turing' }).waitFor({ state: 'detached' });
    // The old rows leave as the search starts; the answer's rows come a moment later.
    await page.locator('.items td', { hasText: 'Grace Hopper' }).waitFor();
    assert.deepEqual(await page.locator('.items tbody tr td:nth-child(2)').allInnerTexts(), ['Grace Hopper']);
    await page.screenshot({ path: join(ARTIFACTS, 'console-search.png'), fullPage: true });
    await page.fill('textarea[name=filter]', '{"field": "nope", "op": "eq", "value": 1}');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /nope/, 'the API\'s validation message is shown');
  });

  it("shows an endpoint's delivery attempts and re-sends an event through the API", async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await makeEndpoint(h, receiver, ['activity/item_created']);
      assert.equal((await h.post('/v0/collections/people/items', { values: { name: text('Katherine Johnson') } })).status, 201);
      // The harness runs no worker: each round of deliveries is driven here, the first one refused.
      const deliver = () => deliverDue(h.store, httpWebhookSender(PUBLIC_ONLY), { clock: systemClock });
      receiver.answer = 500;
      assert.equal((await deliver()).failed, 1);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.locator('tr', { hasText: receiver.url }).getByRole('button', { name: 'Open' }).click();
      const attempts = page.locator('.sub tbody tr');
      await attempts.first().waitFor();
      // Event, status code, error and response excerpt (time and latency vary).
      const cells = async (row: number) => (await attempts.nth(row).locator('td').allInnerTexts()).filter((_, i) => [1, 2, 4, 5].includes(i));
      assert.deepEqual(await cells(0), ['activity/item_created', '500', 'the receiver answered 500', 'not now']);

      receiver.answer = 200;
      await attempts.first().getByRole('button', { name: 'Re-send' }).click();
      await page.getByRole('status').filter({ hasText: /Re-sent msg_\w+: queued/ }).waitFor();
      assert.equal((await deliver()).succeeded, 1);
      // The console follows the list until the new attempt heads it.
      await attempts.nth(1).waitFor();
      assert.deepEqual(await cells(0), ['activity/item_created', '200', '', 'ok']);
      assert.match(await attempts.first().locator('td').nth(3).innerText(), /^\d+ ms$/);
      assert.equal(await attempts.nth(1).locator('td').nth(2).innerText(), '500');
      assert.deepEqual(receiver.received.map((r) => r.id), [receiver.received[0]!.id, receiver.received[0]!.id], 'the same event twice');
      const listed = await h.get(`/v0/tycho/webhook_endpoints/${endpoint.id}/attempts`);
      assert.deepEqual(listed.body.data.map((a: any) => a.status_code), [200, 500]);
      await page.screenshot({ path: join(ARTIFACTS, 'console-webhooks.png'), fullPage: true });
    } finally {
      await receiver.close();
    }
  });

  it('serves the docs page with its assets only, and "Try it out" calls the running server', async () => {
    const elsewhere: string[] = [];
    const docs = await browser.newPage();
    docs.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    await docs.goto(`${base}/docs`);
    const probe = docs.locator('#operations-Health-livenessProbe');
    await probe.locator('.opblock-summary').click();
    await probe.getByRole('button', { name: 'Execute' }).click();
    await probe.locator('.live-responses-table .response-col_status', { hasText: '200' }).waitFor();
    assert.ok((await docs.locator('.opblock').count()) > 50, 'every operation is listed');
    await docs.screenshot({ path: join(ARTIFACTS, 'docs.png') });
    assert.deepEqual(elsewhere, [], 'nothing is fetched from another origin');
    await docs.close();
  });
});
