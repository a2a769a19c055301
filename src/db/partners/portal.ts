// The partner portal's data: invitations, one-time sign-in links, sessions, and what a partner
// sees. Every read is scoped by the partner rows of the signed-in email (never by a request id
// alone); customers appear only as counts.
import type { PayoutFacts } from '../../core/payout-export.js';
import type { CommissionState } from '../../core/commission-ledger.js';
import { describeCommission } from '../../core/programs.js';
import { allTimeTotals, measureState } from '../reads/page-rollups.js';
import type { Pool, PoolClient } from '../infra/pool.js';

export async function markInvited(pool: Pool | PoolClient, programId: number, partnerId: number, at: Date): Promise<{ email: string | null; name: string; programName: string } | null> {
  const { rows } = await pool.query(
    `UPDATE partners pa SET invited_at = coalesce(pa.invited_at, $3) FROM programs p
      WHERE pa.program_id = $1 AND pa.id = $2 AND p.id = pa.program_id
      RETURNING pa.email, pa.name, p.name AS program_name`,
    [programId, partnerId, at],
  );
  return rows[0] ? { email: rows[0].email, name: rows[0].name, programName: rows[0].program_name } : null;
}

export async function insertSignInLink(db: Pool | PoolClient, tokenHash: Buffer, email: string, expiresAt: Date): Promise<void> {
  await db.query('INSERT INTO partner_sign_in_links (token_hash, email, expires_at) VALUES ($1, lower($2), $3)', [tokenHash, email, expiresAt]);
}

/** Uses the link once: its email, or null when unknown, used or expired. */
export async function consumeSignInLink(pool: Pool, tokenHash: Buffer, now: Date): Promise<string | null> {
  const { rows } = await pool.query(
    'UPDATE partner_sign_in_links SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING email',
    [tokenHash, now],
  );
  return rows[0]?.email ?? null;
}

/** Every enrollment of this email still 'invited' becomes 'approved' (its first sign-in). */
export async function acceptInvitations(pool: Pool, email: string, at: Date): Promise<void> {
  await pool.query(
    "UPDATE partners SET status = 'approved', status_changed_at = $2, updated_at = $2 WHERE lower(email) = lower($1) AND status = 'invited' AND invited_at IS NOT NULL",
    [email, at],
  );
}

export async function insertPartnerSession(pool: Pool, tokenHash: Buffer, email: string, expiresAt: Date): Promise<void> {
  await pool.query('INSERT INTO partner_sessions (token_hash, email, expires_at) VALUES ($1, $2, $3)', [tokenHash, email, expiresAt]);
}

export async function partnerSessionEmail(pool: Pool, tokenHash: Buffer, now: Date): Promise<string | null> {
  const { rows } = await pool.query('SELECT email FROM partner_sessions WHERE token_hash = $1 AND expires_at > $2', [tokenHash, now]);
  return rows[0]?.email ?? null;
}

export async function endPartnerSession(pool: Pool, tokenHash: Buffer): Promise<void> {
  await pool.query('DELETE FROM partner_sessions WHERE token_hash = $1', [tokenHash]);
}

export interface PortalPartner {
  partnerId: number;
  name: string;
  programId: number;
  programName: string;
  domain: string;
  canCreateLinks: boolean;
  /** How many links the partner may have when making their own. */
  linkLimit: number;
  /** The program's terms as every surface words them (describeCommission). */
  commission: string;
  payoutMethod: string | null;
  payoutReference: string | null;
  payoutCurrency: string | null;
  /** The program's own host for its partners' links (go.brand.com), or null. */
  linksHost: string | null;
}

/**
 * The partner rows (one per program) of this email that a brand invited and that stand in the
 * program (not banned, not an open application); with an account, only that brand's programs
 * (the portal on the brand's own host).
 */
export async function partnersOfEmail(pool: Pool, email: string, accountId: number | null = null): Promise<PortalPartner[]> {
  const { rows } = await pool.query(
    `SELECT pa.id, pa.name, p.id AS program_id, p.name AS program_name, p.domain, t.can_create_links,
            t.commission_type, t.commission_rate, t.recurring_duration_months, p.partner_link_limit, pa.payout_method, pa.payout_reference, pa.payout_currency, pa.status,
            d.host AS links_host
       FROM partners pa JOIN programs p ON p.id = pa.program_id JOIN partner_terms t ON t.partner_id = pa.id
       LEFT JOIN program_domains d ON d.program_id = p.id AND d.kind = 'links'
      WHERE lower(pa.email) = lower($1) AND pa.invited_at IS NOT NULL AND pa.status IN ('approved', 'invited', 'archived')
        AND ($2::bigint IS NULL OR p.account_id = $2)
      ORDER BY p.name, pa.id`,
    [email, accountId],
  );
  return rows.map((row) => ({
    partnerId: Number(row.id),
    name: row.name,
    programId: Number(row.program_id),
    programName: row.program_name,
    domain: row.domain,
    // Their terms as they are paid now: an override, their group's, or the program's (the partner_terms view).
    canCreateLinks: row.can_create_links && row.status !== 'archived',
    linkLimit: row.partner_link_limit,
    commission: describeCommission(row.commission_type, row.commission_rate, row.recurring_duration_months),
    payoutMethod: row.payout_method,
    payoutReference: row.payout_reference,
    payoutCurrency: row.payout_currency,
    linksHost: row.links_host ?? null,
  }));
}

