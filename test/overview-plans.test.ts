// The overview and set-up pages cost the same whatever the program's history: beside 50,000
// tracking events recorded as a busy program records them (rounds of clicks, then their leads,
// then their sales, months of hourly counters, rollups and Stripe deliveries), every statement
// the two pages send reads the event tables through an index bounded by the period, the last
// day or a single row, never a scan that walks the history. The statements are the ones the
// routes really send (recorded on the app's pool), explained with their values and run
// (ANALYZE: rows read, never times). Activity for a period months back, and its CSV of the whole
// history, read the program's events through the index on (program, own time, id): the period is
// its condition and its order the page's, so no sort of the history (plans only, EXPLAIN: structure).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, createTestDatabase, seedProgram, startTestApi } from './support/harness.js';
import { type PlanNode, planNodes, recordStatements, sortsOfLargeTables } from './support/query-plans.js';
import { type Pool, createPool } from '../src/db/infra/pool.js';
import { sha256 } from '../src/core/secrets.js';

/** Tables whose rows grow with the program's history. */
const HISTORY = /^(clicks(_.*)?|tracking_events|tracking_hourly_counts|sales|customers|commissions|commission_ledger|refunds|webhook_events|page_rollups)$/;
/** More than a page's period of rollups or a day's events could hold here; far less than the history. */
const MOST_ROWS_READ = 1_000;
const ROUNDS = 10;
const CLICKS_PER_ROUND = 4_500;

let db: TestDatabase;
let appPool: Pool;
let api: TestApi;
let recorder: ReturnType<typeof recordStatements>;
let programId: number;
let cookie: string;

beforeAll(async () => {
  db = await createTestDatabase();
  appPool = createPool(db.url, { max: 5, applicationName: 'affix-test' });
  recorder = recordStatements(appPool);
  api = await startTestApi(appPool, { AFFIX_SECRET_KEY: 'overview-plans-test-secret-key-01' });
  const shop = await seedProgram(api);
  programId = shop.programId;
  // The history, written as the triggers would have written it (they are off while it is seeded).
  const seed = await db.pool.connect();
  try {
    await seed.query('SET session_replication_role = replica');
    for (let round = 0; round < ROUNDS; round++) {
      // Each round a month older: its clicks, then a tenth of them as leads, then a fiftieth as sales.
      const params = [programId, shop.linkId, shop.partnerId, round, CLICKS_PER_ROUND];
      const at = `now() - ($4::int * 30 + 2) * interval '1 day' - i * interval '1 minute'`;
      await seed.query(
        `WITH c AS (INSERT INTO clicks (click_id, program_id, link_id, partner_id, attributed_click_id, affiliate_url, created_at)
                    SELECT 'r' || $4 || '-' || i, $1, $2, $3, 'r' || $4 || '-' || i, 'https://shop.example.com/?aff=x', ${at} FROM generate_series(1, $5::int) i RETURNING click_id, created_at)
         INSERT INTO tracking_events (program_id, kind, click_id, created_at) SELECT $1, 'click', click_id, created_at FROM c`,
        params,
      );
      await seed.query(
        `WITH cu AS (INSERT INTO customers (program_id, customer_key, status, click_id, clicked_at, link_id, partner_id, lead_at)
                     SELECT $1, 'r' || $4 || '-' || i, 'lead', 'r' || $4 || '-' || i, ${at}, $2, $3, ${at} FROM generate_series(1, $5::int / 10) i RETURNING id, click_id, lead_at)
         INSERT INTO tracking_events (program_id, kind, customer_id, click_id, created_at) SELECT $1, 'lead', id, click_id, lead_at FROM cu`,
        params,
      );
      await seed.query(
        `WITH s AS (INSERT INTO sales (program_id, account_id, customer_id, partner_id, processor_event_id, amount_cents, currency, occurred_at, attribution_step, created_at)
                    SELECT $1, p.account_id, cu.id, $3, 'r' || $4 || '-' || cu.id, 5000, 'USD', cu.lead_at, 'click_id', cu.lead_at
                      FROM customers cu JOIN programs p ON p.id = cu.program_id
                     WHERE cu.program_id = $1 AND cu.link_id = $2 AND cu.customer_key LIKE 'r' || $4 || '-%' AND cu.id % 5 = 0 AND $5::int > 0 RETURNING id, customer_id, created_at)
         INSERT INTO tracking_events (program_id, kind, customer_id, sale_id, created_at, sale_occurred_at) SELECT $1, 'sale', customer_id, id, created_at, created_at FROM s`,
        params,
      );
    }
    await seed.query(
      `INSERT INTO tracking_hourly_counts (program_id, hour, kind, shard, events)
       SELECT $1, date_bin('1 hour', created_at, timestamptz '2000-01-01 00:00:00+00'), kind, 0, count(*) FROM tracking_events WHERE program_id = $1 GROUP BY 2, 3`,
      [programId],
    );
    await seed.query(
      `INSERT INTO page_rollups (program_id, partner_id, day, link_id, measure, currency, shard, value)
       SELECT $1, p.partner_id, utc_day(e.created_at), -1, e.kind || 's', '', -1, count(*)
         FROM tracking_events e CROSS JOIN (VALUES (-1), ($2::bigint)) p (partner_id) WHERE e.program_id = $1 GROUP BY 2, 3, 5`,
      [programId, shop.partnerId],
    );
    // Other partners' rows for every day of the history: the rollups of a program with a partner base.
    await seed.query(
      `INSERT INTO page_rollups (program_id, partner_id, day, link_id, measure, currency, shard, value)
       SELECT $1, 1000000 + p, utc_day(now()) - d, -1, m, '', -1, 1 FROM generate_series(1, 300) d, generate_series(1, 30) p, unnest('{clicks,leads,sales}'::text[]) m`,
      [programId],
    );
    await seed.query(
      `INSERT INTO webhook_events (event_key, endpoint, program_id, type, livemode, status, payload, received_at)
       SELECT 'evt_' || i, 'program', $1, 'checkout.session.completed', true, 'processed', '{}', now() - i * interval '10 minutes' FROM generate_series(1, 20000) i`,
      [programId],
    );
  } finally {
    await seed.query('RESET session_replication_role');
    seed.release();
  }
  await db.pool.query('ANALYZE');
  const token = randomBytes(24).toString('base64url');
  await db.pool.query("INSERT INTO dashboard_sessions (token_hash, account_id, expires_at) VALUES ($1, $2, now() + interval '1 hour')", [sha256(token), shop.accountId]);
  cookie = `affix_dashboard=${token}`;
}, 120_000);

