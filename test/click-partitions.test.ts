// Monthly click partitions made ahead by the workers (src/db/infra/partitions.ts), with an injected date.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureClickPartitions } from '../src/db/infra/partitions.js';
import { type TestDatabase, createTestDatabase } from './support/harness.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const insertClick = (at: string) =>
  db.pool.query(
    `INSERT INTO clicks (click_id, program_id, attributed_click_id, affiliate_url, created_at) VALUES ($1, 1, $1, 'https://x.example/?aff=a', $2)
     RETURNING tableoid::regclass::text AS partition`,
    [`clk_${at}`, at],
  );

it('creates this month and the next three once; clicks land in their month, not the default', async () => {
  expect(await ensureClickPartitions(db.pool, new Date('2031-11-20T10:00:00Z'))).toEqual(['clicks_y2031m11', 'clicks_y2031m12', 'clicks_y2032m01', 'clicks_y2032m02']);
  expect(await ensureClickPartitions(db.pool, new Date('2031-11-28T10:00:00Z'))).toEqual([]);
  expect((await insertClick('2031-12-31T23:59:59Z')).rows[0].partition).toBe('clicks_y2031m12');
  expect((await insertClick('2032-03-01T00:00:00Z')).rows[0].partition).toBe('clicks_default');
});

it('leaves a month whose clicks already sit in the default partition, and makes the next ones', async () => {
  await insertClick('2035-05-10T00:00:00Z');
  expect(await ensureClickPartitions(db.pool, new Date('2035-05-15T00:00:00Z'), 1)).toEqual(['clicks_y2035m06']);
});

it('old months detach without touching the rest (the documented way to archive)', async () => {
  await db.pool.query('ALTER TABLE clicks DETACH PARTITION clicks_y2031m11');
  expect((await insertClick('2031-12-01T00:00:00Z')).rows[0].partition).toBe('clicks_y2031m12');
  await db.pool.query('DROP TABLE clicks_y2031m11');
});
