// Runs the `tycho` command as an operator would: a real process, only the given environment (plus PATH and
// the like), to completion.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Only a guard against a hung child; no test asserts on time. */
const GUARD_MS = 120_000;

export function tycho(args: string[], env: Record<string, string>): Promise<CliResult> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['PORT', 'HOST', 'DATABASE_URL', 'TYCHO_API_KEY', 'TYCHO_BODY_LIMIT', 'TYCHO_DATA_DIR', 'NODE_TEST_CONTEXT']) delete base[name];
  const child = spawn(process.execPath, ['bin/tycho.mjs', ...args], { cwd: ROOT, env: { ...base, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tycho ${args.join(' ')} did not finish; stdout: ${stdout} stderr: ${stderr}`));
    }, GUARD_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}
