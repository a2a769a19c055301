// Fixed-window counters in PostgreSQL, so every API process shares one budget.
// The window is taken from the database clock, the same for all instances.
import type { RateLimitRule } from '../core/limits.js';
import type { Pool } from './pool.js';

export interface RateLimitHit {
  hits: number;
  resetAt: Date;
}

export async function hitRateLimit(pool: Pool, rule: RateLimitRule, subject: string): Promise<RateLimitHit> {
  const { rows } = await pool.query(
    `WITH w AS (SELECT to_timestamp(floor(extract(epoch FROM clock_timestamp()) / $2) * $2) AS start)
     INSERT INTO rate_limit_counters (bucket, window_start, hits, expires_at)
     SELECT $1, w.start, 1, w.start + make_interval(secs => $2) FROM w
     ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1
     RETURNING hits, expires_at AS reset_at`,
    [`${rule.bucket}:${subject}`, rule.windowSeconds],
  );
  return { hits: rows[0].hits, resetAt: rows[0].reset_at };
}

/** Drops windows that have ended (each by its own length); any instance may run it. */
export async function pruneRateLimitCounters(pool: Pool): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM rate_limit_counters WHERE expires_at < clock_timestamp()');
  return rowCount ?? 0;
}
