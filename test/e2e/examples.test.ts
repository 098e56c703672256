// The sample integration test in examples/ runs green against a real `tycho serve` (issue 16): the
// workflow it documents (sandbox per test, frozen clock, assertions on the journal) works as shown.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ADMIN_KEY = 'tycho_admin_key_for_examples';

/** This process's environment without the test runner's marker, which would make a child `node --test` skip its files. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

describe('examples/ (e2e)', () => {
  let dir: string;
  let server: ChildProcess;
  let url: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tycho-examples-'));
    server = spawn(process.execPath, ['bin/tycho.mjs', 'serve'], {
      cwd: ROOT,
      env: cleanEnv({ PORT: '0', DATABASE_URL: join(dir, 'db.sqlite'), TYCHO_ADMIN_KEY: ADMIN_KEY, LOG_LEVEL: 'warn', RATE_LIMITS: 'off' }),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let output = '';
      server.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        const match = /listening on (http:\/\/\S+?) /.exec(output);
        if (match) resolve(match[1]!);
      });
      server.once('exit', (code) => reject(new Error(`tycho serve exited with ${code}: ${output}`)));
    });
  });
  after(() => {
    server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('node --test examples/ passes against the server', async () => {
    const child = spawn(process.execPath, ['--test', 'examples/'], {
      cwd: ROOT,
      env: cleanEnv({ TYCHO_URL: url, TYCHO_ADMIN_KEY: ADMIN_KEY }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.equal(code, 0, output);
    assert.match(output, /# pass 3/);
    assert.match(output, /# skipped 0/);
  });
});