afterAll(async () => {
  await api?.close();
  await appPool?.end();
  await db?.drop();
});

/** What a scan of a history table does wrong: a Seq Scan, or more rows read than a bounded read could (`most`). */
function historyScans(plan: PlanNode, most = MOST_ROWS_READ): string[] {
  return planNodes(plan).flatMap((node) => {
    const relation = node['Relation Name'];
    if (!relation || !HISTORY.test(relation)) return [];
    const n = node as PlanNode & { 'Actual Rows': number; 'Actual Loops': number; 'Rows Removed by Filter'?: number; 'Rows Removed by Index Recheck'?: number };
    const read = n['Actual Rows'] * n['Actual Loops'] + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0);
    const wrong = [];
    if (node['Node Type'] === 'Seq Scan') wrong.push(`Seq Scan on ${relation}`);
    if (read > most) wrong.push(`${node['Node Type']} on ${relation}${node['Index Name'] ? ` (${node['Index Name']})` : ''} read ${read} rows`);
    return wrong;
  });
}

/** The per-partner rollup rows of the leaderboard's period (its statement's program and days). */
async function periodPartnerRows([program, from, to]: unknown[]): Promise<number> {
  const { rows } = await db.pool.query(
    `SELECT count(*)::int AS n FROM page_rollups WHERE program_id = $1 AND partner_id > 0 AND link_id = -1
        AND day >= utc_day($2::timestamptz) AND day <= utc_day($3::timestamptz - interval '1 microsecond')`,
    [program, from, to],
  );
  return rows[0].n;
}

