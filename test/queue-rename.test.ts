// The processors' events queue was called `stripe-events` (issue 45, item 1). Jobs queued under
// that name before a deploy (new, and retrying after a failed attempt) and its dead letters must
// run after it, under the new name: the queue's start-up moves them and deletes the old queues.
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROCESSOR_EVENTS_DEAD_QUEUE, PROCESSOR_EVENTS_QUEUE } from '../src/core/queue-names.js';
import { startQueue } from '../src/platform/queue.js';
import { type TestDatabase, createTestDatabase } from './support/harness.js';

const POLICY = { retryLimit: 5, retryDelaySeconds: 5 };
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

const ignoreExists = (error: Error) => {
  if (!/already exists/i.test(error.message)) throw error;
};

/** What an earlier version left: jobs under the old names, one of them retrying, one dead-lettered. */
async function queueUnderOldNames(): Promise<{ ids: string[]; retrying: string }> {
  const old = new PgBoss({ connectionString: db.url, supervise: false, schedule: false });
  await old.start();
  try {
    await old.createQueue('stripe-events-dead', { name: 'stripe-events-dead', retryLimit: 0 }).catch(ignoreExists);
    await old.createQueue('stripe-events', { name: 'stripe-events', retryLimit: 5, retryDelay: 0, expireInSeconds: 20, deadLetter: 'stripe-events-dead' }).catch(ignoreExists);
    const ids: string[] = [];
    for (const inboxId of [101, 102, 103, 104]) ids.push((await old.send('stripe-events', { inboxId }))!);
    const [taken] = await old.fetch<{ inboxId: number }>('stripe-events', { batchSize: 1 });
    await old.fail('stripe-events', taken!.id, { message: 'waiting' });
    ids.push((await old.send('stripe-events-dead', { inboxId: 109 }))!);
    return { ids, retrying: taken!.id };
  } finally {
    await old.stop({ graceful: false, wait: true });
  }
}

describe('renaming the processors’ events queue', () => {
  it('moves every job queued under the old name to the new one at start, and they are processed there', async () => {
    const { ids, retrying } = await queueUnderOldNames();
    const boss = await startQueue(db.url, POLICY, { supervise: false });
    try {
      const jobs = await db.pool.query('SELECT id, name, state, retry_count, dead_letter FROM pgboss.job WHERE id = ANY ($1::uuid[]) ORDER BY name, created_on', [ids]);
      expect(jobs.rows.map((row) => row.id).sort()).toEqual([...ids].sort());
      expect(jobs.rows.filter((row) => row.name === PROCESSOR_EVENTS_QUEUE)).toHaveLength(4);
      expect(jobs.rows.find((row) => row.id === retrying)).toMatchObject({ state: 'retry', dead_letter: PROCESSOR_EVENTS_DEAD_QUEUE });
      expect(jobs.rows.filter((row) => row.name === PROCESSOR_EVENTS_DEAD_QUEUE)).toHaveLength(1);
      const old = await db.pool.query("SELECT name FROM pgboss.queue WHERE name LIKE 'stripe-events%'");
      expect(old.rows).toEqual([]);

      const processed: number[] = [];
      for (const queue of [PROCESSOR_EVENTS_QUEUE, PROCESSOR_EVENTS_DEAD_QUEUE]) {
        const fetched = await boss.fetch<{ inboxId: number }>(queue, { batchSize: 10 });
        processed.push(...fetched.map((job) => job.data.inboxId));
        await boss.complete(queue, fetched.map((job) => job.id));
      }
      expect(processed.sort()).toEqual([101, 102, 103, 104, 109]);
      const done = await db.pool.query("SELECT count(*)::int AS n FROM pgboss.job WHERE id = ANY ($1::uuid[]) AND state = 'completed'", [ids]);
      expect(done.rows[0].n).toBe(5);
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
    // Started again, with the old queues gone: nothing to move, nothing changes.
    const again = await startQueue(db.url, POLICY, { supervise: false });
    await again.stop({ graceful: false, wait: true });
    expect((await db.pool.query("SELECT count(*)::int AS n FROM pgboss.job WHERE id = ANY ($1::uuid[]) AND state = 'completed'", [ids])).rows[0].n).toBe(5);
  });
});
