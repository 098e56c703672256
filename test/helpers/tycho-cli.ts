// Runs a `tycho` command as an operator would, to completion, but in this process: the same `main` that
// bin/tycho.mjs calls, with only the given environment (plus PATH and the like) and its output captured. A
// process costs seconds of loading; tests whose point is the process boundary (serve, signals, two processes
// on one database) spawn bin/tycho.mjs instead.
import { Writable } from 'node:stream';
import { main } from '../../src/main.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The variables a test must set itself when a command needs them, never inherit from the test's own run. */
const NOT_INHERITED = ['PORT', 'HOST', 'DATABASE_URL', 'TYCHO_API_KEY', 'TYCHO_BODY_LIMIT', 'TYCHO_DATA_DIR'];

function capture(): { stream: Writable; text(): string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

/**
 * Commands run one after another, as an operator's would: better-sqlite3 waits for a lock by blocking the
 * thread, so two commands of this process on one file would wait on each other until busy_timeout.
 */
let previous: Promise<unknown> = Promise.resolve();

export function tycho(args: string[], env: Record<string, string>): Promise<CliResult> {
  const result = previous.then(() => run(args, env));
  previous = result.catch(() => undefined);
  return result;
}

async function run(args: string[], env: Record<string, string>): Promise<CliResult> {
  const base: Record<string, string | undefined> = { ...process.env };
  for (const name of NOT_INHERITED) delete base[name];
  const stdout = capture();
  const stderr = capture();
  const code = await main(args, { env: { ...base, LOG_LEVEL: 'silent', ...env }, stdout: stdout.stream, stderr: stderr.stream });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
