// A partner's referrals, as the portal lists them: the customers their links brought, the sales
// and commissions those made, and their clicks per sub-ID. Every statement takes one partner row's
// id (the signed-in partner's, checked by the caller) and is served by an index on it.
import type { CommissionSource, CommissionState } from '../../core/commission-ledger.js';
import type { CustomerLabel } from '../../core/referrals.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

/** Whether any link uses this code, in any case (codes are one namespace: ?aff= finds a link without its program). */
export async function linkCodeInUse(db: Queryable, code: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM referral_links WHERE lower(short_link) = lower($1) LIMIT 1', [code]);
  return (rowCount ?? 0) > 0;
}

export interface ReferredCustomerRow {
  id: number;
  customerKey: string | null;
  /** The name the brand's backend sent with the lead (customer_name), if any. */
  customerName: string | null;
  /** The funnel step the customer reached: lead or customer (one who has paid). */
  status: 'lead' | 'customer';
  firstSeen: Date;
  /** Live sales (test ones aside), and of those the ones refunded in full or charged back. */
  sales: number;
  refundedSales: number;
  /** Per currency: what they bought and what the partner earns from it now. */
  money: Array<{ currency: string; saleCents: number; earnedCents: number }>;
}

/** The partner's referred customers (leads and paying ones), newest first, `limit` after `beforeId`. */
export async function referredCustomers(db: Queryable, partnerId: number, page: { beforeId: number | null; limit: number }): Promise<ReferredCustomerRow[]> {
  const { rows } = await db.query(
    `SELECT cu.id, cu.customer_key, cu.name AS customer_name, cu.status, coalesce(cu.clicked_at, cu.lead_at, cu.created_at) AS first_seen, m.sales, m.refunded, m.money
       FROM customers cu
       LEFT JOIN LATERAL (
         SELECT coalesce(sum(x.sales), 0)::int AS sales, coalesce(sum(x.refunded), 0)::int AS refunded,
                coalesce(json_agg(json_build_object('currency', x.currency, 'sale', x.sale_cents, 'earned', x.earned_cents) ORDER BY x.currency) FILTER (WHERE x.currency IS NOT NULL), '[]') AS money
           FROM (SELECT s.currency, count(*) AS sales, count(*) FILTER (WHERE cs.state = 'reversed') AS refunded,
                        sum(s.amount_cents) AS sale_cents, coalesce(sum(cs.earned_cents) FILTER (WHERE cs.state NOT IN ('moved', 'test')), 0) AS earned_cents
                   FROM sales s LEFT JOIN commission_states cs ON cs.sale_id = s.id
                  WHERE s.customer_id = cu.id AND NOT s.test AND (cs.partner_id IS NULL OR cs.partner_id = cu.partner_id)
                  GROUP BY s.currency) x) m ON true
      WHERE cu.partner_id = $1 AND cu.status IN ('lead', 'customer') AND ($2::bigint IS NULL OR cu.id < $2)
      ORDER BY cu.id DESC LIMIT $3`,
    [partnerId, page.beforeId, page.limit],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    customerKey: r.customer_key,
    customerName: r.customer_name,
    status: r.status,
    firstSeen: r.first_seen,
    sales: r.sales,
    refundedSales: r.refunded,
    money: (r.money as Array<{ currency: string; sale: number; earned: number }>).map((m) => ({ currency: m.currency, saleCents: Number(m.sale), earnedCents: Number(m.earned) })),
  }));
}

export interface PartnerCommissionRow {
  id: number;
  customerId: number | null;
  customerKey: string | null;
  customerName: string | null;
  /** The sale's time (a click day's commission: the day; a bounty's or a lead's: its own). */
  saleAt: Date;
  /** What it was made for; a lead's names its lead's customer. */
  source: CommissionSource;
  currency: string;
  /** Null: a commission paid without a sale (a bounty's, a lead's, a click day's). */
  saleCents: number | null;
  /** What it earns the partner now (the commission_states rule). */
  earnedCents: number;
  state: CommissionState;
  createdAt: Date;
  /** Its own hold, else its program's (the rule approval applies). */
  holdDays: number;
  paidAt: Date | null;
  /** Why it is what it is, in words (null: made before commissions explained themselves). */
  rewardWords: string | null;
}