describe('the overview and set-up pages beside a long history', () => {
  it('read the event tables only through bounded index reads', async () => {
    const totals = (await db.pool.query('SELECT kind, count(*)::int AS n FROM tracking_events WHERE program_id = $1 GROUP BY kind ORDER BY kind', [programId])).rows;
    expect(totals).toEqual([{ kind: 'click', n: 45_000 }, { kind: 'lead', n: 4_500 }, { kind: 'sale', n: 900 }]);
    const offending: string[] = [];
    let explained = 0;
    for (const path of [`/dashboard/programs/${programId}`, `/dashboard/programs/${programId}/setup`]) {
      recorder.sent.length = 0;
      const response = await recorder.during(path, () => fetch(`${api.url}${path}`, { headers: { cookie }, redirect: 'manual' }));
      expect(response.status, path).toBe(200);
      await response.text();
      const reads = recorder.sent.filter((s) => /^\s*(SELECT|WITH)\b/i.test(s.text));
      expect(reads.length).toBeGreaterThan(2);
      for (const statement of reads) {
        const { rows } = await db.pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
        explained++;
        // The leaderboard ranks every partner with numbers in the period: it reads the period's
        // per-partner rows (30 partners a day here), never the days before it (300 days of them).
        const leaderboard = /partner_id > 0 AND link_id = -1/.test(statement.text);
        const most = leaderboard ? await periodPartnerRows(statement.values as unknown[]) : MOST_ROWS_READ;
        if (leaderboard) expect(most).toBeLessThan(30 * 3 * 31);
        const wrong = historyScans(rows[0]['QUERY PLAN'][0].Plan, most);
        if (wrong.length > 0) offending.push(`${path}: ${wrong.join(', ')}\n    ${statement.text.replace(/\s+/g, ' ').slice(0, 300)}`);
      }
    }
    expect(explained).toBeGreaterThan(8);
    expect(offending, `reads that walk the history:\n${offending.join('\n')}`).toEqual([]);
  });
});

describe('Activity beside a long history', () => {
  it("reads a period's events through the index on (program, own time, id), with no sort of the history, on the page and in its CSV", async () => {
    // Round 3's events (92 to 95 days ago), of 10 months of them.
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const period = `from=${day(100)}&to=${day(85)}`;
    const paths = [
      `/dashboard/programs/${programId}/activity?${period}`,
      `/dashboard/programs/${programId}/activity?${period}&mode=live&page=2`,
      // The whole history, a keyset page of 1,000 at a time: each page the next rows of the index.
      // (A short period's CSV may sort that period's few rows: the planner's choice, never the history.)
      `/dashboard/programs/${programId}/activity.csv?from=${day(400)}&to=${day(0)}`,
    ];
    const offending: string[] = [];
    let explained = 0;
    for (const path of paths) {
      recorder.sent.length = 0;
      const response = await recorder.during(path, () => fetch(`${api.url}${path}`, { headers: { cookie }, redirect: 'manual' }));
      expect(response.status, path).toBe(200);
      await response.text();
      const reads = recorder.sent.filter((s) => /^\s*(SELECT|WITH)\b/i.test(s.text) && /FROM tracking_events e\b/.test(s.text));
      expect(reads.length, path).toBeGreaterThan(0);
      for (const statement of reads) {
        const { rows } = await db.pool.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
        const plan: PlanNode = rows[0]['QUERY PLAN'][0].Plan;
        explained++;
        const events = planNodes(plan).filter((node) => node['Relation Name'] === 'tracking_events' && node['Index Name'] !== 'tracking_events_pkey');
        const wrong = [
          ...events.filter((node) => node['Index Name'] !== 'tracking_events_program_own_time_idx' || !/coalesce\(sale_occurred_at, created_at\) >=/i.test(node['Index Cond'] ?? ''))
            .map((node) => `${node['Node Type']}${node['Index Name'] ? ` (${node['Index Name']}: ${node['Index Cond'] ?? 'no condition'})` : ''}`),
          ...sortsOfLargeTables(plan, new Set(['tracking_events'])),
        ];
        if (events.length === 0) wrong.push('no read of tracking_events');
        if (wrong.length > 0) offending.push(`${path}: ${wrong.join(', ')}\n    ${statement.text.replace(/\s+/g, ' ').slice(0, 300)}`);
      }
    }
    expect(explained).toBeGreaterThanOrEqual(3);
    expect(offending, `Activity's reads of the history:\n${offending.join('\n')}`).toEqual([]);
  });
});