/** Each partner row's clicks, leads and sales (live, all time), for these partner ids only (the caller's own). */
export async function partnerFunnels(pool: Pool, partnerIds: number[]): Promise<Array<{ partnerId: number; clicks: number; leads: number; sales: number }>> {
  const totals = await allTimeTotals(pool, partnerIds, ['clicks', 'leads', 'sales']);
  const sum = (partnerId: number, measure: string) => totals.filter((t) => t.partnerId === partnerId && t.measure === measure).reduce((n, t) => n + t.value, 0);
  return partnerIds.map((partnerId) => ({ partnerId, clicks: sum(partnerId, 'clicks'), leads: sum(partnerId, 'leads'), sales: sum(partnerId, 'sales') }));
}

/** Per state as every surface reads it (the commission_states rule), how many and what they earn now. */
export async function commissionsByState(pool: Pool, partnerIds: number[]): Promise<Array<{ partnerId: number; currency: string; state: CommissionState; count: number; cents: number }>> {
  const totals = await allTimeTotals(pool, partnerIds, ['commissions:%', 'earned:%']);
  const byState = new Map<string, { partnerId: number; currency: string; state: CommissionState; count: number; cents: number }>();
  for (const t of totals) {
    const state = measureState(t.measure);
    if (state === 'moved') continue;
    const key = `${t.partnerId} ${t.currency} ${state}`;
    const row = byState.get(key) ?? { partnerId: t.partnerId, currency: t.currency, state, count: 0, cents: 0 };
    if (t.measure.startsWith('commissions:')) row.count += t.value;
    else row.cents += t.value;
    byState.set(key, row);
  }
  return [...byState.values()].filter((r) => r.count !== 0).sort((x, y) => x.partnerId - y.partnerId || x.currency.localeCompare(y.currency) || x.state.localeCompare(y.state));
}

/** Each partner row's balance per currency: awaiting approval, approved, paid (the ledger's sums). */
export async function partnerBalances(pool: Pool, partnerIds: number[]): Promise<Array<{ partnerId: number; currency: string; pendingCents: number; approvedCents: number; paidCents: number }>> {
  const totals = await allTimeTotals(pool, partnerIds, ['ledger_%']);
  const balances = new Map<string, { partnerId: number; currency: string; pendingCents: number; approvedCents: number; paidCents: number }>();
  for (const t of totals) {
    const key = `${t.partnerId} ${t.currency}`;
    const row = balances.get(key) ?? { partnerId: t.partnerId, currency: t.currency, pendingCents: 0, approvedCents: 0, paidCents: 0 };
    if (t.measure === 'ledger_pending') row.pendingCents += t.value;
    if (t.measure === 'ledger_approved') row.approvedCents += t.value;
    if (t.measure === 'ledger_paid') row.paidCents += t.value;
    balances.set(key, row);
  }
  return [...balances.values()];
}

/** One partner's links, without their numbers: what a link builder or a QR code needs. */
export async function partnerLinks(pool: Pool, partnerId: number): Promise<Array<{ linkId: number; shortLink: string }>> {
  const { rows } = await pool.query('SELECT id, short_link FROM referral_links WHERE partner_id = $1 ORDER BY id', [partnerId]);
  return rows.map((r) => ({ linkId: Number(r.id), shortLink: r.short_link }));
}

export interface LinkNumbers {
  linkId: number;
  shortLink: string;
  enabled: boolean;
  clicks: number;
  leads: number;
  sales: number;
  /** What the link's customers earned the partner, per currency (nothing once rejected, reversed or moved). */
  earned: Array<{ currency: string; cents: number }>;
}

