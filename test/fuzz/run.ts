// `npm run fuzz -- [--runs N] [--seed S] [--ops REGEX] [--engine sqlite|postgres] [--slow-ms MS] [--report FILE]`:
// the fuzz suite of test/fuzz/openapi-fuzz.test.ts with a bigger budget. Options become the FUZZ_* variables
// the suite reads; without --seed a fresh random seed is used (printed, so a run can be repeated).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const OPTIONS: Record<string, string> = {
  '--runs': 'FUZZ_RUNS',
  '--seed': 'FUZZ_SEED',
  '--ops': 'FUZZ_OPS',
  '--engine': 'FUZZ_ENGINE',
  '--slow-ms': 'FUZZ_SLOW_MS',
  '--hang-ms': 'FUZZ_HANG_MS',
  '--shrink-runs': 'FUZZ_SHRINK_RUNS',
  '--shrink-ms': 'FUZZ_SHRINK_MS',
  '--max-findings': 'FUZZ_MAX_FINDINGS',
  '--report': 'FUZZ_REPORT',
  '--replay': 'FUZZ_REPLAY',
};

const usage = `usage: npm run fuzz -- [--runs N] [--seed S] [--ops REGEX] [--engine sqlite|postgres] [--slow-ms MS] [--report FILE]
  --runs N        generated requests per operation (default 500)
  --seed S        fast-check seed (default: random, printed)
  --ops REGEX     only operations whose "METHOD /path" matches
  --engine E      only this engine (PostgreSQL runs when TEST_DATABASE_URL is set)
  --report FILE   write every finding as JSON to FILE
  --replay S:P    re-send one counterexample (with --ops naming its operation), as a finding prints it`;

// Long-run defaults; FUZZ_* variables already in the environment win over them, options over both.
const env: Record<string, string> = { FUZZ_RUNS: '500', FUZZ_SHRINK_RUNS: '200', FUZZ_SHRINK_MS: '15000', FUZZ_MAX_FINDINGS: '20' };
for (const [name, value] of Object.entries(process.env)) if (name.startsWith('FUZZ_') && value !== undefined) env[name] = value;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
  const name = OPTIONS[flag];
  const value = inline ?? args[++i];
  if (!name || value === undefined) {
    console.error(arg === '--help' || arg === '-h' ? usage : `unknown or incomplete option ${arg}\n${usage}`);
    process.exit(arg === '--help' || arg === '-h' ? 0 : 2);
  }
  env[name] = value;
}
env.FUZZ_SEED ??= String(Math.floor(Math.random() * 2 ** 31));
console.log(`fuzz: FUZZ_SEED=${env.FUZZ_SEED} FUZZ_RUNS=${env.FUZZ_RUNS}${env.FUZZ_OPS ? ` FUZZ_OPS=${env.FUZZ_OPS}` : ''}`);

const suite = fileURLToPath(new URL('./openapi-fuzz.test.ts', import.meta.url));
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', suite], {
  stdio: 'inherit',
  env: { ...process.env, ...env },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
