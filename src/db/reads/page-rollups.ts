// What the dashboard and the portal show, read from the rollups the database keeps as each
// click, lead, sale, commission change and ledger entry is recorded (migration 0028): a page
// reads a few hundred rows whatever the program's history.
import type { CommissionState } from '../../core/commission-ledger.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

/** The program as a whole (partner -1), or one partner. */
const WHOLE_PROGRAM = -1;
/** A partner's all-time rows (per link). */
const ALL_TIME = 'infinity';

export interface Period {
  from: Date;
  to: Date;
  /** One partner's numbers, or the program's. */
  partnerId: number | null;
}

/** Days are UTC; `to` is exclusive. */
const DAYS_SQL = `day >= utc_day($3::timestamptz) AND day <= utc_day($4::timestamptz - interval '1 microsecond')`;

/** Clicks, leads and sales per day of the period (live only), every day present. */
export async function dailyCounts(db: Queryable, programId: number, period: Period) {
  const { rows } = await db.query(
    `WITH days AS (SELECT d::date AS day FROM generate_series(utc_day($3::timestamptz), utc_day($4::timestamptz - interval '1 microsecond'), interval '1 day') d),
          counted AS (
            SELECT day, sum(value) FILTER (WHERE measure = 'clicks') AS clicks, sum(value) FILTER (WHERE measure = 'leads') AS leads,
                   sum(value) FILTER (WHERE measure = 'sales') AS sales
              FROM page_rollups WHERE program_id = $1 AND partner_id = $2 AND ${DAYS_SQL} AND measure IN ('clicks', 'leads', 'sales')
             GROUP BY day)
     SELECT d.day::text AS day, coalesce(c.clicks, 0)::int AS clicks, coalesce(c.leads, 0)::int AS leads, coalesce(c.sales, 0)::int AS sales
       FROM days d LEFT JOIN counted c ON c.day = d.day ORDER BY d.day`,
    [programId, period.partnerId ?? WHOLE_PROGRAM, period.from, period.to],
  );
  return rows.map((r) => ({ day: new Date(`${r.day}T00:00:00Z`), clicks: r.clicks, leads: r.leads, sales: r.sales }));
}

/**
 * The funnel counts people, not events: the period's clicks; the people who became leads in it;
 * of those, the ones who have bought since (never more than the leads); and the people whose
 * first paid sale fell in it.
 */
export async function funnelCounts(db: Queryable, programId: number, period: Period) {
  const { rows } = await db.query(
    `SELECT coalesce(sum(value) FILTER (WHERE measure = 'clicks'), 0)::int AS clicks, coalesce(sum(value) FILTER (WHERE measure = 'leads'), 0)::int AS leads,
            coalesce(sum(value) FILTER (WHERE measure = 'converted'), 0)::int AS converted, coalesce(sum(value) FILTER (WHERE measure = 'buyers'), 0)::int AS buyers
       FROM page_rollups WHERE program_id = $1 AND partner_id = $2 AND ${DAYS_SQL} AND measure IN ('clicks', 'leads', 'converted', 'buyers')`,
    [programId, period.partnerId ?? WHOLE_PROGRAM, period.from, period.to],
  );
  return rows[0] as { clicks: number; leads: number; converted: number; buyers: number };
}

/**
 * Money per currency (never added across currencies) for sales that occurred in the period:
 * sales, revenue, and what their commissions earn now, by state as every surface reads it.
 */
export async function moneyTotals(db: Queryable, programId: number, period: Period) {
  const { rows } = await db.query(
    `SELECT currency, coalesce(sum(value) FILTER (WHERE measure = 'sales'), 0)::int AS sales,
            coalesce(sum(value) FILTER (WHERE measure = 'revenue'), 0)::text AS revenue_cents,
            coalesce(sum(value) FILTER (WHERE measure LIKE 'earned:%' AND measure <> 'earned:test'), 0)::text AS commission_cents,
            coalesce(sum(value) FILTER (WHERE measure IN ('earned:pending', 'earned:held')), 0)::text AS commission_pending_cents,
            coalesce(sum(value) FILTER (WHERE measure IN ('earned:approved', 'earned:in_payout')), 0)::text AS commission_approved_cents,
            coalesce(sum(value) FILTER (WHERE measure = 'earned:paid'), 0)::text AS commission_paid_cents
       FROM page_rollups WHERE program_id = $1 AND partner_id = $2 AND ${DAYS_SQL} AND currency <> ''
      GROUP BY currency HAVING coalesce(sum(value) FILTER (WHERE measure = 'sales'), 0) <> 0 ORDER BY currency`,
    [programId, period.partnerId ?? WHOLE_PROGRAM, period.from, period.to],
  );
  return rows as {
    currency: string;
    sales: number;
    revenue_cents: string;
    commission_cents: string;
    commission_pending_cents: string;
    commission_approved_cents: string;
    commission_paid_cents: string;
  }[];
}

export interface AllTimeRow {
  partnerId: number;
  linkId: number;
  measure: string;
  currency: string;
  value: number;
}

