// Bounties, their submissions and awards (docs/rewards.md "Bounties"), and the commission an
// award makes. Every read is scoped by program (or, for the portal, by partner); the award's
// unique key (bounty, partner, period) and the submission's make each once, however often or
// concurrently the evaluation runs.
import type { BountyKind, BountyMetric, PartnerMeasure, RefundRule } from '../../core/bounties.js';
import { createdEntry } from '../../core/commission-ledger.js';
import type { Currency } from '../../core/types.js';
import type { Pool, PoolClient } from '../infra/pool.js';
import { appendLines } from './ledger.js';

type Queryable = Pool | PoolClient;

export interface BountyRow {
  id: number;
  programId: number;
  groupId: number | null;
  kind: BountyKind;
  name: string;
  description: string;
  rewardCents: number;
  currency: Currency;
  metric: BountyMetric | null;
  metricCurrency: Currency | null;
  threshold: number | null;
  refundRule: RefundRule | null;
  onceOnly: boolean;
  archivedAt: Date | null;
  createdAt: Date;
}

const BOUNTY_COLUMNS = 'id, program_id, group_id, kind, name, description, reward_cents, currency, metric, metric_currency, threshold, refund_rule, once_only, archived_at, created_at';

const toBounty = (r: any): BountyRow => ({
  id: Number(r.id),
  programId: Number(r.program_id),
  groupId: r.group_id === null ? null : Number(r.group_id),
  kind: r.kind,
  name: r.name,
  description: r.description,
  rewardCents: Number(r.reward_cents),
  currency: r.currency,
  metric: r.metric,
  metricCurrency: r.metric_currency,
  threshold: r.threshold === null ? null : Number(r.threshold),
  refundRule: r.refund_rule,
  onceOnly: r.once_only,
  archivedAt: r.archived_at,
  createdAt: r.created_at,
});

export type NewBounty = Omit<BountyRow, 'id' | 'archivedAt'>;

export async function insertBounty(db: Queryable, b: NewBounty): Promise<BountyRow> {
  const { rows } = await db.query(
    `INSERT INTO bounties (program_id, group_id, kind, name, description, reward_cents, currency, metric, metric_currency, threshold, refund_rule, once_only, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${BOUNTY_COLUMNS}`,
    [b.programId, b.groupId, b.kind, b.name, b.description, b.rewardCents, b.currency, b.metric, b.metricCurrency, b.threshold, b.refundRule, b.onceOnly, b.createdAt],
  );
  return toBounty(rows[0]);
}

export async function listBounties(db: Queryable, programId: number, options: { archived?: boolean } = {}): Promise<BountyRow[]> {
  const { rows } = await db.query(
    `SELECT ${BOUNTY_COLUMNS} FROM bounties WHERE program_id = $1 AND ($2::boolean OR archived_at IS NULL) ORDER BY id DESC LIMIT 200`,
    [programId, options.archived ?? false],
  );
  return rows.map(toBounty);
}

export async function getBounty(db: Queryable, programId: number, bountyId: number): Promise<BountyRow | null> {
  const { rows } = await db.query(`SELECT ${BOUNTY_COLUMNS} FROM bounties WHERE program_id = $1 AND id = $2`, [programId, bountyId]);
  return rows[0] ? toBounty(rows[0]) : null;
}

/** Archives it (its awards and commissions stay); null when it is not the program's. */
export async function archiveBounty(db: Queryable, programId: number, bountyId: number, at: Date): Promise<BountyRow | null> {
  const { rows } = await db.query(
    `UPDATE bounties SET archived_at = coalesce(archived_at, $3) WHERE program_id = $1 AND id = $2 RETURNING ${BOUNTY_COLUMNS}`,
    [programId, bountyId, at],
  );
  return rows[0] ? toBounty(rows[0]) : null;
}

