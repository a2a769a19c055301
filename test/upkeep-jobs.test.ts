// Periodic work is on one clock: pg-boss's schedules (docs/operations.md, "Periodic work"). The
// upkeep that an API timer and a worker timer ran is now two scheduled jobs; a job sent to their
// queues does their work (what the clock sends each minute and each hour).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, createTestDatabase, startTestApi } from './support/harness.js';

const ENV = { AFFIX_SECRET_KEY: 'upkeep-jobs-secret-key-0123456789' };
let db: TestDatabase;
let api: TestApi;

/** Polled until true (never a fixed wait). */
async function until(what: string, done: () => Promise<boolean>) {
  for (let tries = 0; tries < 1_000; tries++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never: ${what}`);
}

beforeAll(async () => {
  db = await createTestDatabase();
  // A supervising queue with its workers, as `affix start` runs them.
  api = await startTestApi(db.pool, ENV, { queueUrl: db.url, workers: true });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe('periodic upkeep', () => {
  it('every periodic job is a pg-boss schedule: bounties, click rewards each hour, approvals, digests, housekeeping each minute, upkeep each hour, payouts followed', async () => {
    const { rows } = await db.pool.query('SELECT name, cron, timezone FROM pgboss.schedule ORDER BY name');
    expect(rows).toEqual([
      { name: 'bounty-checks', cron: '*/5 * * * *', timezone: 'UTC' },
      { name: 'click-rewards', cron: '15 * * * *', timezone: 'UTC' },
      { name: 'commission-approvals', cron: '*/10 * * * *', timezone: 'UTC' },
      { name: 'commission-digests', cron: '0 7 * * *', timezone: 'UTC' },
      { name: 'hourly-upkeep', cron: '0 * * * *', timezone: 'UTC' },
      { name: 'housekeeping', cron: '* * * * *', timezone: 'UTC' },
      { name: 'provider-payouts-follow', cron: '*/5 * * * *', timezone: 'UTC' },
    ]);
  });

  it('the housekeeping job drops ended rate-limit windows; the hourly job folds the rollups’ shards', async () => {
    await db.pool.query(
      `INSERT INTO rate_limit_counters (bucket, window_start, hits, expires_at) VALUES
         ('upkeep_hour', now() - interval '30 minutes', 7, now() + interval '30 minutes'),
         ('upkeep_minute', now() - interval '11 minutes', 3, now() - interval '10 minutes')`,
    );
    await api.queue!.send('housekeeping', {});
    await until('the ended window is dropped', async () => (await db.pool.query("SELECT 1 FROM rate_limit_counters WHERE bucket = 'upkeep_minute'")).rowCount === 0);
    expect((await db.pool.query("SELECT bucket FROM rate_limit_counters WHERE bucket LIKE 'upkeep_%'")).rows).toEqual([{ bucket: 'upkeep_hour' }]);

    // Two shards of one rollup row, as two connections write them; the hourly job folds them into shard -1.
    await db.pool.query(
      `INSERT INTO page_rollups (program_id, partner_id, day, link_id, measure, currency, shard, value) VALUES
         (424242, -1, '2026-01-01', -1, 'clicks', '', 11, 2), (424242, -1, '2026-01-01', -1, 'clicks', '', 12, 3)`,
    );
    await api.queue!.send('hourly-upkeep', {});
    await until('the shards are folded', async () => (await db.pool.query('SELECT 1 FROM page_rollups WHERE program_id = 424242 AND shard <> -1')).rowCount === 0);
    expect((await db.pool.query('SELECT shard, value::int FROM page_rollups WHERE program_id = 424242')).rows).toEqual([{ shard: -1, value: 5 }]);
  });
});
