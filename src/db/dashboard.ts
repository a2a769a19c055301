// Reads and session rows for the dashboard. Writes go through the same admin functions as the
// admin API (src/db/admin.ts).
import { sha256 } from '../core/secrets.js';
import type { Pool } from './pool.js';
import type { Role } from '../core/permissions.js';

export async function createDashboardSession(pool: Pool, token: string, accountId: number, expiresAt: Date, memberId: number | null = null): Promise<void> {
  await pool.query('INSERT INTO dashboard_sessions (token_hash, account_id, expires_at, member_id) VALUES ($1, $2, $3, $4)', [sha256(token), accountId, expiresAt, memberId]);
}

/** Who a session is: the account, the person (a member, or the account's own sign-in: an owner) and their role. */
export async function dashboardSessionAccount(pool: Pool, token: string): Promise<{ id: number; email: string; role: Role; memberId: number | null } | null> {
  const { rows } = await pool.query(
    `SELECT a.id, coalesce(m.email, a.email) AS email, coalesce(m.role, 'owner') AS role, m.id AS member_id
       FROM dashboard_sessions s JOIN accounts a ON a.id = s.account_id LEFT JOIN account_members m ON m.id = s.member_id
      WHERE s.token_hash = $1 AND s.expires_at > now() AND NOT a.suspended AND (s.member_id IS NULL OR m.removed_at IS NULL)`,
    [sha256(token)],
  );
  const r = rows[0];
  return r ? { id: Number(r.id), email: r.email, role: r.role, memberId: r.member_id === null ? null : Number(r.member_id) } : null;
}

export async function endDashboardSession(pool: Pool, token: string): Promise<void> {
  await pool.query('DELETE FROM dashboard_sessions WHERE token_hash = $1', [sha256(token)]);
}

export async function programOwnedBy(pool: Pool, programId: number, accountId: number): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM programs WHERE id = $1 AND account_id = $2', [programId, accountId]);
  return (rowCount ?? 0) > 0;
}

export async function stripeLiveCheck(pool: Pool, programId: number) {
  const { rows } = await pool.query(
    `SELECT stripe_account_id, stripe_webhook_secret IS NOT NULL AS secret_set, livemode_only_commissions,
            (SELECT max(w.received_at) FROM webhook_events w WHERE w.program_id = p.id) AS stripe_last_event_at,
            stripe_last_signature_error, stripe_last_signature_error_at
       FROM programs p WHERE id = $1`,
    [programId],
  );
  return rows[0];
}

export async function partnersWithLinks(pool: Pool, programId: number) {
  const { rows } = await pool.query(
    `SELECT p.id AS partner_id, p.name, l.id AS link_id, l.short_link, l.enabled
       FROM partners p LEFT JOIN referral_links l ON l.partner_id = p.id
      WHERE p.program_id = $1 ORDER BY p.id, l.id`,
    [programId],
  );
  return rows as { partner_id: number; name: string; link_id: number | null; short_link: string | null; enabled: boolean | null }[];
}

export interface ActivityFilter {
  partnerId: number | null;
  from: Date;
  to: Date;
  mode: 'all' | 'live' | 'test';
}

/** Newest first, `limit` rows from `offset` (the page shows 50, the CSV export all). */
export async function activity(pool: Pool, programId: number, filter: ActivityFilter, page: { limit: number; offset: number }) {
  const test = filter.mode === 'all' ? null : filter.mode === 'test';
  const { rows } = await pool.query(
    `SELECT e.kind, e.created_at, e.test, e.click_id, cu.customer_key,
            coalesce(s.partner_id, cu.partner_id, (SELECT k.partner_id FROM clicks k WHERE k.click_id = e.click_id LIMIT 1)) AS partner_id,
            s.processor_event_id AS transaction_id, s.amount_cents, s.currency, s.attribution_step, s.commission_reason,
            c.earned_cents AS commission_cents, c.state AS commission_state,
            (SELECT string_agg(r.reason || ' ' || r.amount_cents || CASE WHEN r.reverted_at IS NOT NULL THEN ' (restored)' ELSE '' END, ', ' ORDER BY r.id)
               FROM refunds r WHERE r.sale_id = s.id) AS refunds
       FROM tracking_events e
       LEFT JOIN customers cu ON cu.id = e.customer_id
       LEFT JOIN sales s ON s.id = e.sale_id
       LEFT JOIN commission_states c ON c.sale_id = s.id
      WHERE e.program_id = $1 AND e.created_at >= $2 AND e.created_at < $3
        AND ($4::bigint IS NULL OR coalesce(s.partner_id, cu.partner_id, (SELECT k.partner_id FROM clicks k WHERE k.click_id = e.click_id LIMIT 1)) = $4)
        AND ($5::boolean IS NULL OR e.test = $5)
      ORDER BY e.created_at DESC, e.id DESC LIMIT $6 OFFSET $7`,
    [programId, filter.from, filter.to, filter.partnerId, test, page.limit, page.offset],
  );
  return rows;
}

