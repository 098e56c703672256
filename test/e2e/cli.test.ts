// The `tycho` command as an operator uses it: real processes, a real SQLite file, a real socket.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = 'bin/tycho.mjs';
const KEY_LINE = /^tycho_[1-9A-HJ-NP-Za-km-z]{44}$/;
const LISTENING = /^Tycho is listening on (http:\/\/[^\s]+)/m;
/** Only a guard against a hung child (generous: a loaded CI machine is slow to start one); no test asserts on time. */
const GUARD_MS = 120_000;

const children = new Set<ChildProcess>();

function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['PORT', 'HOST', 'DATABASE_URL', 'TYCHO_API_KEY', 'TYCHO_BODY_LIMIT', 'NODE_TEST_CONTEXT']) delete env[name];
  return { ...env, LOG_LEVEL: 'silent', ...extra };
}

function start(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: environment(env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a CLI command to completion. */
function run(args: string[], env: Record<string, string>): Promise<Result> {
  const child = start(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tycho ${args.join(' ')} did not finish; stdout: ${stdout} stderr: ${stderr}`));
    }, GUARD_MS);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
const lastLine = (text: string) => lines(text).at(-1) ?? '';

/** A running `tycho serve`. */
class Server {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(env: Record<string, string>) {
    this.child = start(['serve'], { PORT: '0', ...env });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Resolves with the first match of `pattern` in stdout; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.stdout);
        if (!match) return false;
        cleanup();
        resolve(match);
        return true;
      };
      const onExit = () => {
        if (check()) return;
        cleanup();
        reject(new Error(`tycho serve exited before printing ${pattern}; stdout: ${this.stdout} stderr: ${this.stderr}`));
      };
      const guard = setTimeout(() => {
        cleanup();
        reject(new Error(`tycho serve never printed ${pattern}; stdout: ${this.stdout} stderr: ${this.stderr}`));
      }, GUARD_MS);
      const cleanup = () => {
        clearTimeout(guard);
        this.child.stdout!.off('data', check);
        this.child.off('exit', onExit);
      };
      this.child.stdout!.on('data', check);
      this.child.once('exit', onExit);
      check();
    });
  }

  async url(): Promise<string> {
    return (await this.waitFor(LISTENING))[1]!;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM') {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

async function get(url: string, key?: string): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

describe('tycho command line (e2e)', { concurrency: true }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tycho-e2e-'));
  });
  after(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  describe('usage and configuration errors', { concurrency: true }, () => {
    const env = () => ({ DATABASE_URL: join(dir, 'usage.sqlite') });
    const wrong: [string, string[]][] = [
      ['an unknown keys command', ['keys', 'frobnicate']],
      ['an unknown option', ['keys', 'create', '--bogus']],
      ['keys revoke without a prefix', ['keys', 'revoke']],
      ['no command', []],
    ];
    for (const [label, args] of wrong) {
      it(`exits 2 with the usage on stderr for ${label}`, async () => {
        const result = await run(args, env());
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, /Usage: tycho/);
        assert.match(result.stderr, /keys create/);
        assert.equal(result.stdout, '');
      });
    }

    it('exits 1 naming PORT when PORT is not a number', async () => {
      const result = await run(['serve'], { ...env(), PORT: 'abc' });
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /\bPORT\b/);
      assert.doesNotMatch(result.stdout, LISTENING);
    });

    it('exits 1 naming DATABASE_URL when the PostgreSQL database cannot be opened', async () => {
      const result = await run(['keys', 'list'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /cannot open the database/);
      assert.match(result.stderr, /DATABASE_URL/);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    });
  });

  describe('key management', { concurrency: false }, () => {
    const env = () => ({ DATABASE_URL: join(dir, 'keys.sqlite') });
    let firstKey: string;
    let ciKey: string;
    let listing: string;

    it('keys create prints a key as the last line and exits 0', async () => {
      const result = await run(['keys', 'create'], env());
      assert.equal(result.code, 0, result.stderr);
      firstKey = lastLine(result.stdout);
      assert.match(firstKey, KEY_LINE);
    });

    it('keys create --org acme --read-only --name ci creates the organization acme', async () => {
      const result = await run(['keys', 'create', '--org', 'acme', '--read-only', '--name', 'ci'], env());
      assert.equal(result.code, 0, result.stderr);
      ciKey = lastLine(result.stdout);
      assert.match(ciKey, KEY_LINE);
      assert.notEqual(ciKey, firstKey);

      const [orgs, keys] = await Promise.all([run(['orgs', 'list'], env()), run(['keys', 'list'], env())]);
      assert.equal(orgs.code, 0, orgs.stderr);
      const names = lines(orgs.stdout).slice(1).map((l) => l.split(/\s{2,}/)[1]);
      assert.deepEqual(names.sort(), ['acme', 'default']);
      assert.equal(keys.code, 0, keys.stderr);
      listing = keys.stdout;
    });

    it('keys list shows the key prefix, its organization and read access', () => {
      const prefix = ciKey.slice(0, 14);
      const row = lines(listing).find((l) => l.startsWith(prefix));
      assert.ok(row, `no row for ${prefix} in:\n${listing}`);
      const cells = row.split(/\s{2,}/);
      assert.ok(cells.includes('read'), row);
      assert.ok(!cells.includes('read-write'), row);
      assert.ok(cells.includes('acme'), row);
      assert.ok(cells.includes('ci'), row);
      assert.ok(cells.includes('active'), row);
      const first = lines(listing).find((l) => l.startsWith(firstKey.slice(0, 14)));
      assert.ok(first, `no row for the first key in:\n${listing}`);
      assert.ok(first.split(/\s{2,}/).includes('read-write'), first);
      // The keys themselves are never shown again.
      assert.ok(!listing.includes(ciKey) && !listing.includes(firstKey));
    });

    it(
      'keys create on a new database leaves only the key it printed',
      () => {
        const defaultKeys = lines(listing)
          .slice(1)
          .filter((l) => l.split(/\s{2,}/).includes('default'));
        assert.deepEqual(defaultKeys.map((l) => l.slice(0, 14)), [firstKey.slice(0, 14)], listing);
      },
    );

    it('keys revoke PREFIX exits 0 and keys list shows the key revoked', async () => {
      const prefix = ciKey.slice(0, 14);
      const result = await run(['keys', 'revoke', prefix], env());
      assert.equal(result.code, 0, result.stderr);
      const list = await run(['keys', 'list'], env());
      assert.equal(list.code, 0, list.stderr);
      const row = lines(list.stdout).find((l) => l.startsWith(prefix));
      assert.ok(row);
      assert.match(row, /\brevoked\b/);
      assert.doesNotMatch(row, /\bactive\b/);
      const first = lines(list.stdout).find((l) => l.startsWith(firstKey.slice(0, 14)));
      assert.match(first ?? '', /\bactive\b/, 'other keys stay active');
    });
  });

  describe('server', { concurrency: false }, () => {
    const env = () => ({ DATABASE_URL: join(dir, 'server.sqlite') });
    let server: Server;
    let url: string;
    let firstKey: string;
    let createdId: string;

    it('serve on a new database prints where it listens, then a key', async () => {
      server = new Server(env());
      url = await server.url();
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const key = await server.waitFor(/^(tycho_\S+)$/m);
      firstKey = key[1]!;
      assert.match(firstKey, KEY_LINE);
      assert.ok(key.index > server.stdout.search(LISTENING), 'the key comes after the listening line');
    });

    it('the printed key works over the real socket; no key is 401', async () => {
      const ok = await get(`${url}/v0/collections`, firstKey);
      assert.equal(ok.status, 200);
      assert.deepEqual(
        ok.body.data.map((c: any) => c.ref),
        ['people', 'organizations', 'deals', 'tasks'],
      );
      assert.ok(ok.headers.get('x-request-id'));
      const denied = await get(`${url}/v0/collections`);
      assert.equal(denied.status, 401);
      assert.equal(denied.body.errors[0].title, 'Unauthorized');
      assert.equal((await get(`${url}/healthz`)).status, 200);
      assert.equal((await get(`${url}/readyz`)).status, 200);
    });

    it('a key created with the CLI while the server runs works at once, and stops working once revoked', async () => {
      const created = await run(['keys', 'create', '--name', 'while-serving'], env());
      assert.equal(created.code, 0, created.stderr);
      const key = lastLine(created.stdout);
      assert.match(key, KEY_LINE);

      assert.equal((await get(`${url}/v0/collections`, key)).status, 200);
      const write = await fetch(`${url}/v0/collections`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Made Over The Socket' }),
      });
      assert.equal(write.status, 201);
      createdId = ((await write.json()) as { id: string }).id;

      const revoked = await run(['keys', 'revoke', key.slice(0, 14)], env());
      assert.equal(revoked.code, 0, revoked.stderr);
      const after = await get(`${url}/v0/collections`, key);
      assert.equal(after.status, 401);
      // The first key is untouched.
      assert.equal((await get(`${url}/v0/collections`, firstKey)).status, 200);
    });

    it('SIGTERM stops the server with exit code 0', async () => {
      const { code, signal } = await server.stop('SIGTERM');
      assert.equal(signal, null);
      assert.equal(code, 0, server.stderr);
      await assert.rejects(fetch(`${url}/healthz`), 'nothing listens any more');
    });

    it('starting again on the same database prints no new key; data and keys persist; SIGINT exits 0', async () => {
      const again = new Server(env());
      const secondUrl = await again.url();
      const res = await get(`${secondUrl}/v0/collections/${createdId}`, firstKey);
      assert.equal(res.status, 200);
      assert.equal(res.body.name, 'Made Over The Socket');
      const { code } = await again.stop('SIGINT');
      assert.equal(code, 0, again.stderr);
      assert.equal(
        lines(again.stdout).filter((l) => /^tycho_/.test(l)).length,
        0,
        `a key was printed on restart:\n${again.stdout}`,
      );
      assert.doesNotMatch(again.stdout, /New database/);
    });

    it('TYCHO_API_KEY on serve makes that key work (and no other key is printed)', async () => {
      const fixed = 'e2e-fixed-key-0123456789';
      const withKey = new Server({ DATABASE_URL: join(dir, 'fixed-key.sqlite'), TYCHO_API_KEY: fixed });
      const fixedUrl = await withKey.url();
      assert.equal((await get(`${fixedUrl}/v0/collections`, fixed)).status, 200);
      assert.equal((await get(`${fixedUrl}/v0/collections`, `${fixed}x`)).status, 401);
      const { code } = await withKey.stop('SIGTERM');
      assert.equal(code, 0, withKey.stderr);
      assert.equal(lines(withKey.stdout).filter((l) => /^tycho_/.test(l)).length, 0, withKey.stdout);
    });
  });
});
