// npm run bench:backtest [sales]
// How long does the reward-rule backtest take over a program's busy quarter? On a throwaway
// embedded PostgreSQL (or DATABASE_URL): `sales` stored sales (default 100,000) over the last 90
// days, by generate_series — 20 partners, a customer buying three times on average, USD and EUR,
// monthly and annual plans, four countries, each with its commission — then one
// POST /admin/programs/{id}/reward-rules/backtest of a draft with tiers, caps and a budget (the
// slowest path: every sale's tier window and running sums), timed beside its 10 s target.
import { ADMIN_TOKEN, benchMain, fmt, startBench } from './lib/bench-kit.js';

const sales = Number(process.argv[2] ?? 100_000);
const TARGET_MS = 10_000;
const PARTNERS = 20;

await benchMain(async (cleanup) => {
  const { client, sql, program } = await startBench(cleanup, { sockets: 2, webhookSecret: 'whsec_bench_backtest' });
  const admin = async (method: string, path: string, body?: object) => {
    const reply = await client.request(method, `/api/v1/admin/programs/${program.programId}${path}`, body, { Authorization: `Bearer ${ADMIN_TOKEN}` });
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply;
  };
  const link = (await sql.query('SELECT id, program_id, partner_id FROM referral_links WHERE short_link = $1', [program.shortLink])).rows[0];
  const { accountId } = (await sql.query('SELECT account_id AS "accountId" FROM programs WHERE id = $1', [program.programId])).rows[0];
  const partnerIds = [Number(link.partner_id)];
  for (let i = 1; i < PARTNERS; i++) partnerIds.push((await admin('POST', '/partners', { name: `Bench partner ${i}` })).body.data.id);

  const percent = (rate: string) => ({ throughMonth: null, amount: { type: 'percent', rate } });
  const fallback = { id: 'default', name: 'Default', event: 'sale', when: {}, duration: { kind: 'lifetime' }, steps: [percent('10')] };
  await admin('PUT', '/reward-rules/draft', { rule_set: { rules: [], defaults: { sale: fallback } } });
  await admin('POST', '/reward-rules/publish', {});

  const seeding = performance.now();
  const customers = Math.max(1, Math.floor(sales / 3));
  const at = `now() - ((g % 89) * interval '1 day') - ((g % 86400) * interval '1 second')`;
  await sql.query(
    `INSERT INTO customers (program_id, customer_key, status, click_id, clicked_at, link_id, partner_id, lead_at)
     SELECT $1, 'bt_' || g, 'lead', 'clk_bt_' || g, ${at}, $2, ($3::bigint[])[1 + g % $4], ${at} FROM generate_series(1, $5::bigint) g`,
    [program.programId, link.id, partnerIds, PARTNERS, customers],
  );
  await sql.query(
    `INSERT INTO sales (program_id, account_id, customer_id, partner_id, processor_event_id, amount_cents, currency, occurred_at, attribution_step, created_at,
                        product_ids, price_ids, billing_interval, buyer_country)
     SELECT $1, $2, c.id, c.partner_id, 'bt_sale_' || g, 1000 + (g % 50) * 100, CASE WHEN c.id % 2 = 0 THEN 'USD' ELSE 'EUR' END, ${at}, 'customer_key', ${at},
            ARRAY['prod_' || (g % 3)], ARRAY['price_' || (g % 6)], CASE WHEN g % 4 = 0 THEN 'year' ELSE 'month' END, (ARRAY['DE', 'US', 'FR', 'GB'])[1 + g % 4]
       FROM generate_series(1, $3::bigint) g
       JOIN customers c ON c.program_id = $1 AND c.customer_key = 'bt_' || (1 + g % $4)`,
    [program.programId, accountId, sales, customers],
  );
  await sql.query(
    `INSERT INTO commissions (sale_id, program_id, partner_id, amount_cents, currency, stage, created_at, rule_id, reward_month)
     SELECT s.id, s.program_id, s.partner_id, s.amount_cents / 10, s.currency, 'pending', s.created_at, 'default', date_trunc('month', s.occurred_at AT TIME ZONE 'UTC')::date
       FROM sales s WHERE s.program_id = $1 AND NOT EXISTS (SELECT 1 FROM commissions x WHERE x.sale_id = s.id)`,
    [program.programId],
  );
  await sql.query('ANALYZE');
  const stored = Number((await sql.query('SELECT count(*) AS n FROM sales WHERE program_id = $1', [program.programId])).rows[0].n);
  console.log(`seeded ${stored} sales (${PARTNERS} partners, ${customers} customers) in ${fmt((performance.now() - seeding) / 1000, 1)} s`);

  await admin('PUT', '/reward-rules/draft', {
    rule_set: {
      rules: [
        { id: 'annual', name: 'Annual plans', event: 'sale', when: { intervals: ['year'] }, duration: { kind: 'months', months: 12 }, steps: [{ throughMonth: 3, amount: { type: 'percent', rate: '30' } }, percent('20')] },
        { id: 'gold-de', name: 'Gold in Germany', event: 'sale', when: { countries: ['DE'], tiers: ['gold'] }, duration: { kind: 'payments', payments: 2 }, steps: [{ throughMonth: null, amount: { type: 'flat', rate: '5' } }], caps: { perCustomer: { USD: 1_500, EUR: 1_500 } } },
      ],
      defaults: { sale: { ...fallback, steps: [percent('12')], caps: { perPartnerMonth: { USD: 500_000, EUR: 500_000 } } } },
      monthlyBudget: { USD: 5_000_000, EUR: 5_000_000 },
      tiers: [{ name: 'silver', minCustomers: 100 }, { name: 'gold', minCustomers: 1_000 }],
    },
  });
  const started = performance.now();
  const reply = await admin('POST', '/reward-rules/backtest', {});
  const ms = performance.now() - started;
  const result = reply.body.data;
  console.log(`backtest of ${result.sales} sales: ${fmt(ms / 1000, 2)} s (target ${TARGET_MS / 1000} s) — ${ms <= TARGET_MS ? 'within' : 'OVER'} target`);
  for (const row of result.totals) console.log(`  ${row.currency}: paid ${row.actual_cents}, draft ${row.draft_cents}, difference ${row.difference_cents}`);
  console.log(`  ${result.changes.count} sales change; ${result.rules.length} rule × currency rows, ${result.partners.length} partner × currency rows`);
});
