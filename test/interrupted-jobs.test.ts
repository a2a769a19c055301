// An interrupted job is back within seconds, never after its retry backoff: whether our sweep
// finds it still active, or pg-boss's own supervision expired it first (then it is a retry due
// only after the backoff: minutes for a job that had waited a few times).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { resumeInterruptedJobs } from '../src/db/infra/interrupted-jobs.js';
import { PROCESSOR_EVENTS_QUEUE } from '../src/core/queue-names.js';
import { JOB_EXPIRY_SECONDS } from '../src/platform/queue.js';
import { type TestApi, type TestDatabase } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';

let db: TestDatabase;
let api: TestApi;
// pg-boss's own statement for expiring jobs, as its supervision runs it (the version we pin).
const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as { failJobsByTimeout(schema: string): string };

useSeededApi({ options: { queueUrl: 'own' } }, (t) => ({ db, api } = t));

/** A job that had already waited `retries` times and whose worker died `minutesAgo` minutes ago. */
async function interruptedJob(retries: number, minutesAgo: number): Promise<string> {
  const id = (await api.queue!.send(PROCESSOR_EVENTS_QUEUE, { inboxId: 999_999 }))!;
  await db.pool.query(
    `UPDATE pgboss.job SET state = 'active', retry_count = $2, started_on = now() - make_interval(mins => $3), expire_in = interval '20 seconds' WHERE id = $1`,
    [id, retries, minutesAgo],
  );
  return id;
}

const dueIn = async (id: string) =>
  Number((await db.pool.query('SELECT state, extract(epoch FROM start_after - now()) AS seconds FROM pgboss.job WHERE id = $1', [id])).rows[0].seconds);

describe('interrupted jobs', () => {
  it('expired by pg-boss first (due after its backoff), the sweep makes it due now', async () => {
    const id = await interruptedJob(6, 2);
    await db.pool.query(plans.failJobsByTimeout('pgboss'));
    expect(await dueIn(id)).toBeGreaterThan(60); // what pg-boss alone leaves: minutes of backoff
    expect(await resumeInterruptedJobs(db.pool, PROCESSOR_EVENTS_QUEUE, JOB_EXPIRY_SECONDS)).toBeGreaterThanOrEqual(1);
    expect(await dueIn(id)).toBeLessThanOrEqual(0);
  });

  it('still active past its expiry, the sweep puts it back at once', async () => {
    const id = await interruptedJob(3, 2);
    await resumeInterruptedJobs(db.pool, PROCESSOR_EVENTS_QUEUE, JOB_EXPIRY_SECONDS);
    const { rows } = await db.pool.query('SELECT state FROM pgboss.job WHERE id = $1', [id]);
    expect(rows[0].state).toBe('retry');
    expect(await dueIn(id)).toBeLessThanOrEqual(0);
  });

  it('a job that failed for a real reason keeps its backoff', async () => {
    const id = (await api.queue!.send(PROCESSOR_EVENTS_QUEUE, { inboxId: 999_998 }))!;
    await db.pool.query(`UPDATE pgboss.job SET state = 'retry', start_after = now() + interval '5 minutes', output = '{"message": "the sale this refers to is not recorded yet"}' WHERE id = $1`, [id]);
    await resumeInterruptedJobs(db.pool, PROCESSOR_EVENTS_QUEUE, JOB_EXPIRY_SECONDS);
    expect(await dueIn(id)).toBeGreaterThan(200);
  });
});
