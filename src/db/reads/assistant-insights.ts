// Read-only queries behind the assistant (MCP) tools. They run in READ ONLY transactions, so
// PostgreSQL itself refuses any write that might slip in.
import { OWN_TIME } from './program-activity.js';
import { type Pool, type PoolClient, withTransaction } from '../infra/pool.js';

export const readOnly = <T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> =>
  withTransaction(pool, fn, { readOnly: true });

export async function programOverview(client: PoolClient, programId: number) {
  const { rows } = await client.query(
    `SELECT id, name, domain, commission_type, commission_rate::float8 AS commission_rate, recurring_duration_months AS duration_months,
            attribution_window_days, lead_auth, allowed_origins,
            (EXISTS (SELECT 1 FROM processor_endpoints e WHERE e.program_id = programs.id AND e.processor = 'stripe') OR stripe_account_id IS NOT NULL) AS stripe_connected, created_at
       FROM programs WHERE id = $1`,
    [programId],
  );
  return rows[0] ?? null;
}

export async function recentEvents(client: PoolClient, programId: number, kind: string | null, limit: number) {
  const { rows } = await client.query(
    `SELECT e.id, e.kind, e.test, e.created_at, ${OWN_TIME('e')} AS occurred_at, e.click_id, e.sale_id, c.customer_key, e.details
       FROM tracking_events e LEFT JOIN customers c ON c.id = e.customer_id
      WHERE e.program_id = $1 AND ($2::text IS NULL OR e.kind = $2)
      ORDER BY ${OWN_TIME('e')} DESC, e.id DESC LIMIT $3`,
    [programId, kind, limit],
  );
  return rows;
}

/**
 * Money is grouped by currency (USD and VND cents never add up). Sums come back as decimal
 * strings: exact however large (a bigint sum can pass 2^53). Each count is one grouped read of
 * the program's rows on the program's index (clicks and sales by (program_id, created_at)),
 * never a look-up per partner on columns no index serves.
 */
export async function partnerStats(client: PoolClient | Pool, programId: number, since: Date) {
  const { rows } = await client.query(
    `WITH clicked AS (SELECT partner_id, count(*) AS n FROM clicks WHERE program_id = $1 AND created_at >= $2 AND NOT test GROUP BY partner_id),
          leads AS (SELECT partner_id, count(*) AS n FROM customers WHERE program_id = $1 AND lead_at >= $2 GROUP BY partner_id),
          -- Commissions without a sale (bounties', leads', click days') count in the commission, not in sales or revenue.
          sold AS (SELECT partner_id, currency, sum(sales)::int AS sales, sum(revenue) AS revenue, sum(commission) AS commission FROM (
                     SELECT s.partner_id, s.currency, count(*) AS sales, sum(s.amount_cents) AS revenue, coalesce(sum(c.earned_cents), 0) AS commission
                       FROM sales s LEFT JOIN commission_states c ON c.sale_id = s.id AND c.state <> 'test'
                      WHERE s.program_id = $1 AND s.created_at >= $2 AND NOT s.test GROUP BY s.partner_id, s.currency
                     UNION ALL
                     SELECT c.partner_id, c.currency, 0, 0, sum(c.earned_cents) FROM commission_states c
                      WHERE c.program_id = $1 AND (c.bounty_award_id IS NOT NULL OR c.lead_customer_id IS NOT NULL OR c.click_reward_day_id IS NOT NULL)
                        AND c.created_at >= $2 GROUP BY c.partner_id, c.currency) x
                    GROUP BY partner_id, currency),
          by_partner AS (SELECT partner_id, sum(sales)::int AS sales,
                                jsonb_agg(jsonb_build_object('currency', currency, 'sales', sales, 'revenue_cents', revenue::text, 'commission_cents', commission::text) ORDER BY currency) AS by_currency
                           FROM sold GROUP BY partner_id)
     SELECT p.id AS partner_id, p.name, coalesce(k.n, 0)::int AS clicks, coalesce(l.n, 0)::int AS leads, coalesce(b.sales, 0) AS sales,
            coalesce(b.by_currency, '[]'::jsonb) AS by_currency
       FROM partners p LEFT JOIN clicked k ON k.partner_id = p.id LEFT JOIN leads l ON l.partner_id = p.id LEFT JOIN by_partner b ON b.partner_id = p.id
      WHERE p.program_id = $1 AND NOT p.test ORDER BY p.id`,
    [programId, since],
  );
  return rows;
}

export async function saleExplanation(client: PoolClient, programId: number, transactionId: string) {
  const { rows } = await client.query(
    `SELECT s.id AS sale_id, s.processor_event_id AS transaction_id, s.amount_cents, s.currency, s.occurred_at, s.test, s.source,
            s.attribution_step, s.is_recurring, s.commission_reason, cu.customer_key, cu.click_id, cu.clicked_at, cu.lead_at, cu.converted_at,
            l.short_link AS partner_code, pa.name AS partner_name, s.partner_id,
            c.id AS commission_id, c.amount_cents AS commission_cents, c.state AS commission_state, c.earned_cents AS commission_earned_cents,
            c.deducted_cents, cm.refunded_total_cents, cm.reward_words AS commission_why, cm.rule_id AS commission_rule_id,
            s.product_ids, s.price_ids, s.billing_interval, s.buyer_country
       FROM sales s
       LEFT JOIN customers cu ON cu.id = s.customer_id
       LEFT JOIN referral_links l ON l.id = cu.link_id
       LEFT JOIN partners pa ON pa.id = s.partner_id
       LEFT JOIN commission_states c ON c.sale_id = s.id
       LEFT JOIN commissions cm ON cm.id = c.id
      WHERE s.program_id = $1 AND s.processor_event_id = $2`,
    [programId, transactionId],
  );
  if (!rows[0]) return null;
  const refunds = await client.query(
    'SELECT amount_cents, deduction_cents, reason, refund_reason, source, created_at, reverted_at FROM refunds WHERE sale_id = $1 ORDER BY id',
    [rows[0].sale_id],
  );
  return { ...rows[0], refunds: refunds.rows };
}
