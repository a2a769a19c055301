// Events per program, hour and kind (migration 0011), kept by the statement that records each
// tracking event, and read by readiness. One place for the bucket and the shard.
import type { Pool } from '../infra/pool.js';

/**
 * A shard per connection: two transactions recording at once (a worker's attribution holds its
 * counter row until it commits) never wait on the same counter row.
 */
export const COUNTER_SHARDS = 64;

/** The hour an event counts in: UTC, whatever the session's time zone. */
export const hourOf = (timestamp: string) => `date_bin('1 hour', ${timestamp}, timestamptz '2000-01-01 00:00:00+00')`;

/**
 * A CTE that adds one to the counter of (program, hour of created_at, kind); the parameters are
 * the statement's own placeholders for those three values and the event's test flag (test
 * events are not counted: the counts are the program's real traffic). With `onlyIf` (a CTE
 * name), only when that CTE wrote a row.
 */
export const countEventCte = (programId: string, kind: string, createdAt: string, test: string, onlyIf?: string) => `counted AS (
       INSERT INTO tracking_hourly_counts (program_id, hour, kind, shard, events)
       SELECT ${programId}, ${hourOf(`${createdAt}::timestamptz`)}, ${kind}, (pg_backend_pid() % ${COUNTER_SHARDS})::smallint, 1
       WHERE NOT ${test}::boolean ${onlyIf ? `AND EXISTS (SELECT 1 FROM ${onlyIf})` : ''}
       ON CONFLICT (program_id, hour, kind, shard) DO UPDATE SET events = tracking_hourly_counts.events + 1
     )`;

/** A CTE that adds each real (not test) row of `source` to the counter of (its program, the hour of its time, its kind): the columns named. */
export const countEventsCte = (source: string, programId: string, kind: string, createdAt: string, test: string) => `counted AS (
       INSERT INTO tracking_hourly_counts (program_id, hour, kind, shard, events)
       SELECT r.${programId}, ${hourOf(`r.${createdAt}`)}, r.${kind}, (pg_backend_pid() % ${COUNTER_SHARDS})::smallint, count(*)
         FROM ${source} r WHERE NOT r.${test} GROUP BY 1, 2, 3
       ON CONFLICT (program_id, hour, kind, shard) DO UPDATE SET events = tracking_hourly_counts.events + EXCLUDED.events
     )`;

/**
 * Folds the shards of every hour before the current one into shard 0: readiness then sums one
 * row per past hour and kind (72 for a day, instead of up to 64 times that). A late write to a
 * past hour makes a new shard row, folded by the next run; the sums never change. Any
 * instance, any time (idempotent). Returns the rows folded.
 */
export async function compactHourlyCounts(pool: Pool, now: Date): Promise<number> {
  const { rows } = await pool.query(
    `WITH folded AS (
       DELETE FROM tracking_hourly_counts WHERE hour < ${hourOf('$1::timestamptz')} AND shard <> 0
       RETURNING program_id, hour, kind, events
     ), summed AS (
       INSERT INTO tracking_hourly_counts (program_id, hour, kind, shard, events)
       SELECT program_id, hour, kind, 0, sum(events) FROM folded GROUP BY program_id, hour, kind
       ON CONFLICT (program_id, hour, kind, shard) DO UPDATE SET events = tracking_hourly_counts.events + EXCLUDED.events
     )
     SELECT count(*)::int AS folded FROM folded`,
    [now],
  );
  return rows[0].folded;
}
