// Counters behind the rate limits: how many requests a key has made in the current window. In-process by
// default; in Redis when several Tycho processes must share one budget.
export interface RateCounter {
  /** Counts one request in `window` (a key already naming the window) and returns the count so far. */
  hit(window: string, ttlMs: number): Promise<number>;
  close(): Promise<void>;
}

export function memoryCounter(): RateCounter {
  const counts = new Map<string, { count: number; expires: number }>();
  let sweep = 0;
  return {
    async hit(window, ttlMs) {
      const now = Date.now();
      // Expired windows are dropped now and then, so the map stays as small as the live windows.
      if (++sweep % 1000 === 0) for (const [key, entry] of counts) if (entry.expires <= now) counts.delete(key);
      const entry = counts.get(window);
      if (entry && entry.expires > now) return ++entry.count;
      counts.set(window, { count: 1, expires: now + ttlMs });
      return 1;
    },
    async close() {},
  };
}

/** Counts in Redis. If Redis cannot answer, requests are let through rather than refused. */
export async function redisCounter(url: string, onError: (error: unknown) => void): Promise<RateCounter> {
  // Loaded only when configured: most deployments never need the client.
  const { Redis } = await import('ioredis');
  // A slow or absent Redis must not hold requests up: commands give up after 250 ms.
  const redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 250 });
  redis.on('error', onError);
  return {
    async hit(window, ttlMs) {
      try {
        const results = await redis.multi().incr(window).pexpire(window, ttlMs).exec();
        return Number(results?.[0]?.[1] ?? 0);
      } catch (error) {
        onError(error);
        return 0;
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
