// Property-based HTTP fuzzing of every operation in the served OpenAPI document (GET /openapi.json): valid-
// looking requests built from each operation's schemas, then mutated (wrong types, missing properties, huge
// strings, deep nesting, NULs, odd numbers and unicode, extra properties, value objects without `type`, junk
// and real-but-wrong ids in the path, hostile query strings and cursors, content types, strategy headers,
// malformed multipart). Every answer must be below 500, every 4xx must be the documented errors envelope, and
// a request that failed must not have written anything (see checks.ts and runner.ts).
//
// `npm test` runs a bounded, seeded pass on each engine. `npm run fuzz -- --runs N` runs a long one; see
// test/fuzz/run.ts and docs/behaviour.md ("Fuzzing").
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { ENGINES, type EngineName } from '../helpers/harness.ts';
import { createFuzzHarness, type FuzzHarness } from './harness.ts';
import { createFixtures, refresh, type Fixtures } from './fixtures.ts';
import { operationsOf, type Operation } from './openapi.ts';
import { configFromEnv, formatFinding, fuzzOperation, Session, summarize, type Finding } from './runner.ts';

const config = configFromEnv();
const engines: EngineName[] = process.env.FUZZ_ENGINE ? ENGINES.filter((e) => e === process.env.FUZZ_ENGINE) : ENGINES;
const allFindings: Finding[] = [];

for (const engine of engines) {
  describe(`OpenAPI fuzz (${engine})`, () => {
    let h: FuzzHarness;
    let fx: Fixtures;
    let operations: Operation[];

    before(async () => {
      h = await createFuzzHarness(engine);
      const doc = await h.send({ method: 'GET', url: '/openapi.json', headers: {} }, 30_000);
      assert.equal(doc.status, 200, doc.text);
      operations = operationsOf(doc.body);
      fx = await createFixtures(h);
    });
    after(() => h?.close());

    it('every operation: no 5xx, 4xx in the errors envelope, failed requests write nothing', async (t) => {
      // Every operation of the document is fuzzed; a route missing from it would go unnoticed, so check the
      // document still lists the v0 API and the extensions.
      assert.ok(operations.length >= 45, `only ${operations.length} operations in /openapi.json`);
      for (const name of ['POST /v0/files', 'POST /v0/inbox_messages/{id}/attachments', 'POST /v0/tycho/inbox_messages/{id}/send', 'GET /tycho/downloads/{org}/{file}']) {
        assert.ok(operations.some((op) => op.name === name), `${name} is in /openapi.json`);
      }
      const selected = operations.filter((op) => !config.ops || config.ops.test(op.name));
      t.diagnostic(
        `seed ${config.seed} (FUZZ_SEED), ${config.runs} runs per operation (FUZZ_RUNS), ${selected.length} operations` +
          `${config.ops ? ` matching ${config.ops}` : ''}, slow limit ${config.slowMs} ms`,
      );
      const session = new Session(h, fx, config);
      const findings: Finding[] = [];
      const started = performance.now();
      for (const op of selected) {
        await t.test(op.name, async () => {
          let found: Finding[];
          try {
            found = await fuzzOperation(session, op);
          } finally {
            // Fuzzed writes may have deleted or changed fixtures; re-read and re-create them.
            await refresh(h, fx);
            session.invalidate();
          }
          findings.push(...found);
          if (found.length > 0) {
            assert.fail(`${found.length} finding(s) for ${op.name} (FUZZ_SEED=${config.seed}):\n\n${found.map(formatFinding).join('\n\n')}`);
          }
        });
      }
      const statuses = [...session.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
      t.diagnostic(`${session.requests} requests in ${Math.round(performance.now() - started)} ms; statuses ${statuses}`);
      allFindings.push(...findings);
      if (findings.length > 0) t.diagnostic(summarize(findings));
      if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, JSON.stringify(allFindings, null, 2));
    });
  });
}
