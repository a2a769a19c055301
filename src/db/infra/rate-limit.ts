// Fixed-window counters in PostgreSQL, so every API process shares one budget. The window comes
// from the caller's clock (injectable: tests set the time instead of waiting for it).
import { type RateLimitHit, type RateLimitRule, type RequestCount, requestCount } from '../../core/limits.js';
import type { Pool, PoolClient } from './pool.js';
import { prepared } from './prepared.js';

/**
 * The counter's upsert, as a CTE `hit` (hits, reset_at) over the statement's own placeholders
 * for the counter's key, the window's start and its end: counted alone, or with a route's write.
 */
export const countRequestCte = (counter: string, windowStart: string, windowEnd: string) => `hit AS (
       INSERT INTO rate_limit_counters (bucket, window_start, hits, expires_at) VALUES (${counter}, ${windowStart}, 1, ${windowEnd})
       ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1
       RETURNING hits, expires_at AS reset_at
     )`;

export const toRateLimitHit = (row: { hits: number; reset_at: Date }): RateLimitHit => ({ hits: row.hits, resetAt: row.reset_at });

/**
 * Counts one request on its own (its own commit: the counter row is locked only for that), or in
 * the caller's transaction when given its client (counted with its commit, undone by its rollback).
 */
export async function countRequestAlone(pool: Pool | PoolClient, count: RequestCount): Promise<RateLimitHit> {
  const { rows } = await pool.query(prepared(
    `WITH ${countRequestCte('$1', '$2', '$3')} SELECT hits, reset_at FROM hit`,
    [count.counter, count.windowStart, count.windowEnd],
  ));
  return toRateLimitHit(rows[0]);
}

export const hitRateLimit = (pool: Pool | PoolClient, rule: RateLimitRule, subject: string, now: Date): Promise<RateLimitHit> =>
  countRequestAlone(pool, requestCount(rule, subject, now));

/** Takes one count back from the window it was counted in (a right password never counts). */
export async function uncountRequest(pool: Pool, count: RequestCount): Promise<void> {
  await pool.query('UPDATE rate_limit_counters SET hits = hits - 1 WHERE bucket = $1 AND window_start = $2 AND hits > 0', [count.counter, count.windowStart]);
}

/** Drops windows that have ended (each by its own length); any instance may run it. */
export async function pruneRateLimitCounters(pool: Pool, now: Date): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM rate_limit_counters WHERE expires_at < $1', [now]);
  return rowCount ?? 0;
}