/** The live bounties a partner of the program may take part in (theirs by group, or everyone's). */
export async function bountiesForPartner(db: Queryable, programId: number, partnerId: number): Promise<BountyRow[]> {
  const { rows } = await db.query(
    `SELECT ${BOUNTY_COLUMNS.split(', ').map((c) => `b.${c}`).join(', ')} FROM bounties b JOIN partners pa ON pa.id = $2 AND pa.program_id = $1 AND pa.status = 'approved'
      WHERE b.program_id = $1 AND b.archived_at IS NULL AND (b.group_id IS NULL OR b.group_id = pa.group_id) ORDER BY b.id DESC LIMIT 100`,
    [programId, partnerId],
  );
  return rows.map(toBounty);
}

/** Programs with live performance bounties (the evaluation's list; a partial index holds exactly these). */
export async function programsWithPerformanceBounties(db: Queryable): Promise<number[]> {
  const { rows } = await db.query("SELECT DISTINCT program_id FROM bounties WHERE kind = 'performance' AND archived_at IS NULL ORDER BY program_id");
  return rows.map((r) => Number(r.program_id));
}

export async function livePerformanceBounties(db: Queryable, programId: number): Promise<BountyRow[]> {
  const { rows } = await db.query(`SELECT ${BOUNTY_COLUMNS} FROM bounties WHERE program_id = $1 AND kind = 'performance' AND archived_at IS NULL ORDER BY id`, [programId]);
  return rows.map(toBounty);
}

/** What a sale's refunds took back, net (as the refund path counts them: db/tracking/tracking-tx.ts). */
const TAKEN_BACK = `coalesce(sum(r.amount_cents) FILTER (WHERE r.reason IN ('refund', 'chargeback') AND r.reverted_at IS NULL), 0)
  - coalesce(sum(r.amount_cents) FILTER (WHERE r.reason IN ('refund_failed', 'chargeback_reversed')), 0)`;

/**
 * Each approved partner's measure for the bounty in [start, end): recorded, and net of the refunds
 * known now. New customers: customers whose first paid sale (by the payment's time) falls in the
 * month; net, those whose sales of the month are not all refunded. Revenue: the month's sales in
 * the metric's currency. One range of the program's partner-sales index.
 */
export async function measurePartners(db: Queryable, bounty: BountyRow, start: Date, end: Date): Promise<PartnerMeasure[]> {
  const { rows } = await db.query(
    `WITH s AS (
       SELECT s.partner_id, s.customer_id, s.amount_cents,
              greatest(0, s.amount_cents - (SELECT ${TAKEN_BACK} FROM refunds r WHERE r.sale_id = s.id)) AS net_cents
         FROM sales s JOIN partners pa ON pa.id = s.partner_id AND pa.program_id = $1 AND pa.status = 'approved' AND ($4::bigint IS NULL OR pa.group_id = $4)
        WHERE s.program_id = $1 AND s.partner_id IS NOT NULL AND NOT s.test AND s.occurred_at >= $2 AND s.occurred_at < $3
          AND ($5::text IS NULL OR s.currency = $5)
     ), counted AS (
       SELECT partner_id, customer_id, sum(amount_cents) AS cents, sum(net_cents) AS net FROM s
        WHERE $6 = 'revenue' OR (customer_id IS NOT NULL AND NOT EXISTS (
                SELECT 1 FROM sales o WHERE o.customer_id = s.customer_id AND o.program_id = $1 AND NOT o.test AND o.occurred_at < $2))
        GROUP BY partner_id, customer_id
     )
     SELECT partner_id,
            CASE WHEN $6 = 'revenue' THEN sum(cents) ELSE count(*) END::bigint AS recorded,
            CASE WHEN $6 = 'revenue' THEN sum(net) ELSE count(*) FILTER (WHERE net > 0) END::bigint AS net
       FROM counted GROUP BY partner_id ORDER BY partner_id`,
    [bounty.programId, start, end, bounty.groupId, bounty.metric === 'revenue' ? bounty.metricCurrency : null, bounty.metric],
  );
  return rows.map((r) => ({ partnerId: Number(r.partner_id), recorded: Number(r.recorded), net: Number(r.net) }));
}

