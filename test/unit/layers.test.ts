// The layers only call downwards: the domain owns its ports and knows nothing of storage or HTTP, and routes
// reach storage only through the domain. A type-only import is still a dependency, so every import line counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The module specifiers of a file's static imports and re-exports, including multi-line ones. */
function importsOf(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]/gms), ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)].map(
    (m) => m[1]!,
  );
}

const storeDir = join(root, 'src', 'store');
/** Whether a relative specifier, seen from `file`, points into src/store. */
const intoStore = (file: string, specifier: string) =>
  specifier.startsWith('.') && (resolve(dirname(file), specifier) + sep).startsWith(storeDir + sep);

function offending(files: string[], forbidden: (file: string, specifier: string) => boolean): string[] {
  return files.flatMap((file) =>
    importsOf(file)
      .filter((specifier) => forbidden(file, specifier))
      .map((specifier) => `${relative(root, file)} imports ${specifier}`),
  );
}

test('nothing under src/domain imports the store, Kysely or Fastify', () => {
  const files = sourceFiles(join(root, 'src', 'domain'));
  assert.ok(files.length > 20);
  assert.deepEqual(
    offending(files, (file, s) => intoStore(file, s) || /^(kysely|fastify|@fastify\/)/.test(s)),
    [],
  );
});

test('routes under src/http/routes do not import from src/store', () => {
  const files = sourceFiles(join(root, 'src', 'http', 'routes'));
  assert.ok(files.length > 5);
  assert.deepEqual(offending(files, intoStore), []);
});

test('the import scanner sees multi-line and type-only imports, and resolves paths into src/store', () => {
  const route = join(root, 'src', 'http', 'routes', 'inbox-messages.ts');
  const sample = importsOf(route);
  assert.ok(sample.includes('../../domain/inbox-messages.ts'), 'multi-line import');
  assert.ok(sample.includes('../route-deps.ts'), 'type-only import');
  assert.ok(intoStore(route, '../../store/sql/records.ts'));
  assert.ok(!intoStore(route, '../../domain/ports/store.ts'));
  assert.ok(intoStore(join(root, 'src', 'domain', 'notes.ts'), '../store/blob-store.ts'));
});