/** Daily counts of clicks, leads and sales (live only), optionally for one partner. */
export async function dailySeries(pool: Pool, programId: number, filter: Omit<ActivityFilter, 'mode'>) {
  const { rows } = await pool.query(
    `WITH days AS (SELECT generate_series(date_trunc('day', $2::timestamptz), date_trunc('day', $3::timestamptz - interval '1 second'), interval '1 day') AS day),
          events AS (
            SELECT date_trunc('day', e.created_at) AS day, e.kind
              FROM tracking_events e
              LEFT JOIN customers cu ON cu.id = e.customer_id
              LEFT JOIN sales s ON s.id = e.sale_id
             WHERE e.program_id = $1 AND NOT e.test AND e.created_at >= $2 AND e.created_at < $3
               AND ($4::bigint IS NULL OR coalesce(s.partner_id, cu.partner_id, (SELECT k.partner_id FROM clicks k WHERE k.click_id = e.click_id LIMIT 1)) = $4))
     SELECT d.day,
            count(*) FILTER (WHERE ev.kind = 'click')::int AS clicks,
            count(*) FILTER (WHERE ev.kind = 'lead')::int AS leads,
            count(*) FILTER (WHERE ev.kind = 'sale')::int AS sales
       FROM days d LEFT JOIN events ev ON ev.day = d.day
      GROUP BY d.day ORDER BY d.day`,
    [programId, filter.from, filter.to, filter.partnerId],
  );
  return rows as { day: Date; clicks: number; leads: number; sales: number }[];
}

export async function inboxForProgram(pool: Pool, programId: number) {
  const { rows } = await pool.query(
    `SELECT id, stripe_event_id, type, status, reason, attempts, received_at FROM webhook_events
      WHERE program_id = $1 AND status IN ('failed', 'parked', 'dead', 'retrying') ORDER BY id DESC LIMIT 50`,
    [programId],
  );
  return rows;
}

/**
 * Money per currency (never added across currencies): sales, revenue, and commission earned,
 * split by state as every other surface reads it (the commission_states view).
 */
export async function programKpis(pool: Pool, programId: number, from: Date, to: Date) {
  const { rows } = await pool.query(
    `SELECT s.currency, count(*)::int AS sales, sum(s.amount_cents)::text AS revenue_cents,
            coalesce(sum(c.earned_cents), 0)::text AS commission_cents,
            coalesce(sum(c.earned_cents) FILTER (WHERE c.state IN ('pending', 'held')), 0)::text AS commission_pending_cents,
            coalesce(sum(c.earned_cents) FILTER (WHERE c.state IN ('approved', 'in_payout')), 0)::text AS commission_approved_cents,
            coalesce(sum(c.earned_cents) FILTER (WHERE c.state = 'paid'), 0)::text AS commission_paid_cents
       FROM sales s LEFT JOIN commission_states c ON c.sale_id = s.id AND c.state <> 'test'
      WHERE s.program_id = $1 AND NOT s.test AND s.occurred_at >= $2 AND s.occurred_at < $3
      GROUP BY s.currency ORDER BY s.currency`,
    [programId, from, to],
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

/**
 * The funnel counts people, not events: the period's clicks; the people who signed up in it; of
 * those, the ones who have bought (never more than signed up); and everyone who bought in it
 * (with or without a signup first: a Stripe checkout, a promo code).
 */
export async function funnelTotals(pool: Pool, programId: number, filter: Omit<ActivityFilter, 'mode'>) {
  const { rows } = await pool.query(
    `SELECT count(*) FILTER (WHERE e.kind = 'click')::int AS clicks,
            count(DISTINCT e.customer_id) FILTER (WHERE e.kind = 'lead')::int AS leads,
            count(DISTINCT e.customer_id) FILTER (WHERE e.kind = 'lead' AND EXISTS (SELECT 1 FROM sales b WHERE b.customer_id = e.customer_id AND NOT b.test))::int AS converted,
            count(DISTINCT e.customer_id) FILTER (WHERE e.kind = 'sale')::int AS buyers
       FROM tracking_events e
       LEFT JOIN customers cu ON cu.id = e.customer_id
       LEFT JOIN sales s ON s.id = e.sale_id
      WHERE e.program_id = $1 AND NOT e.test AND e.created_at >= $2 AND e.created_at < $3
        AND ($4::bigint IS NULL OR coalesce(s.partner_id, cu.partner_id, (SELECT k.partner_id FROM clicks k WHERE k.click_id = e.click_id LIMIT 1)) = $4)`,
    [programId, filter.from, filter.to, filter.partnerId],
  );
  return rows[0] as { clicks: number; leads: number; converted: number; buyers: number };
}