/** Partners already awarded the bounty for the period. */
export async function awardedPartners(db: Queryable, programId: number, bountyId: number, period: string): Promise<Set<number>> {
  const { rows } = await db.query('SELECT partner_id FROM bounty_awards WHERE program_id = $1 AND bounty_id = $2 AND period = $3', [programId, bountyId, period]);
  return new Set(rows.map((r) => Number(r.partner_id)));
}

export interface MadeAward {
  awardId: number;
  partnerId: number;
  commissionId: number;
  measured: number | null;
}

/**
 * Awards and their commissions, in the caller's transaction: the award rows that the unique key
 * lets in (a concurrent evaluation's are skipped, never doubled), then one pending commission
 * each (the partner's hold, the bounty's words), each with its 'created' ledger entry.
 */
export async function insertAwards(
  client: PoolClient,
  bounty: Pick<BountyRow, 'id' | 'programId' | 'rewardCents' | 'currency'>,
  awards: Array<{ partnerId: number; period: string | null; submissionId: number | null; measured: number | null }>,
  words: string,
  at: Date,
): Promise<MadeAward[]> {
  if (awards.length === 0) return [];
  const { rows } = await client.query(
    `WITH made AS (
       INSERT INTO bounty_awards (program_id, bounty_id, partner_id, period, submission_id, measured, created_at)
       SELECT $1, $2, x.partner_id, x.period, x.submission_id, x.measured, $7
         FROM unnest($3::bigint[], $4::date[], $5::bigint[], $6::bigint[]) AS x (partner_id, period, submission_id, measured)
       ON CONFLICT DO NOTHING
       RETURNING id, partner_id, measured
     )
     INSERT INTO commissions (program_id, partner_id, amount_cents, currency, stage, test, hold_days, bounty_award_id, reward_words, created_at, updated_at)
     SELECT $1, m.partner_id, $8, $9, 'pending', false, t.hold_days, m.id, $10, $7, $7
       FROM made m JOIN partner_terms t ON t.partner_id = m.partner_id AND t.program_id = $1
     ORDER BY m.partner_id
     RETURNING id, partner_id, bounty_award_id, (SELECT measured FROM made WHERE made.id = bounty_award_id) AS measured`,
    [
      bounty.programId, bounty.id, awards.map((a) => a.partnerId), awards.map((a) => a.period), awards.map((a) => a.submissionId), awards.map((a) => a.measured), at,
      bounty.rewardCents, bounty.currency, words,
    ],
  );
  const made = rows.map((r) => ({ awardId: Number(r.bounty_award_id), partnerId: Number(r.partner_id), commissionId: Number(r.id), measured: r.measured === null ? null : Number(r.measured) }));
  await appendLines(
    client,
    made.map((m) => ({ commissionId: m.commissionId, programId: bounty.programId, partnerId: m.partnerId, currency: bounty.currency, entry: createdEntry(bounty.rewardCents) })),
  );
  return made;
}

// ---- submissions ---------------------------------------------------------------------------

export interface SubmissionRow {
  id: number;
  programId: number;
  bountyId: number;
  bountyName: string;
  partnerId: number;
  partnerName: string;
  content: string;
  status: 'pending' | 'approved' | 'rejected';
  reason: string | null;
  decidedAt: Date | null;
  createdAt: Date;
  /** The commission its approval made. */
  commissionId: number | null;
}

const SUBMISSION_SELECT = `SELECT s.id, s.program_id, s.bounty_id, b.name AS bounty_name, s.partner_id, pa.name AS partner_name, s.content, s.status, s.reason, s.decided_at, s.created_at,
       (SELECT c.id FROM bounty_awards a JOIN commissions c ON c.bounty_award_id = a.id WHERE a.submission_id = s.id) AS commission_id
  FROM bounty_submissions s JOIN bounties b ON b.id = s.bounty_id AND b.program_id = s.program_id JOIN partners pa ON pa.id = s.partner_id`;

