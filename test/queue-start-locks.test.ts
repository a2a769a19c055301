// A worker starting while webhooks are being stored (a deploy, a restart during a burst) must not
// stop the intake: the queue's set-up takes no lock on pg-boss's job table once its index exists.
// Before, its CREATE INDEX IF NOT EXISTS waited for a SHARE lock behind every open intake
// transaction, every new intake insert queued behind it, and after lock_timeout the worker did not start.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROCESSOR_EVENTS_QUEUE } from '../src/core/queue-names.js';
import { startQueue } from '../src/platform/queue.js';
import { type TestDatabase, createTestDatabase } from './support/harness.js';

const POLICY = { retryLimit: 5, retryDelaySeconds: 5 };
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  const first = await startQueue(db.url, POLICY, { supervise: false });
  await first.stop({ graceful: false, wait: true });
});

afterAll(async () => {
  await db?.drop();
});

describe('starting the queue beside the intake', () => {
  it("a worker starts while an intake transaction holds its job row, and takes no lock on the job table", async () => {
    const intake = new pg.Client({ connectionString: db.url });
    await intake.connect();
    try {
      await intake.query('BEGIN');
      await intake.query(`INSERT INTO pgboss.job (name, data) VALUES ($1, '{"inboxId": 1}')`, [PROCESSOR_EVENTS_QUEUE]);
      const boss = await startQueue(db.url, POLICY, { supervise: false });
      await boss.stop({ graceful: false, wait: true });
      const { rows } = await db.pool.query(
        `SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted AND relation = 'pgboss.job'::regclass`,
      );
      expect(rows[0].waiting).toBe(0);
    } finally {
      await intake.query('ROLLBACK').catch(() => undefined);
      await intake.end();
    }
  });
});
