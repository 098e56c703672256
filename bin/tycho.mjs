#!/usr/bin/env node
// The `tycho` command, with the process's arguments, environment and streams; the exit code is the command's.
// It runs the built server (dist/, made by `npm run build:server`, which `npm install` runs) while that is
// current, and otherwise the TypeScript sources through tsx's loader (server-entry.mjs).
import { serverEntry } from './server-entry.mjs';

const entry = serverEntry(new URL('..', import.meta.url));
if (entry.typescript) (await import('tsx/esm/api')).register();
const { main } = await import(entry.module);
process.exitCode = await main(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
