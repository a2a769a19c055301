// The rollup triggers take a statement of any size in bounded memory (migration 0047): one
// INSERT … SELECT of 200,000 clicks over several links and days (some of them test clicks), one
// of 12,000 sales whose customers buy twice (a customer's first sale and the next in different
// slices), their 12,000 commissions and one UPDATE of all of them: each statement succeeds and
// the rollups equal a count of the rows themselves. No trigger gathers its whole statement's
// rows into one array (an array is one allocation of at most 1 GB: about 7 M clicks failed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestDatabase, addPartnerLink, createTestDatabase, seedProgram, startTestApi } from './support/harness.js';
import { recountRollups, rolledUp } from './support/rollups.js';
import { type Pool, createPool } from '../src/db/infra/pool.js';

let db: TestDatabase;
let api: TestApi;
/** Statements of this size take seconds, past the API's statement timeout. */
let bulk: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(db.pool, { AFFIX_SECRET_KEY: 'bulk-rollups-test-secret-key-0123' });
  bulk = createPool(db.url, { max: 1, statementTimeoutMs: 120_000 });
});
afterAll(async () => {
  await api?.close();
  await bulk?.end();
  await db?.drop();
});

describe('rollup triggers and large statements', () => {
  it('one statement of 200,000 clicks, 12,000 sales, their commissions and an update of all: the rollups equal a recount', async () => {
    const shop = await seedProgram(api);
    const other = await addPartnerLink(api, shop.programId);
    const links = `(VALUES (${shop.linkId}::bigint, ${shop.partnerId}::bigint), (${other.linkId}, ${other.partnerId}))`;
    const clicked = await bulk.query(
      `INSERT INTO clicks (click_id, program_id, link_id, partner_id, attributed_click_id, affiliate_url, test, created_at)
       SELECT 'bulk-' || i, $1, l.link_id, l.partner_id, 'bulk-' || i, 'https://shop.example.com/?aff=x', i % 97 = 0, now() - (i % 40) * interval '1 day'
         FROM generate_series(1, 200000) i CROSS JOIN LATERAL (SELECT * FROM ${links} l (link_id, partner_id) OFFSET (i % 2) LIMIT 1) l`,
      [shop.programId],
    );
    expect(clicked.rowCount).toBe(200_000);

    await bulk.query(
      `INSERT INTO customers (program_id, customer_key, status, click_id, clicked_at, link_id, partner_id, lead_at)
       SELECT $1, 'bulk-' || i, 'customer', 'bulk-' || i, c.created_at, c.link_id, c.partner_id, c.created_at + interval '1 minute'
         FROM generate_series(1, 6000) i JOIN clicks c ON c.click_id = 'bulk-' || i`,
      [shop.programId],
    );
    const sold = await bulk.query(
      `INSERT INTO sales (program_id, account_id, customer_id, partner_id, processor_event_id, amount_cents, currency, occurred_at, attribution_step, test)
       SELECT $1, $2, cu.id, cu.partner_id, 'bulk-sale-' || n || '-' || cu.id, 1000 + n, CASE WHEN cu.id % 3 = 0 THEN 'EUR' ELSE 'USD' END,
              cu.lead_at + n * interval '1 hour', 'click_id', cu.id % 101 = 0
         FROM customers cu CROSS JOIN generate_series(1, 2) n WHERE cu.program_id = $1 ORDER BY n, cu.id`,
      [shop.programId, shop.accountId],
    );
    expect(sold.rowCount).toBe(12_000);
    await bulk.query(
      `INSERT INTO commissions (sale_id, program_id, partner_id, amount_cents, currency, test)
       SELECT id, program_id, partner_id, amount_cents / 5, currency, test FROM sales WHERE program_id = $1`,
      [shop.programId],
    );
    const approved = await bulk.query(
      `UPDATE commissions SET stage = CASE WHEN id % 2 = 0 THEN 'approved' ELSE stage END, deducted_cents = CASE WHEN id % 7 = 0 THEN amount_cents ELSE 0 END
        WHERE program_id = $1`,
      [shop.programId],
    );
    expect(approved.rowCount).toBe(12_000);

    const truth = await recountRollups(bulk, shop.programId);
    expect(truth.find((row) => row.partner_id === -1 && row.measure === 'clicks' && row.day === 'infinity')).toBeUndefined();
    expect(truth.filter((row) => row.partner_id === -1 && row.measure === 'clicks').reduce((n, row) => n + row.value, 0)).toBe(200_000 - Math.floor(200_000 / 97));
    expect(truth.filter((row) => row.partner_id === -1 && row.measure === 'buyers').reduce((n, row) => n + row.value, 0)).toBeGreaterThan(5_000);
    expect(await rolledUp(bulk, shop.programId)).toEqual(truth);
  }, 120_000);

  it('no rollup trigger gathers its whole statement into one array', async () => {
    const { rows } = await db.pool.query(
      `SELECT DISTINCT p.proname, p.prosrc FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE NOT t.tgisinternal AND p.proname LIKE 'rollup%' ORDER BY 1`,
    );
    expect(rows.map((r) => r.proname)).toEqual(['rollup_commission_changed', 'rollup_lead_recorded', 'rollup_recorded']);
    const whole = rows.filter((r) => /ARRAY\s*\(\s*SELECT[^;]*?FROM\s+(added|before|after)\b/i.test(r.prosrc)).map((r) => r.proname);
    expect(whole, 'triggers that build one array of their transition table').toEqual([]);
  });
});
