// Which server bin/tycho.mjs runs: the build in dist/ while it is newer than every file under src/ (a
// directory's time moves when a file is added or removed), and the TypeScript sources otherwise, so an edited
// source is never shadowed by an older build.
import { existsSync, readdirSync, statSync } from 'node:fs';

/** `root`: the project directory, as a file URL ending in a slash. */
export function serverEntry(root) {
  const built = new URL('dist/main.js', root);
  const sources = new URL('src/', root);
  if (existsSync(built)) {
    const builtAt = statSync(built).mtimeMs;
    const current = readdirSync(sources, { recursive: true }).every((file) => statSync(new URL(String(file), sources)).mtimeMs < builtAt);
    if (current) return { module: built.href, typescript: false };
  }
  return { module: new URL('main.ts', sources).href, typescript: true };
}
