// The `tycho` command as an operator uses it, on a real SQLite file and a real socket. Commands run through
// the same `main` bin/tycho.mjs calls, in this process (test/helpers/tycho-cli.ts); real processes where the
// process is the point: serve (its output, signals, exit codes), a command next to a running server, and
// bin/tycho.mjs's own exit code.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tycho } from '../helpers/tycho-cli.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/tycho.mjs');
const KEY_LINE = /^tycho_[1-9A-HJ-NP-Za-km-z]{44}$/;
const LISTENING = /^Tycho is listening on (http:\/\/[^\s]+)/m;
/** Only a guard against a hung child (generous: a loaded CI machine is slow to start one); no test asserts on time. */
const GUARD_MS = 120_000;

const children = new Set<ChildProcess>();

function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['PORT', 'HOST', 'DATABASE_URL', 'TYCHO_API_KEY', 'TYCHO_BODY_LIMIT', 'TYCHO_DATA_DIR', 'NODE_TEST_CONTEXT']) delete env[name];
  return { ...env, LOG_LEVEL: 'silent', ...extra };
}

function start(args: string[], env: Record<string, string>, cwd = ROOT): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: environment(env), stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Runs a CLI command to completion as its own process. */
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

  constructor(env: Record<string, string>, cwd?: string) {
    this.child = start(['serve'], { PORT: '0', ...env }, cwd);
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
    // The general usage for a wrong command; the command's own usage for a wrong use of a command.
    const wrong: [string, string[], RegExp][] = [
      ['an unknown keys command', ['keys', 'frobnicate'], /Usage: tycho <command>[^]*keys create/],
      ['a group without its action', ['keys'], /"keys" needs one of: tycho keys create, tycho keys list, tycho keys revoke[^]*Usage: tycho <command>/],
      ['an unknown option', ['keys', 'create', '--bogus'], /Usage: tycho keys create /],
      ['keys revoke without a prefix', ['keys', 'revoke'], /Usage: tycho keys revoke PREFIX/],
      ['--create-org without --org', ['keys', 'create', '--create-org'], /--create-org needs --org NAME[^]*Usage: tycho keys create /],
      ['no command', [], /Usage: tycho <command>[^]*keys create/],
    ];
    for (const [label, args, usage] of wrong) {
      it(`exits 2 with the usage on stderr for ${label}`, async () => {
        const result = await tycho(args, env());
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, usage);
        assert.equal(result.stdout, '');
      });
    }

    it('--version prints the version of package.json (was: an unknown command)', async () => {
      const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
      const result = await tycho(['--version'], env());
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), `tycho ${version}`);
    });

    it('--help lists every command with its options, and the environment', async () => {
      const result = await tycho(['--help'], env());
      assert.equal(result.code, 0, result.stderr);
      for (const command of ['serve', 'keys create [--org NAME [--create-org]] [--read-only | --admin] [--name LABEL]', 'keys list [--org NAME]', 'keys revoke PREFIX', 'orgs list', 'inboxes create --name NAME --email ADDRESS [--org NAME]']) {
        assert.ok(result.stdout.includes(`  ${command}`), `${command} missing from:\n${result.stdout}`);
      }
      assert.match(result.stdout, /Environment/);
      assert.match(result.stdout, /TYCHO_UPLOAD_LIMIT/);
    });

    // What each command's own usage must show: its arguments and options, and the variables it reads.
    const STORE_ENV = ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'TYCHO_API_KEY'];
    const commands: [string[], string[], string[]][] = [
      [['serve'], [], ['PORT', 'HOST', ...STORE_ENV, 'LOG_LEVEL', 'TYCHO_BODY_LIMIT', 'TYCHO_DATA_DIR', 'TYCHO_UPLOAD_LIMIT', 'RATE_LIMITS', 'REDIS_URL', 'JWT_SECRET', 'JWT_AUDIENCE']],
      [['keys', 'create'], ['--org NAME', '--create-org', '--read-only', '--admin', '--name LABEL'], STORE_ENV],
      [['keys', 'list'], ['--org NAME'], STORE_ENV],
      [['keys', 'revoke'], ['PREFIX'], STORE_ENV],
      [['orgs', 'list'], [], STORE_ENV],
      [['inboxes', 'create'], ['--name NAME', '--email ADDRESS', '--org NAME'], STORE_ENV],
    ];
    for (const [command, options, variables] of commands) {
      it(`tycho ${command.join(' ')} --help prints its options and environment and exits 0 (was: the general usage or an error)`, async () => {
        for (const help of [[...command, '--help'], [...command, '-h'], ['help', ...command]]) {
          const result = await tycho(help, env());
          assert.equal(result.code, 0, `${help.join(' ')}: ${result.stderr}`);
          assert.ok(result.stdout.startsWith(`Usage: tycho ${command.join(' ')}`), result.stdout);
          for (const option of [...options, '-h, --help']) assert.ok(result.stdout.includes(`  ${option}`), `${option} missing from:\n${result.stdout}`);
          const environment = result.stdout.slice(result.stdout.indexOf('Environment'));
          for (const variable of variables) assert.match(environment, new RegExp(`\\b${variable}\\b`), `${variable} missing from:\n${result.stdout}`);
          if (command[0] !== 'serve') assert.doesNotMatch(environment, /\bPORT\b/, 'only what the command reads');
        }
      });
    }

    it('a port already in use prints one line naming it and exits 1, without a stack trace (was: a stack trace)', async () => {
      const blocker = net.createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const { port } = blocker.address() as net.AddressInfo;
      try {
        const result = await tycho(['serve'], { ...env(), PORT: String(port) });
        assert.equal(result.code, 1, result.stderr);
        assert.deepEqual(lines(result.stderr), [`tycho: port ${port} on 127.0.0.1 is already in use; set PORT to another port (0 picks a free one)`]);
        assert.doesNotMatch(result.stdout, LISTENING);
      } finally {
        blocker.close();
      }
    });

    it('a variable another command reads does not stop keys list (was: a bad PORT failed every command)', async () => {
      const result = await tycho(['orgs', 'list'], { ...env(), PORT: 'abc', LOG_LEVEL: 'loud' });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /\bdefault\b/);
    });

    it('exits 1 naming PORT when PORT is not a number', async () => {
      // Through bin/tycho.mjs: its exit code is main's.
      const result = await run(['serve'], { ...env(), PORT: 'abc' });
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /\bPORT\b/);
      assert.doesNotMatch(result.stdout, LISTENING);
    });

    it('exits 1 naming DATABASE_URL when the PostgreSQL database cannot be opened', async () => {
      const result = await tycho(['keys', 'list'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' });
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

    it('keys create prints a key as the last line and exits 0, naming the database it had to create (was: silent, a mistyped path unnoticed)', async () => {
      const result = await tycho(['keys', 'create'], env());
      assert.equal(result.code, 0, result.stderr);
      firstKey = lastLine(result.stdout);
      assert.match(firstKey, KEY_LINE);
      assert.match(result.stderr, /there was no database at .*keys\.sqlite \(DATABASE_URL\); created a new one there/);
      const again = await tycho(['keys', 'list'], env());
      assert.doesNotMatch(again.stderr, /created a new one/, 'said only when it was made');
    });

    it('a file a command cannot write is one tycho: line and exit 1 (was: an uncaught ENOENT dump)', async () => {
      const result = await tycho(['export', '--format', 'ndjson', '--collections', 'people', '--output', join(dir, 'no-such-dir', 'x.ndjson')], env());
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /^tycho: ENOENT: no such file or directory, open '.*no-such-dir.*x\.ndjson'\n?$/);
    });

    it('keys create --org with a name that does not exist exits 1, lists the organizations and creates nothing (was: silently created it)', async () => {
      const result = await tycho(['keys', 'create', '--org', 'defualt'], env());
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /no organization is named "defualt"; the organizations are "default" \(use one of them, or pass --create-org to create it\)/);
      const inbox = await tycho(['inboxes', 'create', '--name', 'Support', '--email', 'support@tycho.test', '--org', 'defualt'], env());
      assert.equal(inbox.code, 1, inbox.stderr);
      assert.match(inbox.stderr, /no organization is named "defualt"; the organizations are "default"/);
      const orgs = await tycho(['orgs', 'list'], env());
      assert.deepEqual(lines(orgs.stdout).slice(1).map((l) => l.split(/\s{2,}/)[1]), ['default']);
    });

    it('keys create --org acme --create-org --read-only --name ci creates the organization acme', async () => {
      const result = await tycho(['keys', 'create', '--org', 'acme', '--create-org', '--read-only', '--name', 'ci'], env());
      assert.equal(result.code, 0, result.stderr);
      ciKey = lastLine(result.stdout);
      assert.match(ciKey, KEY_LINE);
      assert.notEqual(ciKey, firstKey);
      assert.match(result.stdout, /^Created organization "acme"/m);

      const [orgs, keys] = await Promise.all([tycho(['orgs', 'list'], env()), tycho(['keys', 'list'], env())]);
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
      const result = await tycho(['keys', 'revoke', prefix], env());
      assert.equal(result.code, 0, result.stderr);
      const list = await tycho(['keys', 'list'], env());
      assert.equal(list.code, 0, list.stderr);
      const row = lines(list.stdout).find((l) => l.startsWith(prefix));
      assert.ok(row);
      assert.match(row, /\brevoked\b/);
      assert.doesNotMatch(row, /\bactive\b/);
      const first = lines(list.stdout).find((l) => l.startsWith(firstKey.slice(0, 14)));
      assert.match(first ?? '', /\bactive\b/, 'other keys stay active');
    });

    it('keys create --org for an organization that exists needs no --create-org', async () => {
      const result = await tycho(['keys', 'create', '--org', 'acme'], env());
      assert.equal(result.code, 0, result.stderr);
      assert.match(lastLine(result.stdout), KEY_LINE);
      assert.doesNotMatch(result.stdout, /Created organization/);
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

  describe('a throw-away database (DATABASE_URL=:memory:)', { concurrency: false }, () => {
    const upload = async (url: string, key: string) => {
      const form = new FormData();
      form.append('file', new Blob(['kept only while the server runs']), 'note.txt');
      return fetch(`${url}/v0/files`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    };

    it('keeps uploads in a temporary directory removed at exit, not in ./data (was: ./data)', async () => {
      const cwd = mkdtempSync(join(dir, 'cwd-'));
      const temp = mkdtempSync(join(dir, 'tmp-'));
      const server = new Server({ DATABASE_URL: ':memory:', TMPDIR: temp }, cwd);
      const url = await server.url();
      const key = (await server.waitFor(/^(tycho_\S+)$/m))[1]!;
      assert.equal((await upload(url, key)).status, 201);
      // tsx keeps its own cache in TMPDIR too.
      const dataDirs = () => readdirSync(temp).filter((name) => name.startsWith('tycho-data-'));
      const dirs = dataDirs();
      assert.equal(dirs.length, 1, `one temporary data directory: ${readdirSync(temp).join(', ')}`);
      assert.equal(readdirSync(join(temp, dirs[0]!, 'blobs'), { recursive: true }).length > 0, true, 'the upload is in it');
      const { code } = await server.stop('SIGTERM');
      assert.equal(code, 0, server.stderr);
      assert.deepEqual(dataDirs(), [], 'removed at exit');
      assert.equal(existsSync(join(cwd, 'data')), false, 'nothing in ./data');
    });

    it('TYCHO_DATA_DIR set explicitly still wins, and is kept', async () => {
      const dataDir = mkdtempSync(join(dir, 'data-'));
      const temp = mkdtempSync(join(dir, 'tmp-'));
      const server = new Server({ DATABASE_URL: ':memory:', TYCHO_DATA_DIR: dataDir, TMPDIR: temp });
      const url = await server.url();
      const key = (await server.waitFor(/^(tycho_\S+)$/m))[1]!;
      assert.equal((await upload(url, key)).status, 201);
      assert.deepEqual(readdirSync(temp).filter((name) => name.startsWith('tycho-data-')), [], 'no temporary data directory');
      const { code } = await server.stop('SIGTERM');
      assert.equal(code, 0, server.stderr);
      assert.ok(readdirSync(join(dataDir, 'blobs'), { recursive: true }).length > 0, 'the upload stays in TYCHO_DATA_DIR');
    });
  });

  describe('blobs sweep', { concurrency: false }, () => {
    it('removes stored contents no row names once older than --older-than, and keeps the rest', async () => {
      const blobs = mkdtempSync(join(dir, 'blobs-'));
      const env = { DATABASE_URL: join(dir, 'sweep.sqlite'), TYCHO_BLOB_URL: blobs };
      // Two keys of Tycho's shapes that no row names, and one of another shape (not Tycho's: never removed).
      for (const key of ['org1/orphan', 'org1/attachments/orphan', 'backup/2026/archive']) {
        mkdirSync(dirname(join(blobs, key)), { recursive: true });
        writeFileSync(join(blobs, key), 'x');
      }
      const young = await tycho(['blobs', 'sweep'], env);
      assert.equal(young.code, 0, young.stderr);
      assert.equal(lastLine(young.stdout), '0 unreferenced blob(s) removed, 3 kept');
      const swept = await tycho(['blobs', 'sweep', '--older-than', '0'], env);
      assert.equal(swept.code, 0, swept.stderr);
      const out = lines(swept.stdout);
      assert.equal(out.at(-1), '2 unreferenced blob(s) removed, 1 kept');
      assert.deepEqual(out.slice(0, -1).sort(), ['removed org1/attachments/orphan', 'removed org1/orphan']);
      assert.deepEqual([existsSync(join(blobs, 'org1/orphan')), existsSync(join(blobs, 'backup/2026/archive'))], [false, true]);
      const bad = await tycho(['blobs', 'sweep', '--older-than', 'soon'], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--older-than must be a whole number of minutes, got "soon"/);
    });
  });
});
