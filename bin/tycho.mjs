#!/usr/bin/env node
// The `tycho` command, with the process's arguments, environment and streams; the exit code is the command's.
// It runs the built server (dist/, made by `npm run build:server`, which `npm install` runs) while that is
// newer than every file under src/, and otherwise the TypeScript sources through tsx's loader: an edited
// source is never shadowed by an older build.
import { existsSync, readdirSync, statSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const built = new URL('dist/main.js', root);

function builtIsCurrent() {
  if (!existsSync(built)) return false;
  const builtAt = statSync(built).mtimeMs;
  const sources = new URL('src/', root);
  return readdirSync(sources, { recursive: true }).every((file) => statSync(new URL(String(file), sources)).mtimeMs < builtAt);
}

let entry;
if (builtIsCurrent()) entry = built.href;
else {
  const { register } = await import('tsx/esm/api');
  register();
  entry = '../src/main.ts';
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
