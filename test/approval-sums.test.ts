// The Payouts page's approval sums ("approve the N commissions past their hold", per currency):
// equal to a recount of the commissions' rows in every state, with group holds kept on commissions,
// refunds, test mode and filters; and, opened without dates, they read only the commissions still
// inside their hold, however many older ones wait (docs/payouts.md, "Approving").
import { beforeAll, describe, expect, it } from 'vitest';
import { approvalSums } from '../src/db/money/commissions-and-payouts.js';
import { type SeededProgram, type TestApi, type TestDatabase, addPartnerLink, seedProgram } from './support/harness.js';
import { useSeededApi } from './support/seeded-api.js';
import { apiRefund, apiSale } from './support/money.js';
import { type PlanNode, planNodes } from './support/query-plans.js';

let db: TestDatabase;
let api: TestApi;
const DAY = 86_400_000;

useSeededApi({}, (t) => ({ db, api } = t));

/** The same sums counted from the rows: the commission_states view's 'pending', each against its own hold. */
async function recount(programId: number, now: Date, filter: { partner_id?: number; from?: Date; to?: Date } = {}) {
  const { rows } = await db.pool.query(
    `SELECT cs.currency, count(*)::int AS count, sum(cs.earned_cents)::int AS cents,
            count(*) FILTER (WHERE c.created_at <= $2::timestamptz - make_interval(days => coalesce(c.hold_days, p.hold_days)))::int AS past_count,
            coalesce(sum(cs.earned_cents) FILTER (WHERE c.created_at <= $2::timestamptz - make_interval(days => coalesce(c.hold_days, p.hold_days))), 0)::int AS past_cents
       FROM commission_states cs JOIN commissions c ON c.id = cs.id JOIN programs p ON p.id = c.program_id
      WHERE cs.program_id = $1 AND cs.state = 'pending' AND ($3::bigint IS NULL OR c.partner_id = $3)
        AND ($4::timestamptz IS NULL OR c.created_at >= $4) AND ($5::timestamptz IS NULL OR c.created_at < $5)
      GROUP BY cs.currency ORDER BY cs.currency`,
    [programId, now, filter.partner_id ?? null, filter.from ?? null, filter.to ?? null],
  );
  return rows.map((r) => ({ currency: r.currency, count: r.count, cents: r.cents, pastHoldCount: r.past_count, pastHoldCents: r.past_cents }));
}

const made = (commissionId: number, daysAgo: number, holdDays: number | null = null) =>
  db.pool.query('UPDATE commissions SET created_at = now() - make_interval(days => $2), hold_days = $3 WHERE id = $1', [commissionId, daysAgo, holdDays]);