/** These partners' all-time numbers, per link, measure and currency (`measures`: SQL LIKE patterns). */
export async function allTimeTotals(db: Queryable, partnerIds: number[], measures: string[]): Promise<AllTimeRow[]> {
  if (partnerIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT partner_id, link_id, measure, currency, sum(value)::bigint AS value
       FROM page_rollups WHERE partner_id = ANY ($1::bigint[]) AND day = '${ALL_TIME}' AND measure LIKE ANY ($2::text[])
      GROUP BY 1, 2, 3, 4 HAVING sum(value) <> 0 ORDER BY 1, 2, 3, 4`,
    [partnerIds, measures],
  );
  return rows.map((r) => ({ partnerId: Number(r.partner_id), linkId: Number(r.link_id), measure: r.measure, currency: r.currency, value: Number(r.value) }));
}

/** A partner's earnings per calendar month (UTC) and currency since `since`, by the sales' days. */
export async function monthlyEarned(db: Queryable, partnerId: number, since: Date): Promise<Array<{ month: string; currency: string; cents: number }>> {
  const { rows } = await db.query(
    `SELECT to_char(date_trunc('month', day), 'YYYY-MM') AS month, currency, sum(value)::bigint AS cents
       FROM page_rollups WHERE partner_id = $1 AND day >= utc_day($2::timestamptz) AND day < 'infinity' AND link_id = -1
        AND measure LIKE 'earned:%' AND measure NOT IN ('earned:moved', 'earned:test')
      GROUP BY 1, 2 HAVING sum(value) <> 0 ORDER BY 1, 2`,
    [partnerId, since],
  );
  return rows.map((r) => ({ month: r.month, currency: r.currency, cents: Number(r.cents) }));
}

/** The commission state a measure `commissions:<state>` / `earned:<state>` names. */
export const measureState = (measure: string) => measure.slice(measure.indexOf(':') + 1) as CommissionState;

/**
 * Folds the recording shards (each connection's) into the upkeep's own shard (-1): a row a recording
 * transaction holds is skipped (folded next time), so folding never waits on recording nor
 * recording on a lock the upkeep waits behind. The sums never change. Returns the rows folded.
 */
export async function compactPageRollups(pool: Pool, limit = 100_000): Promise<number> {
  const { rows } = await pool.query(
    `WITH picked AS (SELECT ctid FROM page_rollups WHERE shard >= 0 LIMIT $1 FOR UPDATE SKIP LOCKED),
          folded AS (DELETE FROM page_rollups r USING picked WHERE r.ctid = picked.ctid
                     RETURNING r.program_id, r.partner_id, r.day, r.link_id, r.measure, r.currency, r.value),
          summed AS (
            INSERT INTO page_rollups (program_id, partner_id, day, link_id, measure, currency, shard, value)
            SELECT program_id, partner_id, day, link_id, measure, currency, -1, sum(value) FROM folded
             GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
            ON CONFLICT (program_id, partner_id, day, link_id, measure, currency, shard) DO UPDATE SET value = page_rollups.value + EXCLUDED.value)
     SELECT count(*)::int AS folded FROM folded`,
    [limit],
  );
  return rows[0].folded;
}

/**
 * The rest of the transaction keeps its rollups' facts aside (migration 0030) until
 * `applyBatchedRollups`: a batch of events writes the rollups once, not once per statement.
 */
export async function beginBatchedRollups(client: PoolClient): Promise<void> {
  await client.query('SELECT begin_batched_rollups()');
}

/** The facts kept aside, summed into the rollups; called before the batch commits. */
export async function applyBatchedRollups(client: PoolClient): Promise<void> {
  await client.query('SELECT apply_batched_rollups()');
}

export interface PartnerTotals {
  partnerId: number;
  clicks: number;
  leads: number;
  customers: number;
  sales: number;
  /** Per currency, never added across currencies. */
  money: { currency: string; revenueCents: number; commissionCents: number }[];
}

/**
 * Every partner's numbers over the period (live only), from the per-partner rollups by day
 * (migration 0050's index: the period's rows only, whatever the history): the leaderboard.
 * The same measures and definitions as the program's cards.
 */
export async function partnerTotals(db: Queryable, programId: number, period: Omit<Period, 'partnerId'>): Promise<PartnerTotals[]> {
  const { rows } = await db.query(
    `SELECT partner_id, measure, currency, sum(value)::bigint AS value
       FROM page_rollups WHERE program_id = $1 AND partner_id > 0 AND link_id = -1 AND day >= utc_day($2::timestamptz) AND day <= utc_day($3::timestamptz - interval '1 microsecond')
        AND (measure IN ('clicks', 'leads', 'buyers', 'sales', 'revenue') OR (measure LIKE 'earned:%' AND measure <> 'earned:test'))
      GROUP BY 1, 2, 3 HAVING sum(value) <> 0`,
    [programId, period.from, period.to],
  );
  const partners = new Map<number, PartnerTotals>();
  for (const row of rows) {
    const id = Number(row.partner_id);
    const totals = partners.get(id) ?? { partnerId: id, clicks: 0, leads: 0, customers: 0, sales: 0, money: [] };
    partners.set(id, totals);
    const value = Number(row.value);
    const measure = String(row.measure);
    if (measure === 'clicks') totals.clicks += value;
    else if (measure === 'leads') totals.leads += value;
    else if (measure === 'buyers') totals.customers += value;
    else {
      if (measure === 'sales') totals.sales += value;
      let money = totals.money.find((m) => m.currency === row.currency);
      if (!money) totals.money.push((money = { currency: row.currency, revenueCents: 0, commissionCents: 0 }));
      if (measure === 'revenue') money.revenueCents += value;
      else if (measure.startsWith('earned:')) money.commissionCents += value;
    }
  }
  for (const totals of partners.values()) totals.money.sort((a, b) => a.currency.localeCompare(b.currency));
  return [...partners.values()];
}
