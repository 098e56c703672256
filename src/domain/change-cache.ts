// What a process remembers of rarely-changing rows (API keys, organization clocks), kept while the store's
// change token for them stays the same. Any change to any of them — in this process or another one sharing
// the database — changes the token and empties the memory; while the store cannot tell (no token), nothing
// is remembered.

export interface ChangeCache<K, V> {
  /** The remembered value, or `load()`'s — remembered when `keep` allows it. */
  get(key: K, load: () => Promise<V>, keep?: (value: V) => boolean): Promise<V>;
}

export function changeCache<K, V>(changeToken: () => Promise<string | undefined>, maxEntries: number): ChangeCache<K, V> {
  const entries = new Map<K, V>();
  let cachedUnder: string | undefined;
  return {
    async get(key, load, keep = () => true) {
      // Read before the row: a change committed after this read shows as a new token next time.
      const current = await changeToken();
      if (current === undefined || current !== cachedUnder) {
        entries.clear();
        cachedUnder = current;
      }
      if (entries.has(key)) {
        // Least recently used goes first.
        const hit = entries.get(key)!;
        entries.delete(key);
        entries.set(key, hit);
        return hit;
      }
      const value = await load();
      if (current !== undefined && cachedUnder === current && keep(value)) {
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(key, value);
      }
      return value;
    },
  };
}
