// One partner's page (links, funnel, money, payouts, sanctions, applications, other programs)
// and the money per currency of partners, from the per-partner rollups. Scoped by program.
import type { PartnerStatus } from '../../core/partners.js';
import type { Pool, PoolClient } from '../infra/pool.js';

type Queryable = Pool | PoolClient;

// ---- one partner's page ------------------------------------------------------------------------

/** What the partner page shows besides the profile: links, funnel, money, payouts, sanctions, applications. */
export async function partnerDetails(db: Queryable, programId: number, partnerId: number) {
  const [links, funnel, commissions, payouts, sanctions, applications] = await Promise.all([
    db.query('SELECT id, short_link, enabled, disabled_by_sanction_id, created_at FROM referral_links WHERE program_id = $1 AND partner_id = $2 ORDER BY id', [programId, partnerId]),
    // All time, from the rollups (migration 0028): people who became leads, people who bought.
    db.query(
      `SELECT coalesce(sum(value) FILTER (WHERE measure = 'clicks'), 0)::int AS clicks, coalesce(sum(value) FILTER (WHERE measure = 'leads'), 0)::int AS leads,
              coalesce(sum(value) FILTER (WHERE measure = 'buyers'), 0)::int AS buyers
         FROM page_rollups WHERE program_id = $1 AND partner_id = $2 AND day = 'infinity' AND measure IN ('clicks', 'leads', 'buyers')`,
      [programId, partnerId],
    ),
    db.query(
      `SELECT cs.id, cs.sale_id, s.processor_event_id AS transaction_id, cs.currency, cs.amount_cents, cs.earned_cents, cs.state, cs.created_at, c.terms, c.reward_words,
              c.lead_customer_id, c.click_reward_day_id, c.bounty_award_id
         FROM commission_states cs JOIN commissions c ON c.id = cs.id LEFT JOIN sales s ON s.id = cs.sale_id
        WHERE cs.program_id = $1 AND cs.partner_id = $2 ORDER BY cs.id DESC LIMIT 50`,
      [programId, partnerId],
    ),
    db.query('SELECT id, currency, amount_cents, status, reference, paid_at, created_at FROM payouts WHERE program_id = $1 AND partner_id = $2 ORDER BY id DESC LIMIT 50', [programId, partnerId]),
    db.query('SELECT id, kind, reason, status_before, created_at, lifted_at, lift_reason FROM partner_sanctions WHERE program_id = $1 AND partner_id = $2 ORDER BY id DESC', [programId, partnerId]),
    db.query(
      `SELECT id, status, answers, terms_version, terms_accepted_at, host(terms_ip) AS terms_ip, reason, reapply, decided_at, created_at
         FROM partner_applications WHERE program_id = $1 AND partner_id = $2 ORDER BY id DESC`,
      [programId, partnerId],
    ),
  ]);
  return {
    links: links.rows,
    funnel: funnel.rows[0] as { clicks: number; leads: number; buyers: number },
    commissions: commissions.rows.map((r) => ({ ...r, amount_cents: Number(r.amount_cents), earned_cents: Number(r.earned_cents) })),
    payouts: payouts.rows.map((r) => ({ ...r, amount_cents: Number(r.amount_cents) })),
    sanctions: sanctions.rows,
    applications: applications.rows,
  };
}

/** Other enrollments of the same person in the account's programs (the partner page lists them). */
export async function otherEnrollments(db: Queryable, programId: number, partnerId: number) {
  const { rows } = await db.query(
    `SELECT o.id, o.program_id, p.name AS program_name, o.status FROM partners pa JOIN partners o ON o.profile_id = pa.profile_id AND o.id <> pa.id
       JOIN programs p ON p.id = o.program_id WHERE pa.program_id = $1 AND pa.id = $2 ORDER BY o.id`,
    [programId, partnerId],
  );
  return rows as { id: number; program_id: number; program_name: string; status: PartnerStatus }[];
}

// ---- money per currency, from the per-partner rollups ---------------------------------------------

/** A partner's all-time money in one currency (never added across currencies). */
export interface PartnerCurrencyMoney {
  currency: string;
  sales: number;
  revenue_cents: number;
  /** What the commissions earn now, net of refunds (nothing once rejected, reversed or moved; test never). */
  earned_cents: number;
  /** The ledger's balances: awaiting approval, approved and not yet paid (owed), paid. */
  pending_cents: number;
  owed_cents: number;
  paid_cents: number;
  /** Commissions a refund took back whole, and their count by state. */
  reversed: number;
  held_cents: number;
}