/** The partner's commissions with their sales, newest first, `limit` after `beforeId`. */
export async function partnerCommissions(db: Queryable, partnerId: number, page: { beforeId: number | null; limit: number }): Promise<PartnerCommissionRow[]> {
  const { rows } = await db.query(
    `SELECT c.id, cu.id AS customer_id, cu.customer_key, cu.name AS customer_name, coalesce(s.occurred_at, d.day::timestamp AT TIME ZONE 'UTC', c.created_at) AS occurred_at, c.currency, s.amount_cents AS sale_cents, cs.earned_cents, cs.state, c.created_at,
            coalesce(c.hold_days, p.hold_days) AS hold_days, c.paid_at, c.reward_words,
            CASE WHEN c.sale_id IS NOT NULL THEN 'sale' WHEN c.bounty_award_id IS NOT NULL THEN 'bounty' WHEN c.lead_customer_id IS NOT NULL THEN 'lead' ELSE 'clicks' END AS source
       FROM commissions c JOIN commission_states cs ON cs.id = c.id LEFT JOIN sales s ON s.id = c.sale_id JOIN programs p ON p.id = c.program_id
       LEFT JOIN click_reward_days d ON d.id = c.click_reward_day_id
       LEFT JOIN customers cu ON cu.id = coalesce(s.customer_id, c.lead_customer_id)
      WHERE c.partner_id = $1 AND ($2::bigint IS NULL OR c.id < $2)
      ORDER BY c.id DESC LIMIT $3`,
    [partnerId, page.beforeId, page.limit],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    customerId: r.customer_id === null ? null : Number(r.customer_id),
    customerKey: r.customer_key,
    customerName: r.customer_name,
    saleAt: r.occurred_at,
    source: r.source,
    currency: r.currency,
    saleCents: r.sale_cents === null ? null : Number(r.sale_cents),
    earnedCents: Number(r.earned_cents),
    state: r.state,
    createdAt: r.created_at,
    holdDays: r.hold_days,
    paidAt: r.paid_at,
    rewardWords: r.reward_words,
  }));
}

export interface SubIdRow {
  subId: string;
  clicks: number;
  /** People whose first click carried it and who became leads or customers; their live sales. */
  leads: number;
  sales: number;
}

/**
 * The partner's clicks since `since` per sub-ID, with the leads and sales of the people they
 * brought: only clicks that carry a sub-ID are read (their partial index), the month partitions
 * before `since` not at all. The `limit` most clicked.
 */
export async function subIdNumbers(db: Queryable, partnerId: number, since: Date, limit: number): Promise<SubIdRow[]> {
  const { rows } = await db.query(
    `SELECT k.sub_id, count(*)::int AS clicks, count(cu.id)::int AS leads, coalesce(sum(x.sales), 0)::int AS sales
       FROM clicks k
       LEFT JOIN customers cu ON cu.click_id = k.click_id AND cu.partner_id = $1 AND cu.status IN ('lead', 'customer')
       LEFT JOIN LATERAL (SELECT count(*) AS sales FROM sales s WHERE s.customer_id = cu.id AND NOT s.test) x ON cu.id IS NOT NULL
      WHERE k.partner_id = $1 AND k.sub_id IS NOT NULL AND k.created_at >= $2 AND NOT k.test
      GROUP BY k.sub_id ORDER BY count(*) DESC, k.sub_id LIMIT $3`,
    [partnerId, since, limit],
  );
  return rows.map((r) => ({ subId: r.sub_id, clicks: r.clicks, leads: r.leads, sales: r.sales }));
}

/** What the program lets its partners see of a customer (its Brand settings), by the program's key. */
export async function customerLabelOf(db: Queryable, programId: number): Promise<CustomerLabel> {
  const { rows } = await db.query('SELECT referral_customer_label FROM programs WHERE id = $1', [programId]);
  return (rows[0]?.referral_customer_label as CustomerLabel | undefined) ?? 'masked_email';
}
