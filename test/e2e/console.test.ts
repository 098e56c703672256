// The operator console and the docs page in a real browser: Debian's Chromium driven by playwright-core
// (never a downloaded browser). Signs in with an API key, browses to an item, runs a filter search, adds a
// note, and tries an operation from /docs against the running server. Screenshots go to test-artifacts/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { createHarness, type Harness } from '../helpers/harness.ts';
import { CONSOLE_DIST } from '../../src/http/routes/console.ts';

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
    assert.deepEqual(await page.locator('.items tbody tr td:nth-child(2)').allInnerTexts(), ['Grace Hopper']);
    await page.screenshot({ path: join(ARTIFACTS, 'console-search.png'), fullPage: true });
    await page.fill('textarea[name=filter]', '{"field": "nope", "op": "eq", "value": 1}');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /nope/, 'the API\'s validation message is shown');
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
