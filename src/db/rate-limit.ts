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
    `INSERT INTO rate_limit_counters (bucket, window_start, hits)
     VALUES ($1, to_timestamp(floor(extract(epoch FROM clock_timestamp()) / $2) * $2), 1)
     ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1
     RETURNING hits, window_start + make_interval(secs => $2) AS reset_at`,
    [`${rule.bucket}:${subject}`, rule.windowSeconds],
  );
  return { hits: rows[0].hits, resetAt: rows[0].reset_at };
}

/** Drops finished windows; any instance may run it. */
export async function pruneRateLimitCounters(pool: Pool): Promise<number> {
  const { rowCount } = await pool.query(
    "DELETE FROM rate_limit_counters WHERE window_start < clock_timestamp() - interval '10 minutes'",
  );
  return rowCount ?? 0;
}
