// Fixed-window counters in PostgreSQL, so every API process shares one budget. The window comes
// from the caller's clock (injectable: tests set the time instead of waiting for it).
import { type RateLimitRule, rateLimitWindow } from '../core/limits.js';
import type { Pool } from './pool.js';
import { prepared } from './prepared.js';

export interface RateLimitHit {
  hits: number;
  resetAt: Date;
}

export async function hitRateLimit(pool: Pool, rule: RateLimitRule, subject: string, now: Date): Promise<RateLimitHit> {
  const window = rateLimitWindow(now, rule.windowSeconds);
  const { rows } = await pool.query(prepared(
    `INSERT INTO rate_limit_counters (bucket, window_start, hits, expires_at) VALUES ($1, $2, 1, $3)
     ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1
     RETURNING hits, expires_at AS reset_at`,
    [`${rule.bucket}:${subject}`, window.start, window.end],
  ));
  return { hits: rows[0].hits, resetAt: rows[0].reset_at };
}

/** Drops windows that have ended (each by its own length); any instance may run it. */
export async function pruneRateLimitCounters(pool: Pool, now: Date): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM rate_limit_counters WHERE expires_at < $1', [now]);
  return rowCount ?? 0;
}
