// The marketing commands as an operator runs them: `tycho programs create` and `tycho templates create`, then
// `tycho serve` with SMTP_URL sending an accepted program message to an SMTP server started in the test.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tycho } from '../helpers/tycho-cli.ts';
import { startServer } from '../helpers/tycho-server.ts';
import { bodyOf, header, startSmtp, type TestSmtp } from '../helpers/smtp.ts';

const KEY = 'tycho_marketing_cli_key_0123456789';

describe('marketing from the command line', () => {
  let dir: string;
  let env: Record<string, string>;
  let smtp: TestSmtp;
  let server: ChildProcess | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tycho-marketing-'));
    env = { DATABASE_URL: join(dir, 'tycho.sqlite'), TYCHO_API_KEY: KEY };
    smtp = await startSmtp();
  });
  after(async () => {
    if (server) await new Promise((resolve) => (server!.once('exit', resolve), server!.kill('SIGTERM')));
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a program and its template, refusing bad values with a message (an option value outside its choices is a usage error, exit 2)', async () => {
    const bad = await tycho(['programs', 'create', '--status', 'live'], env);
    assert.equal(bad.code, 2, 'was: 1, without the usage');
    assert.match(bad.stderr, /--status must be one of draft, published, paused, archived; got "live"/);
    assert.match(bad.stderr, /Usage: tycho programs create/);
    const trigger = await tycho(['programs', 'create', '--trigger', 'cron'], env);
    assert.equal(trigger.code, 2);
    assert.match(trigger.stderr, /--trigger must be one of api, broadcast; got "cron"/);
    const program = await tycho(['programs', 'create', '--name', 'Welcome', '--status', 'published'], env);
    assert.equal(program.code, 0, program.stderr);
    const programId = program.stdout.trim().split('\n').at(-1)!;
    const broken = await tycho(['templates', 'create', '--program', programId, '--subject', 'Hi {{ name', '--body', 'x'], env);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /subject is not a valid Liquid template/);
    const template = await tycho(['templates', 'create', '--program', programId, '--subject', 'Welcome, {{ name }}', '--body', 'Your code: {{ code }}'], env);
    assert.equal(template.code, 0, template.stderr);
    env.TEMPLATE = template.stdout.trim().split('\n').at(-1)!;
  });

  it('serve with SMTP_URL sends an accepted message over SMTP', async () => {
    const started = await startServer({ ...env, SMTP_URL: smtp.url, SMTP_FROM: 'Acme <hello@acme.test>' });
    server = started.child;
    const { url } = started;
    const arrived = smtp.next();
    const res = await fetch(`${url}/v0/program_messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ person: { email: 'grace@example.com' }, program_template_id: env.TEMPLATE, custom_variables: { name: 'Grace', code: 'G-1' } }),
    });
    assert.equal(res.status, 202, await res.text());
    const mail = await arrived;
    assert.deepEqual(mail.to, ['grace@example.com']);
    assert.equal(mail.from, 'hello@acme.test');
    assert.equal(header(mail.raw, 'Subject'), 'Welcome, Grace');
    assert.equal(bodyOf(mail.raw), 'Your code: G-1');
  });
});
