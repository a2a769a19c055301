// Jobs of a queue that was renamed: moved to the queue's new name at start-up, so that a job
// queued (or retrying) before a deploy runs after it. Written against pg-boss 10's tables (which
// we pin): a queue is a row of <schema>.queue and a partition of <schema>.job (create_queue).
import pg from 'pg';

interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rowCount: number | null; rows: any[] }>;
}

export interface QueueRename {
  from: string;
  to: string;
}

const JOB_COLUMNS = `id, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff, start_after, started_on,
  singleton_key, singleton_on, expire_in, created_on, completed_on, keep_until, output, policy`;

/**
 * Moves every job of each old queue to its new name (ids, states, retry counts and times kept;
 * a dead letter that names an old queue names the new one), then deletes the old queues. The
 * new queues must exist. Run inside the caller's transaction: the jobs move together or not at
 * all. A job an old worker still runs moves too: its completion under the old name finds
 * nothing, and the job expires and runs again (a job first checks its event's state). Nothing to
 * do once the old queues are gone. Returns the jobs moved.
 */
export async function moveRenamedQueues(db: Queryable, schema: string, renames: readonly QueueRename[]): Promise<number> {
  const s = pg.escapeIdentifier(schema);
  const from = renames.map((r) => r.from);
  const to = renames.map((r) => r.to);
  const old = await db.query(`SELECT name FROM ${s}.queue WHERE name = ANY ($1::text[]) FOR UPDATE`, [from]);
  if (!old.rowCount) return 0;
  const moved = await db.query(
    `WITH renames AS (SELECT * FROM unnest($1::text[], $2::text[]) AS r (old_name, new_name)),
     old AS (DELETE FROM ${s}.job j USING renames r WHERE j.name = r.old_name RETURNING j.*, r.new_name)
     INSERT INTO ${s}.job (name, dead_letter, ${JOB_COLUMNS})
     SELECT old.new_name, coalesce((SELECT new_name FROM renames WHERE old_name = old.dead_letter), old.dead_letter), ${JOB_COLUMNS}
       FROM old`,
    [from, to],
  );
  // Jobs of other queues whose dead letter was renamed.
  await db.query(
    `UPDATE ${s}.job j SET dead_letter = r.new_name FROM unnest($1::text[], $2::text[]) AS r (old_name, new_name) WHERE j.dead_letter = r.old_name`,
    [from, to],
  );
  // In the order given: a queue before the dead letter it names.
  for (const name of from) if (old.rows.some((row) => row.name === name)) await db.query(`SELECT ${s}.delete_queue($1)`, [name]);
  return moved.rowCount ?? 0;
}
