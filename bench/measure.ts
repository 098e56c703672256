// What the benchmarks measure outside Tycho's own answers: CPU time of processes (steadier than req/s on a
// shared machine, where other work takes turns on the cores) and throw-away PostgreSQL databases.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
// @ts-expect-error: a plain JavaScript module of the command, without types
import { serverEntry } from '../bin/server-entry.mjs';

const ROOT = new URL('..', import.meta.url);

/**
 * The arguments after `node` that start `tycho serve` as `npm start` does (package.json's own script, so
 * its Node flags apply to the benchmarks too), with the built server: from sources newer than dist/ it would
 * run through the TypeScript loader, whose thread and transpiled code would be measured as Tycho's, so dist/
 * is built first. `smoke` runs (inside `npm test`, beside tests that start servers) use what is there.
 */
export function serveArguments(smoke = false): string[] {
  if (!smoke && serverEntry(ROOT).typescript) execFileSync('npm', ['run', 'build:server'], { cwd: ROOT, stdio: 'ignore' });
  const start = (JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const [node, ...rest] = start.split(/\s+/);
  if (node !== 'node' || !rest.includes('serve')) throw new Error(`package.json's start script should be "node … bin/tycho.mjs serve", not "${start}"`);
  return rest;
}

/** CPU time (user + system, in ms) the processes have used so far; 0 for one that has gone. */
export function cpuMs(pids: number[]): number {
  return ticksMs(pids.map((pid) => `/proc/${pid}/stat`));
}

/** Each process's CPU time so far (ms), for `cpuMsSince`. */
export function cpuByPid(pids: number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, cpuMs([pid])]));
}

/**
 * CPU ms the processes `pids` used since `before`: one started meanwhile counts whole; one that has gone
 * counts nothing (its time since `before` is lost, rather than its earlier time taken off the sum: PostgreSQL
 * backends come and go with the pool's connections).
 */
export function cpuMsSince(before: Map<number, number>, pids: number[]): number {
  return pids.reduce((sum, pid) => {
    const now = cpuMs([pid]);
    return now === 0 ? sum : sum + now - (before.get(pid) ?? 0);
  }, 0);
}

/** CPU time (user + system, ms) of a process's main thread alone: its JavaScript event loop. */
export function mainThreadCpuMs(pid: number): number {
  return ticksMs([`/proc/${pid}/task/${pid}/stat`]);
}

function ticksMs(statFiles: string[]): number {
  let ticks = 0;
  for (const file of statFiles) {
    try {
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

/** The PostgreSQL server's processes on this machine (the database CPU of a PostgreSQL run). */
export function postgresPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A throw-away database on the PostgreSQL server `admin` names, so every run starts empty. */
export async function postgresDatabase(admin: string, label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tycho_${label}_${process.pid}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(statement).finally(() => client.end());
  };
  await run(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}
