// Statements prepared once per shape. For the small reads that answer most requests, building a query with
// Kysely and compiling it cost about as much as SQLite running it. A shape's statement is built once, with
// placeholders (`slot(i)`) where its values go, and compiled; later calls of the same shape put their values
// in the placeholders' parameters and run the compiled SQL as it is (the drivers keep their prepared statements
// by SQL text). A builder may branch on anything in the shape's key, never on a slot's value.
import { randomBytes } from 'node:crypto';
import { createQueryId, type CompiledQuery, type Compilable, type QueryExecutorProvider, type RawBuilder } from 'kysely';
import type { Engine } from './sql-store.ts';

// Values a shape keeps in its key (a `contains` text) reach the statement too: a random part per process keeps
// a request from writing a placeholder of its own into one.
const MARK = `\u0000slot:${randomBytes(9).toString('base64url')}:`;
const END = '\u0000';

/** The placeholder of a shape's i-th value: a text no request can carry into a statement. */
export const slot = (i: number): string => `${MARK}${i}${END}`;

/** Where a parameter takes its value from: slot `index`, followed by `suffix` (a prefix range's upper end). */
interface SlotUse {
  index: number;
  suffix: string;
}

interface Template {
  compiled: CompiledQuery;
  uses: (SlotUse | undefined)[];
}

const MAX_SHAPES = 1000;

function slotUse(parameter: unknown): SlotUse | undefined {
  if (typeof parameter !== 'string' || !parameter.includes(MARK)) return undefined;
  const end = parameter.indexOf(END, MARK.length);
  if (!parameter.startsWith(MARK) || end < 0) throw new Error(`a shape's value was changed before it reached its statement: ${JSON.stringify(parameter)}`);
  return { index: Number(parameter.slice(MARK.length, end)), suffix: parameter.slice(end + END.length) };
}

/** Keeps at most MAX_SHAPES entries, forgetting the oldest first. */
function remember<T>(map: Map<string, T>, key: string, value: T): T {
  if (map.size >= MAX_SHAPES) map.delete(map.keys().next().value!);
  map.set(key, value);
  return value;
}

export class Shapes {
  /** `dialect`: the engine's, for the few statements whose SQL differs between them. */
  constructor(readonly dialect: Engine['name']) {}

  private readonly templates = new Map<string, Template>();
  private readonly built = new Map<string, unknown>();

  /** What `make` builds for shape `key` (query builders over slots, say), made once. */
  memo<T>(key: string, make: () => T): T {
    return (this.built.get(key) ?? remember(this.built, key, make())) as T;
  }

  /** The statement of shape `key` with `values` in its slots; `build` makes it the first time, with slot(i) as the values. */
  statement<R>(key: string, values: readonly unknown[], build: () => Compilable<R>): CompiledQuery<R> {
    let template = this.templates.get(key);
    if (!template) {
      const compiled = build().compile();
      if (compiled.sql.includes(MARK)) throw new Error(`a shape's value was written into the SQL text of ${key}`);
      template = remember(this.templates, key, { compiled, uses: compiled.parameters.map(slotUse) });
    }
    const { compiled, uses } = template;
    const parameters = compiled.parameters.map((p, i) => {
      const use = uses[i];
      if (!use) return p;
      const value = values[use.index];
      return use.suffix === '' ? value : `${String(value)}${use.suffix}`;
    });
    return { ...compiled, parameters, queryId: createQueryId() } as CompiledQuery<R>;
  }
}

/**
 * A statement's values, collected as its shape is described: `bind(value)` keeps the value and hands back its
 * slot, which is what the builder writes where the value goes. The builder runs only for a new shape; the
 * binding runs for every statement (plain objects, no query building).
 */
export class Binder {
  readonly values: unknown[] = [];

  readonly bind = <T>(value: T): T => {
    // Kysely leaves an undefined column out of the statement; a slot would put it in.
    if (value === undefined) throw new Error('a bound value is undefined: say null, or leave the column out of the shape');
    this.values.push(value);
    return slot(this.values.length - 1) as T;
  };
}

/** A raw statement as a shape's `build` returns it (a RawBuilder compiles against a database handle). */
export const compilable = <R>(db: QueryExecutorProvider, raw: RawBuilder<R>): Compilable<R> => ({ compile: () => raw.compile(db) });

/** `row` with each of its values bound. */
export function bindAll<R extends object>(row: R, bind: Binder['bind']): R {
  return Object.fromEntries(Object.entries(row).map(([column, value]) => [column, bind(value)])) as R;
}

const perEngine = new WeakMap<object, Shapes>();

/** The shapes of one engine (compiled SQL is in its dialect). */
export function shapesOf(engine: Pick<Engine, 'name'>): Shapes {
  let shapes = perEngine.get(engine);
  if (!shapes) perEngine.set(engine, (shapes = new Shapes(engine.name)));
  return shapes;
}
