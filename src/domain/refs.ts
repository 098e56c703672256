// Refs: the stable, human-readable handles of collections and fields, derived once from a name.

/** "Lead Source" → "lead_source": lower-case, accents folded, runs of anything else become one `_`. */
export function deriveRef(name: string, fallback: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
  return words.length > 0 ? words.join('_') : fallback;
}

/** The first of `base`, `base_2`, `base_3`, … that `taken` does not hold. */
export function uniqueRef(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}_${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
