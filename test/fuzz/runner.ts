// Runs the property for one operation: fast-check generates request specs, each is sent and checked, and a
// failing request is shrunk (within a budget) to a small reproduction. After a finding the run continues with
// the remaining budget, ignoring what was already found, so one run reports every distinct finding (by
// signature) of the operation rather than only the first.
import fc from 'fast-check';
import { appendFileSync } from 'node:fs';
import type { FuzzHarness, Snapshot, WireResponse } from './harness.ts';
import { diffSnapshots } from './harness.ts';
import type { Fixtures } from './fixtures.ts';
import { isRead, type Operation } from './openapi.ts';
import { abbreviate, describeRequest, materialize, requestArb, type Materialized, type RequestSpec } from './requests.ts';
import { checkResponse, causeOf, type Violation } from './checks.ts';

export interface FuzzConfig {
  /** Generated requests per operation. */
  runs: number;
  seed: number;
  slowMs: number;
  hangMs: number;
  /** Requests spent shrinking one finding, at most, and milliseconds. */
  shrinkRuns: number;
  shrinkMs: number;
  /** Distinct findings per operation before moving on. */
  maxFindings: number;
  /** Only operations whose name (`POST /v0/notes`) matches. */
  ops: RegExp | undefined;
  /** Replays one counterexample (`<seed>:<path>` as a finding prints it) instead of searching. */
  replay: { seed: number; path: string } | undefined;
}

function replayOf(text: string | undefined): FuzzConfig['replay'] {
  if (!text) return undefined;
  const match = /^(-?\d+):([\d:]+)$/.exec(text.trim());
  if (!match) throw new Error(`FUZZ_REPLAY must be <seed>:<path> as a finding prints it, got "${text}"`);
  return { seed: Number(match[1]), path: match[2]! };
}

const int = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
};

/** The default seed of `npm test`: fixed, so that the bounded run is reproducible. */
export const DEFAULT_SEED = 20_240_607;

export function configFromEnv(): FuzzConfig {
  return {
    runs: int('FUZZ_RUNS', 100),
    seed: int('FUZZ_SEED', DEFAULT_SEED),
    slowMs: int('FUZZ_SLOW_MS', 3000),
    hangMs: int('FUZZ_HANG_MS', 8000),
    shrinkRuns: int('FUZZ_SHRINK_RUNS', 60),
    shrinkMs: int('FUZZ_SHRINK_MS', 4000),
    maxFindings: int('FUZZ_MAX_FINDINGS', 8),
    ops: process.env.FUZZ_OPS ? new RegExp(process.env.FUZZ_OPS) : undefined,
    replay: replayOf(process.env.FUZZ_REPLAY),
  };
}

export interface Outcome {
  materialized: Materialized;
  response: WireResponse;
  violations: Violation[];
}

export interface Finding {
  engine: string;
  operation: string;
  kind: Violation['kind'];
  signature: string;
  message: string;
  request: string;
  status: number;
  response: string;
  serverErrors: string[];
  replay: string;
  /** fast-check's counterexample: the generated request spec, before fixture markers are resolved. */
  spec: string;
}

/** Sends requests and keeps the "before" fingerprint needed to judge the next failing one. */
export class Session {
  private before: Snapshot | undefined;
  requests = 0;
  readonly statuses = new Map<number, number>();

  constructor(
    readonly h: FuzzHarness,
    readonly fx: Fixtures,
    readonly config: FuzzConfig,
  ) {}

  /** Forget the fingerprint (after set-up or fixture refreshes wrote). */
  invalidate(): void {
    this.before = undefined;
  }

