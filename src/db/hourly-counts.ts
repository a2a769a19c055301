// Events per program, hour and kind (migration 0011), kept by the statement that records each
// tracking event, and read by readiness. One place for the bucket and the shard.

/**
 * A shard per connection: two transactions recording at once (a worker's attribution holds its
 * counter row until it commits) never wait on the same counter row.
 */
export const COUNTER_SHARDS = 64;

/** The hour an event counts in: UTC, whatever the session's time zone. */
export const hourOf = (timestamp: string) => `date_bin('1 hour', ${timestamp}, timestamptz '2000-01-01 00:00:00+00')`;

/**
 * A CTE that adds one to the counter of (program, hour of created_at, kind); the parameters are
 * the statement's own placeholders for those three values. With `onlyIf` (a CTE name), only
 * when that CTE wrote a row.
 */
export const countEventCte = (programId: string, kind: string, createdAt: string, onlyIf?: string) => `counted AS (
       INSERT INTO tracking_hourly_counts (program_id, hour, kind, shard, events)
       SELECT ${programId}, ${hourOf(`${createdAt}::timestamptz`)}, ${kind}, (pg_backend_pid() % ${COUNTER_SHARDS})::smallint, 1
       ${onlyIf ? `WHERE EXISTS (SELECT 1 FROM ${onlyIf})` : ''}
       ON CONFLICT (program_id, hour, kind, shard) DO UPDATE SET events = tracking_hourly_counts.events + 1
     )`;
