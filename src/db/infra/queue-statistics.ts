// The job table's planner statistics. A queue swings from empty to a backlog of thousands within
// seconds; until autovacuum's next pass the planner still believes the table holds a handful of
// rows, and pg-boss's completion (`id IN (...)`) then scanned every job of the queue instead of
// probing the ids (docs/operations.md, "Performance"). A worker that starts on a backlog (a
// restart, a recovered outage: when draining fast matters most) analyzes it first.
import type { Pool } from './pool.js';

export async function analyzeJobTable(pool: Pool, schema: string): Promise<void> {
  const { rows } = await pool.query('SELECT to_regclass($1) AS job', [`${schema}.job`]);
  if (rows[0].job) await pool.query(`ANALYZE ${rows[0].job}`);
}
