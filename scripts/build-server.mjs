// `npm run build:server` (run by `npm install`'s `prepare`): the server as plain JavaScript in dist/, which
// bin/tycho.mjs runs while it is newer than every source file. From the sources, the TypeScript loader costs
// a process about 45 MB (its hooks thread, transpiled sources and their source maps) and the delivery thread
// as much again. One entry per thread; code they share goes into chunks, and modules loaded on demand (the demo
// seed, S3, mail) stay on demand. Packages are imported from node_modules as they are.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const outdir = new URL('dist/', root).pathname;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: ['src/main.ts', 'src/webhook-thread-main.ts'].map((entry) => new URL(entry, root).pathname),
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // Stack traces in logs keep the sources' function names; the maps are there for a debugger.
  keepNames: true,
  sourcemap: 'linked',
  logLevel: 'warning',
});