  async execute(op: Operation, spec: RequestSpec): Promise<Outcome> {
    const materialized = await materialize(this.h, this.fx, op, spec);
    this.before ??= await this.h.snapshot();
    let response = await this.h.send(materialized.request, this.config.hangMs);
    this.requests++;
    if (!response.hung && response.ms > this.config.slowMs) {
      // Slow once may be a busy machine (npm test runs suites in parallel): slow twice is a finding.
      const again = await this.h.send(materialized.request, this.config.hangMs);
      if (!again.hung && again.ms < response.ms) response = { ...response, ms: again.ms };
    }
    this.statuses.set(response.status, (this.statuses.get(response.status) ?? 0) + 1);
    if (process.env.FUZZ_LOG) {
      const error = response.body?.errors?.[0];
      const what = error ? `${error.code ?? ''} ${error.source ? JSON.stringify(error.source) : ''} ${error.detail ?? ''}` : '';
      appendFileSync(process.env.FUZZ_LOG, `${op.name}\t${response.status}\t${Math.round(response.ms)}ms\t${abbreviate(materialized.request.url, 200)}\t${abbreviate(what, 300)}\n`);
    }
    const violations = [...checkResponse(response, this.config.slowMs, materialized.request.method), ...checkAccess(op, spec, response), ...checkDocumented(op, spec, response)];
    const failed = response.status < 200 || response.status >= 300;
    if (response.hung) {
      // Still running somewhere: nothing can be said about the data now.
      this.before = undefined;
    } else if (failed) {
      const after = await this.h.snapshot();
      const diff = diffSnapshots(this.before, after);
      if (diff.length > 0) {
        const tables = diff.map((line) => line.split(':')[0]).join(', ');
        const code = response.body?.errors?.[0]?.code ?? '';
        violations.push({ kind: 'data-changed', message: `a ${response.status} changed data:\n    ${diff.join('\n    ')}`, signature: `${response.status} ${code} wrote ${tables}` });
      }
      this.before = after;
    } else {
      // A success may write; the next failing request needs a fresh "before".
      this.before = undefined;
    }
    return { materialized, response, violations };
  }
}

/**
 * Keys and tenancy (docs/behaviour.md, "Authentication and tenancy"): no key or a bad one → 401; a read-only
 * key never writes; another organization's key never reaches this organization's records (404, not 2xx).
 */
/** An answer of the operation's own method is one of the statuses its document lists (clients generate code from them). */
function checkDocumented(op: Operation, spec: RequestSpec, res: WireResponse): Violation[] {
  if (res.hung || (spec.method ?? op.method) !== op.method || op.statuses.has(res.status)) return [];
  return [{ kind: 'undocumented', message: `${res.status} is not among the statuses the OpenAPI document lists (${[...op.statuses].join(', ')})`, signature: `undocumented ${res.status}` }];
}

