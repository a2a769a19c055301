// Does the database answer? Bounded: a dry pool or a frozen server is "no" after the deadline.
import type { Pool } from './pool.js';

export async function databaseAnswers(pool: Pool, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = pool.query('SELECT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How far a replica's data is behind its primary, in seconds: 0 when it has replayed all it
 * received (an idle primary sends nothing, and nothing is behind) or is no standby at all;
 * otherwise the time since the last transaction it replayed committed (an upper bound: the
 * primary may have been idle before the change that waits).
 */
export async function replicaLagSeconds(pool: Pool): Promise<number> {
  const { rows } = await pool.query(
    `SELECT CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0
                 ELSE greatest(0, ceil(extract(epoch FROM now() - pg_last_xact_replay_timestamp())))::int END AS lag`,
  );
  return Number(rows[0]?.lag ?? 0);
}
