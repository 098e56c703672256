#!/usr/bin/env node
// The `tycho` command: runs the TypeScript sources through tsx's loader, with the process's arguments,
// environment and streams; the exit code is the command's.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