/** One partner's links with each link's clicks, leads, sales and earnings (live, all time). */
export async function linkNumbers(pool: Pool, partnerId: number): Promise<LinkNumbers[]> {
  const [links, totals] = await Promise.all([
    pool.query('SELECT id, short_link, enabled FROM referral_links WHERE partner_id = $1 ORDER BY id', [partnerId]),
    allTimeTotals(pool, [partnerId], ['clicks', 'leads', 'sales', 'earned:%']),
  ]);
  return links.rows.map((r) => {
    const mine = totals.filter((t) => t.linkId === Number(r.id));
    const count = (measure: string) => mine.filter((t) => t.measure === measure).reduce((n, t) => n + t.value, 0);
    const earned = new Map<string, number>();
    for (const t of mine) if (t.measure.startsWith('earned:') && !['moved', 'test'].includes(measureState(t.measure))) earned.set(t.currency, (earned.get(t.currency) ?? 0) + t.value);
    return {
      linkId: Number(r.id),
      shortLink: r.short_link,
      enabled: r.enabled,
      clicks: count('clicks'),
      leads: count('leads'),
      sales: count('sales'),
      earned: [...earned].filter(([, cents]) => cents !== 0).sort(([a], [b]) => a.localeCompare(b)).map(([currency, cents]) => ({ currency, cents })),
    };
  });
}

/** Earnings per calendar month (UTC) and currency since `since`, by the day of each commission's sale. */
export { monthlyEarned as monthlyEarnings } from '../reads/page-rollups.js';

export interface PayoutRecord extends PayoutFacts {
  /** How many commissions it paid. */
  commissions: number;
  /** As the run recorded it (null before runs recorded it). */
  payoutMethod: string | null;
}

/** The partner's payouts, newest first, with their references and how many commissions each paid. */
export async function payoutHistory(pool: Pool, partnerId: number): Promise<PayoutRecord[]> {
  const { rows } = await pool.query(
    `SELECT p.id, p.currency, p.amount_cents, p.status, p.reference, p.paid_at, p.created_at, p.payout_method,
            (SELECT count(*) FROM commissions c WHERE c.payout_id = p.id)::int AS commissions
       FROM payouts p WHERE p.partner_id = $1 AND p.status <> 'canceled' ORDER BY p.id DESC LIMIT 200`,
    [partnerId],
  );
  return rows.map((r) => ({
    id: Number(r.id), currency: r.currency, amountCents: Number(r.amount_cents), status: r.status, reference: r.reference, paidAt: r.paid_at, createdAt: r.created_at, commissions: r.commissions, payoutMethod: r.payout_method as string | null,
  }));
}

/**
 * One payout of the partner's with the commissions it paid: the statement. Null when it is not theirs.
 * Each line is the amount fixed when the payout was made (payout_cents): a later refund is a clawback
 * on a later payout, never a change to what this one paid.
 */
export async function payoutStatement(pool: Pool, partnerId: number, payoutId: number) {
  const payout = await pool.query(
    `SELECT p.id, p.currency, p.amount_cents, p.status, p.reference, p.paid_at, p.created_at, pr.name AS program_name, pa.name AS partner_name
       FROM payouts p JOIN programs pr ON pr.id = p.program_id JOIN partners pa ON pa.id = p.partner_id
      WHERE p.id = $1 AND p.partner_id = $2 AND p.status <> 'canceled'`,
    [payoutId, partnerId],
  );
  if (!payout.rows[0]) return null;
  const lines = await pool.query(
    `SELECT c.id, s.processor_event_id AS transaction_id, coalesce(s.occurred_at, c.created_at) AS occurred_at, s.amount_cents AS sale_cents, c.payout_cents AS earned_cents
       FROM commissions c LEFT JOIN sales s ON s.id = c.sale_id WHERE c.payout_id = $1 AND c.partner_id = $2 ORDER BY c.id`,
    [payoutId, partnerId],
  );
  const p = payout.rows[0];
  return {
    id: Number(p.id), currency: p.currency as string, amountCents: Number(p.amount_cents), status: p.status as string, reference: p.reference as string | null,
    paidAt: p.paid_at as Date | null, createdAt: p.created_at as Date, programName: p.program_name as string, partnerName: p.partner_name as string,
    commissions: lines.rows.map((l) => ({ id: Number(l.id), transactionId: l.transaction_id as string | null, occurredAt: l.occurred_at as Date, saleCents: l.sale_cents === null ? null : Number(l.sale_cents), earnedCents: Number(l.earned_cents) })),
  };
}

/** What the program tells its partners: its terms and resources. */
export async function programForPartners(pool: Pool, programId: number) {
  const { rows } = await pool.query('SELECT terms_text, terms_version, partner_resources FROM programs WHERE id = $1', [programId]);
  return { termsText: rows[0].terms_text as string, termsVersion: rows[0].terms_version as string, resources: rows[0].partner_resources as string };
}