/**
 * These partners' money per currency, all time: the rollups' 'infinity' rows of each partner
 * (primary key: program, partner, day), a few rows per link and currency whatever the history.
 */
export async function partnerMoney(db: Queryable, programId: number, partnerIds: number[]): Promise<Map<number, PartnerCurrencyMoney[]>> {
  const out = new Map<number, PartnerCurrencyMoney[]>();
  if (partnerIds.length === 0) return out;
  const { rows } = await db.query(
    `SELECT partner_id, currency,
            coalesce(sum(value) FILTER (WHERE measure = 'sales'), 0)::bigint AS sales,
            coalesce(sum(value) FILTER (WHERE measure = 'revenue'), 0)::bigint AS revenue_cents,
            coalesce(sum(value) FILTER (WHERE measure LIKE 'earned:%' AND measure NOT IN ('earned:test', 'earned:moved')), 0)::bigint AS earned_cents,
            coalesce(sum(value) FILTER (WHERE measure = 'earned:held'), 0)::bigint AS held_cents,
            coalesce(sum(value) FILTER (WHERE measure = 'ledger_pending'), 0)::bigint AS pending_cents,
            coalesce(sum(value) FILTER (WHERE measure = 'ledger_approved'), 0)::bigint AS owed_cents,
            coalesce(sum(value) FILTER (WHERE measure = 'ledger_paid'), 0)::bigint AS paid_cents,
            coalesce(sum(value) FILTER (WHERE measure = 'commissions:reversed'), 0)::bigint AS reversed
       FROM page_rollups
      WHERE program_id = $1 AND partner_id = ANY ($2::bigint[]) AND day = 'infinity' AND currency <> ''
        AND (measure IN ('sales', 'revenue', 'ledger_pending', 'ledger_approved', 'ledger_paid') OR measure LIKE 'earned:%' OR measure = 'commissions:reversed')
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [programId, partnerIds],
  );
  for (const r of rows) {
    const money: PartnerCurrencyMoney = {
      currency: r.currency,
      sales: Number(r.sales),
      revenue_cents: Number(r.revenue_cents),
      earned_cents: Number(r.earned_cents),
      pending_cents: Number(r.pending_cents),
      owed_cents: Number(r.owed_cents),
      paid_cents: Number(r.paid_cents),
      reversed: Number(r.reversed),
      held_cents: Number(r.held_cents),
    };
    // A currency whose every number came back to zero says nothing.
    if (Object.values(money).every((v) => v === 0 || typeof v === 'string')) continue;
    const list = out.get(Number(r.partner_id)) ?? [];
    list.push(money);
    out.set(Number(r.partner_id), list);
  }
  return out;
}

/** The currencies the program has sold in (its whole-program rows), so money columns can sort by each. */
export async function programCurrencies(db: Queryable, programId: number): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT DISTINCT currency FROM page_rollups WHERE program_id = $1 AND partner_id = -1 AND measure = 'revenue' AND currency <> '' ORDER BY currency`,
    [programId],
  );
  return rows.map((r) => r.currency as string);
}

/** One partner's links with their all-time clicks, leads and sales (the rollups' per-link rows). */
export async function partnerLinkNumbers(db: Queryable, programId: number, partnerId: number) {
  const { rows } = await db.query(
    `SELECT l.id, l.short_link, l.enabled, l.disabled_by_sanction_id, l.created_at,
            coalesce(t.clicks, 0)::int AS clicks, coalesce(t.leads, 0)::int AS leads, coalesce(t.sales, 0)::int AS sales
       FROM referral_links l
       LEFT JOIN (SELECT link_id, sum(value) FILTER (WHERE measure = 'clicks') AS clicks, sum(value) FILTER (WHERE measure = 'leads') AS leads,
                         sum(value) FILTER (WHERE measure = 'sales') AS sales
                    FROM page_rollups WHERE program_id = $1 AND partner_id = $2 AND day = 'infinity' AND measure IN ('clicks', 'leads', 'sales')
                   GROUP BY link_id) t ON t.link_id = l.id
      WHERE l.program_id = $1 AND l.partner_id = $2 ORDER BY l.id`,
    [programId, partnerId],
  );
  return rows.map((r) => ({
    id: Number(r.id), short_link: r.short_link as string, enabled: r.enabled as boolean, disabled_by_sanction_id: r.disabled_by_sanction_id === null ? null : Number(r.disabled_by_sanction_id),
    created_at: r.created_at as Date, clicks: r.clicks as number, leads: r.leads as number, sales: r.sales as number,
  }));
}