function checkAccess(op: Operation, spec: RequestSpec, res: WireResponse): Violation[] {
  if (op.public || res.hung || res.status < 200 || res.status >= 300) return [];
  const auth = spec.auth;
  if (auth === 'none' || (typeof auth === 'object' && 'garbage' in auth)) {
    return [{ kind: 'access', message: `${res.status} without a valid key (${auth === 'none' ? 'no Authorization header' : 'garbage Authorization header'})`, signature: 'success without a valid key' }];
  }
  const method = spec.method ?? op.method;
  if (auth === 'readonly' && method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS' && !isRead(op)) return [{ kind: 'access', message: `${res.status} for a write with a read-only key`, signature: 'write with a read-only key' }];
  if (auth === 'other') {
    // A path naming one of this organization's records by id (refs like `people` exist in every organization).
    const ours = Object.values(spec.path).some((v) => v.t === 'fx' && v.resource !== 'foreign' && v.resource !== 'org' && (v.form === 'id' || !['collection', 'field'].includes(v.resource)));
    if (ours) return [{ kind: 'access', message: `${res.status} for another organization's key on this organization's record`, signature: "another organization's record reached" }];
  }
  return [];
}

class FindingError extends Error {
  constructor(
    readonly violations: Violation[],
    readonly outcome: Outcome,
  ) {
    super(`${violations.map((v) => `[${v.kind}] ${v.message}`).join('\n')}\n${describeRequest(outcome.materialized.request)}`);
  }
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

const responseText = (res: WireResponse) => (res.hung ? '(no response)' : `${res.status} ${abbreviate(res.text, 500)}`);

/** Fuzzes one operation; returns its distinct findings (empty when it held up). */
export async function fuzzOperation(session: Session, op: Operation): Promise<Finding[]> {
  const { config } = session;
  const known = new Map<string, Finding>();
  const arb = requestArb(op);
  let remaining = config.runs;
  let seed = (config.seed + hash(op.name)) >>> 0;
  while (remaining > 0 && known.size < config.maxFindings) {
    let target: string | undefined;
    let shrinkCalls = 0;
    let failedAt = 0;
    const property = fc.asyncProperty(arb, async (spec) => {
      if (target !== undefined && (++shrinkCalls > config.shrinkRuns || performance.now() - failedAt > config.shrinkMs)) return true;
      const outcome = await session.execute(op, spec);
      const fresh = outcome.violations.filter((v) => !known.has(v.signature));
      const hit = target === undefined ? fresh : fresh.filter((v) => v.signature === target);
      if (hit.length === 0) return true;
      if (target === undefined) {
        target = hit[0]!.signature;
        failedAt = performance.now();
      }
      throw new FindingError(fresh, outcome);
    });
    const replay = config.replay;
    const details = await fc.check(property, replay ? { seed: replay.seed, path: replay.path, endOnFailure: true } : { seed, numRuns: remaining });
    if (!details.failed) break;
    const error = details.errorInstance;
    if (!(error instanceof FindingError)) throw error instanceof Error ? error : new Error(String(error));
    const res = error.outcome.response;
    for (const v of error.violations) {
      if (known.has(v.signature)) continue;
      known.set(v.signature, {
        engine: session.h.engine,
        operation: op.name,
        kind: v.kind,
        signature: v.signature,
        message: v.message,
        request: describeRequest(error.outcome.materialized.request),
        status: res.status,
        response: responseText(res),
        serverErrors: res.serverErrors,
        replay:
          `after ${details.numRuns} runs and ${details.numShrinks} shrinks; replay: FUZZ_OPS='^${op.name.replace(/[{}]/g, '\\$&')}$' ` +
          `FUZZ_REPLAY=${details.seed}:${details.counterexamplePath} (fixture records may differ when run alone)`,
        spec: abbreviate(fc.stringify(details.counterexample?.[0]), 800),
      });
    }
    if (replay) break;
    remaining -= details.numRuns;
    seed = (Math.imul(seed, 31) + 7) >>> 0;
  }
  return [...known.values()];
}

export function formatFinding(f: Finding): string {
  const indent = (text: string) => text.split('\n').map((l) => `    ${l}`).join('\n');
  return [
    `[${f.kind}] ${f.operation} (${f.engine}): ${f.signature}`,
    `  ${f.message.split('\n').join('\n  ')}`,
    '  request:',
    indent(f.request),
    `  response: ${f.response}`,
    `  spec: ${f.spec}`,
    `  ${f.replay}`,
  ].join('\n');
}

/** Findings of a whole run grouped by cause (server error or violated rule), for the summary. */
export function summarize(findings: Finding[]): string {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const cause = f.kind === '5xx' ? `5xx: ${causeOf(f.serverErrors[0])}` : `${f.kind}: ${f.signature.replace(/^\d+ /, '')}`;
    const list = groups.get(cause) ?? [];
    list.push(f);
    groups.set(cause, list);
  }
  const lines = [`${findings.length} finding(s), ${groups.size} distinct cause(s):`];
  for (const [cause, list] of groups) {
    lines.push(`- ${cause}`);
    for (const f of list) lines.push(`    ${f.engine} ${f.operation} → ${f.status}`);
  }
  return lines.join('\n');
}
