// What the server prepares on SQLite, and how SQLite plans it: plan tests record the statements a scenario
// prepares, then read each one's plan from the database file (as SQLite plans it there, without statistics).
import BetterSqlite3 from 'better-sqlite3';

export interface StatementRecorder {
  /** Starts recording (anew). */
  start(): void;
  /** Stops recording and returns what was prepared meanwhile, each statement once. */
  stop(): string[];
  /** Puts better-sqlite3's `prepare` back. */
  restore(): void;
}

/** Wraps better-sqlite3's `prepare` for this process, so that statements prepared while recording are kept. */
export function recordStatements(): StatementRecorder {
  const prepare = BetterSqlite3.prototype.prepare;
  let recording: Set<string> | undefined;
  BetterSqlite3.prototype.prepare = function (this: BetterSqlite3.Database, source: string) {
    recording?.add(source);
    return prepare.call(this, source);
  } as typeof prepare;
  return {
    start: () => void (recording = new Set()),
    stop() {
      const statements = [...(recording ?? [])];
      recording = undefined;
      return statements;
    },
    restore: () => void (BetterSqlite3.prototype.prepare = prepare),
  };
}

/** Each statement's plan steps (`explain query plan`, every parameter null). */
export function plansOf(file: string, statements: string[]): { statement: string; steps: string[] }[] {
  const raw = new BetterSqlite3(file, { readonly: true });
  try {
    return statements.map((statement) => {
      const parameters = new Array((statement.match(/\?/g) ?? []).length).fill(null);
      const plan = raw.prepare(`explain query plan ${statement}`).all(...parameters) as { detail: string }[];
      return { statement, steps: plan.map((step) => step.detail) };
    });
  } finally {
    raw.close();
  }
}
