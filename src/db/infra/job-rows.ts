// Jobs written by our own statements, inside the transaction of the row they process: the
// same columns and queue policy pg-boss's own insert uses (test/stripe-intake-statement.test.ts).
import pg from 'pg';

export interface JobRows {
  /** pg-boss's schema. */
  schema: string;
  /** SQL naming the queue (a parameter, e.g. `$15`): no such queue makes the statement fail. */
  queue: string;
  /** jsonb expression of each job's data. */
  data: string;
  /** FROM source of the rows that get a job (a CTE name). */
  from: string;
  where?: string;
  /** timestamptz expression: when the job may start (now when absent). */
  startAfter?: string;
}

export function insertJobs(rows: JobRows): string {
  const schema = pg.escapeIdentifier(rows.schema);
  return `INSERT INTO ${schema}.job (name, data, dead_letter, expire_in, keep_until, retry_limit, retry_delay, retry_backoff, policy${rows.startAfter ? ', start_after' : ''})
       SELECT q.name, ${rows.data}, q.dead_letter, coalesce(q.expire_seconds * interval '1s', interval '15 minutes'),
              now() + coalesce(q.retention_minutes * interval '1 minute', interval '14 days'), coalesce(q.retry_limit, 2),
              CASE WHEN coalesce(q.retry_backoff, false) THEN greatest(coalesce(q.retry_delay, 0), 1) ELSE coalesce(q.retry_delay, 0) END,
              coalesce(q.retry_backoff, false), q.policy${rows.startAfter ? `, ${rows.startAfter}` : ''}
         FROM ${rows.from} LEFT JOIN ${schema}.queue q ON q.name = ${rows.queue}
        ${rows.where ? `WHERE ${rows.where}` : ''}
       RETURNING id`;
}

/** One wake-up on `channel` (SQL naming it, e.g. `$16`) when the statement's `job` CTE wrote a job; null when it wrote none. */
export const notifyIfJobs = (channel: string) => `(SELECT pg_notify(${channel}, '') FROM job LIMIT 1)`;