const toSubmission = (r: any): SubmissionRow => ({
  id: Number(r.id),
  programId: Number(r.program_id),
  bountyId: Number(r.bounty_id),
  bountyName: r.bounty_name,
  partnerId: Number(r.partner_id),
  partnerName: r.partner_name,
  content: r.content,
  status: r.status,
  reason: r.reason,
  decidedAt: r.decided_at,
  createdAt: r.created_at,
  commissionId: r.commission_id === null ? null : Number(r.commission_id),
});

/** A new submission; null when the bounty is once-only and the partner already submitted. */
export async function insertSubmission(db: Queryable, s: { programId: number; bountyId: number; partnerId: number; content: string; onceOnly: boolean; at: Date }): Promise<number | null> {
  const { rows } = await db.query(
    `INSERT INTO bounty_submissions (program_id, bounty_id, partner_id, content, once_only, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT DO NOTHING RETURNING id`,
    [s.programId, s.bountyId, s.partnerId, s.content, s.onceOnly, s.at],
  );
  return rows[0] ? Number(rows[0].id) : null;
}

export async function listSubmissions(db: Queryable, programId: number, options: { status?: SubmissionRow['status']; bountyId?: number; limit?: number } = {}): Promise<SubmissionRow[]> {
  const { rows } = await db.query(
    `${SUBMISSION_SELECT} WHERE s.program_id = $1 AND ($2::text IS NULL OR s.status = $2) AND ($3::bigint IS NULL OR s.bounty_id = $3) ORDER BY s.id DESC LIMIT $4`,
    [programId, options.status ?? null, options.bountyId ?? null, options.limit ?? 200],
  );
  return rows.map(toSubmission);
}

export async function partnerSubmissions(db: Queryable, programId: number, partnerId: number): Promise<SubmissionRow[]> {
  const { rows } = await db.query(`${SUBMISSION_SELECT} WHERE s.partner_id = $2 AND s.program_id = $1 ORDER BY s.id DESC LIMIT 100`, [programId, partnerId]);
  return rows.map(toSubmission);
}

/** One submission of the program, locked (null when it is not the program's). */
export async function lockSubmission(client: PoolClient, programId: number, submissionId: number): Promise<SubmissionRow | null> {
  const { rows } = await client.query(`${SUBMISSION_SELECT} WHERE s.program_id = $1 AND s.id = $2 FOR UPDATE OF s`, [programId, submissionId]);
  return rows[0] ? toSubmission(rows[0]) : null;
}

export async function getSubmission(db: Queryable, programId: number, submissionId: number): Promise<SubmissionRow | null> {
  const { rows } = await db.query(`${SUBMISSION_SELECT} WHERE s.program_id = $1 AND s.id = $2`, [programId, submissionId]);
  return rows[0] ? toSubmission(rows[0]) : null;
}

export async function decideSubmission(client: PoolClient, submissionId: number, decision: { status: 'approved' | 'rejected'; reason: string | null; at: Date }): Promise<void> {
  await client.query('UPDATE bounty_submissions SET status = $2, reason = $3, decided_at = $4 WHERE id = $1', [submissionId, decision.status, decision.reason, decision.at]);
}

/** Where a partner's bounty mail goes (null: no address, or banned). */
export async function partnerAddresses(db: Queryable, programId: number, partnerIds: number[]): Promise<Map<number, string>> {
  const { rows } = await db.query("SELECT id, email FROM partners WHERE program_id = $1 AND id = ANY ($2::bigint[]) AND email IS NOT NULL AND status <> 'banned'", [programId, partnerIds]);
  return new Map(rows.map((r) => [Number(r.id), r.email as string]));
}

/** The enrollment's status (null when it is not the program's). */
export async function partnerStatus(db: Queryable, programId: number, partnerId: number): Promise<string | null> {
  const { rows } = await db.query('SELECT status FROM partners WHERE program_id = $1 AND id = $2', [programId, partnerId]);
  return rows[0]?.status ?? null;
}
