// Readiness's 24-hour counts come from hourly counters plus the first, partial hour by index
// (src/db/tracking/store.ts). They must equal an exact count at any moment, whatever the hour boundary.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { compactHourlyCounts } from '../src/db/tracking/hourly-counts.js';
import { PgStore } from '../src/db/tracking/store.js';
import { type TestDatabase, createTestDatabase } from './support/harness.js';

let db: TestDatabase;
let store: PgStore;
let programId = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  store = new PgStore(db.pool);
  const account = await db.pool.query("INSERT INTO accounts (email) VALUES ('counts@example.com') RETURNING id");
  const program = await db.pool.query(
    `INSERT INTO programs (account_id, name, domain, commission_type, commission_rate) VALUES ($1, 'Counts', 'counts.example', 'percent', 10) RETURNING id`,
    [account.rows[0].id],
  );
  programId = program.rows[0].id;
});
afterAll(async () => {
  await db?.drop();
});

const record = (kind: 'click' | 'lead' | 'sale', at: Date) =>
  store.transaction((tx) => tx.insertTrackingEvent({ programId, kind, customerId: null, clickId: null, saleId: null, test: false, details: {}, createdAt: at }));

it('equals an exact count of the last 24 hours at any minute, across hour boundaries', async () => {
  const base = Date.parse('2030-03-10T12:00:00Z');
  const minutes = [-1500, -1441, -1439, -1400, -1381, -1380, -700, -61, -60, -59, -1, 0, 1];
  for (const [index, minute] of minutes.entries()) await record((['click', 'lead', 'sale'] as const)[index % 3]!, new Date(base + minute * 60_000));
  for (const offset of [0, 1, 19, 20, 21, 59, 60, 61, 90]) {
    const now = new Date(base + offset * 60_000);
    const facts = await store.readinessFacts(programId, now);
    const exact = (await db.pool.query(
      `SELECT count(*) FILTER (WHERE kind = 'click')::int AS clicks, count(*) FILTER (WHERE kind = 'lead')::int AS leads, count(*) FILTER (WHERE kind = 'sale')::int AS sales
         FROM tracking_events WHERE program_id = $1 AND created_at > $2`,
      [programId, new Date(now.getTime() - 86_400_000)],
    )).rows[0];
    expect({ offset, clicks: facts.clicks24h, leads: facts.leads24h, sales: facts.sales24h }).toEqual({ offset, ...exact });
  }
});

it('folding past hours into one counter row each changes no count; the current hour is left as it is', async () => {
  const account = await db.pool.query("INSERT INTO accounts (email) VALUES ('fold@example.com') RETURNING id");
  const programId = (await db.pool.query(
    `INSERT INTO programs (account_id, name, domain, commission_type, commission_rate) VALUES ($1, 'Fold', 'fold.example', 'percent', 10) RETURNING id`,
    [account.rows[0].id],
  )).rows[0].id;
  await db.pool.query('DELETE FROM tracking_hourly_counts WHERE shard <> 0'); // the other test's rows: only this test's are folded
  const now = new Date('2030-05-01T10:30:00Z');
  const hour = (h: number) => new Date(Date.parse('2030-05-01T10:00:00Z') + h * 3_600_000);
  // Shards as many connections leave them: three past hours and the current one.
  for (const [at, shard, events] of [[hour(-3), 1, 4], [hour(-3), 7, 5], [hour(-2), 0, 2], [hour(-2), 9, 3], [hour(-1), 63, 1], [hour(0), 5, 6], [hour(0), 6, 7]] as const) {
    await db.pool.query(
      "INSERT INTO tracking_hourly_counts (program_id, hour, kind, shard, events) VALUES ($1, $2, 'click', $3, $4)",
      [programId, at, shard, events],
    );
  }
  const rows = () =>
    db.pool.query('SELECT hour, shard, events FROM tracking_hourly_counts WHERE program_id = $1 AND hour >= $2 ORDER BY hour, shard', [programId, hour(-3)]);
  const before = await store.readinessFacts(programId, now);
  expect(await compactHourlyCounts(db.pool, now)).toBe(4);
  expect((await rows()).rows).toEqual([
    { hour: hour(-3), shard: 0, events: 9 },
    { hour: hour(-2), shard: 0, events: 5 },
    { hour: hour(-1), shard: 0, events: 1 },
    { hour: hour(0), shard: 5, events: 6 },
    { hour: hour(0), shard: 6, events: 7 },
  ]);
  expect(await store.readinessFacts(programId, now)).toEqual(before);
  expect(before.clicks24h).toBe(28);
  // Idempotent: nothing left to fold.
  expect(await compactHourlyCounts(db.pool, now)).toBe(0);
});
