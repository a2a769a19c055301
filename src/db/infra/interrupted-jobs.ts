// Jobs whose worker died. pg-boss expires them and retries with the job's exponential backoff,
// so a job that had already waited a few times (a refund before its sale) would sit out minutes
// after an interruption that was no fault of its own. An interruption is not a failure: expired
// jobs with retries left go straight back to the queue. Those without are left to pg-boss's own
// expiry, which dead-letters them. (Written against pg-boss 10's job table, which we pin.)
import type { Pool } from './pool.js';

export async function resumeInterruptedJobs(pool: Pool, queue: string, expirySeconds: number): Promise<number> {
  const { rowCount } = await pool.query(
    `UPDATE pgboss.job
        SET state = 'retry', start_after = now(), retry_count = retry_count + 1,
            output = '{"message": "worker lost while the job ran; resumed"}'::jsonb
      WHERE name = $1 AND state = 'active' AND started_on < now() - make_interval(secs => $2)
        AND retry_count < retry_limit`,
    [queue, expirySeconds],
  );
  // pg-boss's own supervision can expire the job first: it is then back as a retry, but due only
  // after the job's backoff (minutes for a job that had waited before). An interruption is no
  // failure: due now.
  const { rowCount: expired } = await pool.query(
    `UPDATE pgboss.job SET start_after = now()
      WHERE name = $1 AND state = 'retry' AND start_after > now()
        AND output -> 'value' ->> 'message' = '${PG_BOSS_EXPIRY_MESSAGE}'`,
    [queue],
  );
  return (rowCount ?? 0) + (expired ?? 0);
}

/** What pg-boss 10 writes on a job it expired (plans.js, failJobsByTimeout). */
export const PG_BOSS_EXPIRY_MESSAGE = 'job failed by timeout in active state';