describe('approval sums', () => {
  let shop: SeededProgram;
  let other: { partnerId: number; apiKey: string; affiliateUrl: string };

  beforeAll(async () => {
    shop = await seedProgram(api, { commission_rate: 10 });
    const second = await addPartnerLink(api, shop.programId);
    other = { partnerId: second.partnerId, apiKey: shop.apiKey, affiliateUrl: `https://shop.example.com/pricing?aff=${second.shortLink}` };
    const sale = async (program: { apiKey: string; affiliateUrl: string }, cents: number, currency = 'USD') => (await apiSale(api, program, cents, { currency })).commissionId!;
    // Past the program's 30-day hold; inside it; another currency; another partner.
    await made(await sale(shop, 10_000), 40);
    await made(await sale(shop, 20_000), 3);
    await made(await sale(shop, 30_000, 'EUR'), 50);
    await made(await sale(other, 40_000), 35);
    await made(await sale(other, 45_000), 1);
    // A group's 60-day hold kept on the commission: past the program's hold, not its own; a 5-day one, past.
    await made(await sale(shop, 50_000), 45, 60);
    await made(await sale(other, 55_000), 10, 5);
    // Partly refunded (earns the rest); fully refunded (earns nothing); approved; held for review; test mode.
    const partly = await apiSale(api, shop, 60_000);
    await apiRefund(api, shop, partly.transactionId, 10_000);
    await made(partly.commissionId!, 33);
    const whole = await apiSale(api, shop, 70_000);
    await apiRefund(api, shop, whole.transactionId);
    await made(whole.commissionId!, 60);
    const approved = await sale(shop, 80_000);
    await db.pool.query("UPDATE commissions SET stage = 'approved' WHERE id = $1", [approved]);
    const held = await sale(shop, 90_000);
    await db.pool.query("UPDATE commissions SET stage = 'held', hold_reasons = '{fast_signup}' WHERE id = $1", [held]);
    await made(held, 70);
    const test = await sale(other, 95_000);
    await db.pool.query('UPDATE commissions SET test = true WHERE id = $1', [test]);
    await made(test, 90);
  });

  it('equal a recount of the rows: the whole program, a partner, a date range', async () => {
    const now = new Date();
    const all = await approvalSums(db.pool, shop.programId, {}, now);
    expect(all).toEqual(await recount(shop.programId, now));
    // USD: 1,000 + 2,000 + 4,000 + 4,500 + 5,000 + 5,500 + 5,000 (partly refunded); past: 1,000 + 4,000 + 5,500 + 5,000.
    expect(all).toEqual([
      { currency: 'EUR', count: 1, cents: 3_000, pastHoldCount: 1, pastHoldCents: 3_000 },
      { currency: 'USD', count: 7, cents: 27_000, pastHoldCount: 4, pastHoldCents: 15_500 },
    ]);
    expect(await approvalSums(db.pool, shop.programId, { partner_id: other.partnerId }, now)).toEqual(await recount(shop.programId, now, { partner_id: other.partnerId }));
    const range = { from: new Date(now.getTime() - 42 * DAY), to: new Date(now.getTime() - 2 * DAY) };
    expect(await approvalSums(db.pool, shop.programId, range, now)).toEqual(await recount(shop.programId, now, range));
    expect(await approvalSums(db.pool, shop.programId, { ...range, partner_id: shop.partnerId }, now)).toEqual(await recount(shop.programId, now, { ...range, partner_id: shop.partnerId }));
    // Later: everything past its hold, the 60-day one included.
    const later = new Date(now.getTime() + 61 * DAY);
    expect(await approvalSums(db.pool, shop.programId, {}, later)).toEqual(await recount(shop.programId, later));
    expect((await approvalSums(db.pool, shop.programId, {}, later)).map((s) => s.count - s.pastHoldCount)).toEqual([0, 0]);
  });

  it('opened without dates, read only the commissions inside their hold, however many older ones wait', async () => {
    const big = await seedProgram(api, { commission_rate: 10 });
    const OLD = 3_000;
    // 3,000 sales of a year ago, each with its pending commission (made as the tracking path makes them, rollups by the database's triggers).
    await db.pool.query(
      `WITH cu AS (
         INSERT INTO customers (program_id, customer_key, status, link_id, partner_id, lead_at)
         SELECT $1, 'old_' || g, 'lead', $2, $3, now() - interval '200 days' FROM generate_series(1, $4) g RETURNING id, lead_at),
       s AS (
         INSERT INTO sales (program_id, account_id, customer_id, partner_id, processor_event_id, amount_cents, currency, occurred_at, attribution_step, created_at)
         SELECT $1, $5, cu.id, $3, 'old_sale_' || cu.id, 4_900, 'USD', cu.lead_at, 'customer_key', cu.lead_at FROM cu RETURNING id, created_at)
       INSERT INTO commissions (sale_id, program_id, partner_id, amount_cents, currency, stage, created_at)
       SELECT s.id, $1, $3, 490, 'USD', 'pending', s.created_at FROM s`,
      [big.programId, big.linkId, big.partnerId, OLD, big.accountId],
    );
    await apiSale(api, big, 10_000);
    await apiSale(api, big, 20_000);
    await db.pool.query('ANALYZE commissions');
    const now = new Date();
    const sent: { text: string; values: unknown[] }[] = [];
    const recording = { query: (text: string, values: unknown[] = []) => (sent.push({ text, values }), db.pool.query(text, values)) };
    const sums = await approvalSums(recording as never, big.programId, {}, now);
    expect(sums).toEqual(await recount(big.programId, now));
    expect(sums).toEqual([{ currency: 'USD', count: OLD + 2, cents: OLD * 490 + 3_000, pastHoldCount: OLD, pastHoldCents: OLD * 490 }]);
    // Every commission row any of its statements read (scans of the table, times their loops).
    let commissionRowsRead = 0;
    for (const statement of sent) {
      const { rows } = await db.pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
      for (const node of planNodes(rows[0]['QUERY PLAN'][0].Plan as PlanNode) as (PlanNode & { 'Actual Rows': number; 'Actual Loops': number; 'Rows Removed by Filter'?: number })[]) {
        if (node['Relation Name'] === 'commissions') commissionRowsRead += (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'];
      }
    }
    expect(commissionRowsRead).toBeLessThanOrEqual(10);
  });
});
