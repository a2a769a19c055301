// Commissions' lifecycle, balances and payout batches. Every read is scoped by program; every
// change runs inside the caller's transaction and appends its ledger entries there.
import type { ClaimRelease, ClaimedClawback, CommissionPosition, CommissionStage, CommissionState, LedgerEntry, PayableItem, PayoutLine, PayoutMinimums } from '../../core/commission-ledger.js';
import type { FraudThresholds } from '../../core/fraud.js';
import type { Currency } from '../../core/types.js';
import { appendLines } from './ledger.js';
import type { Pool, PoolClient } from '../infra/pool.js';
import { linksChanged } from '../tracking/link-cache.js';

type Queryable = Pool | PoolClient;

export interface CommissionRow extends CommissionPosition {
  id: number;
  programId: number;
  partnerId: number | null;
  partnerName: string | null;
  /** Null for a commission without a sale: bountyAwardId, leadCustomerId (the lead's customer) or clickRewardDayId names its source instead. */
  saleId: number | null;
  transactionId: string | null;
  bountyAwardId: number | null;
  leadCustomerId: number | null;
  clickRewardDayId: number | null;
  currency: Currency;
  test: boolean;
  /** What the payout that claimed it pays for it. */
  payoutCents: number | null;
  /** The fraud signals that held it, if any. */
  holdReasons: string[];
  /** As every surface shows it (the commission_states view), and what it earns now. */
  state: CommissionState;
  earnedCents: number;
  /** Its own hold period (its group's terms when it was made); null: the program's. */
  holdDays: number | null;
  /** Why it is what it is, in words (null: made before commissions explained themselves). */
  rewardWords: string | null;
}

const COMMISSION_FIELDS = `c.id, c.program_id, c.partner_id, pa.name AS partner_name, c.sale_id, s.processor_event_id, c.currency, (coalesce(s.test, false) OR c.test) AS test, c.bounty_award_id, c.lead_customer_id, c.click_reward_day_id,
         c.stage, c.status, c.payout_id, c.payout_cents, c.amount_cents, c.deducted_cents, c.created_at, c.auto_approve, c.hold_reasons, cs.state, cs.earned_cents, c.hold_days AS own_hold_days, c.reward_words`;
const COMMISSION_FROM = 'commissions c JOIN commission_states cs ON cs.id = c.id LEFT JOIN sales s ON s.id = c.sale_id LEFT JOIN partners pa ON pa.id = c.partner_id';
const COMMISSION_SELECT = `SELECT ${COMMISSION_FIELDS} FROM ${COMMISSION_FROM}`;

const toCommissionRow = (row: any): CommissionRow => ({
  id: Number(row.id),
  programId: Number(row.program_id),
  partnerId: row.partner_id === null ? null : Number(row.partner_id),
  partnerName: row.partner_name,
  saleId: row.sale_id === null ? null : Number(row.sale_id),
  transactionId: row.processor_event_id ?? null,
  bountyAwardId: row.bounty_award_id === null ? null : Number(row.bounty_award_id),
  leadCustomerId: row.lead_customer_id == null ? null : Number(row.lead_customer_id),
  clickRewardDayId: row.click_reward_day_id == null ? null : Number(row.click_reward_day_id),
  currency: row.currency,
  test: row.test,
  stage: row.stage,
  status: row.status,
  payoutId: row.payout_id === null ? null : Number(row.payout_id),
  payoutCents: row.payout_cents === null ? null : Number(row.payout_cents),
  amountCents: Number(row.amount_cents),
  deductedCents: Number(row.deducted_cents),
  createdAt: row.created_at,
  autoApprove: row.auto_approve,
  holdReasons: row.hold_reasons ?? [],
  state: row.state,
  earnedCents: Number(row.earned_cents),
  holdDays: row.own_hold_days ?? null,
  rewardWords: row.reward_words ?? null,
});

/** Locks one commission of the program (null when it is not the program's). */
export async function lockCommission(client: PoolClient, programId: number, commissionId: number): Promise<CommissionRow | null> {
  const { rows } = await client.query(`${COMMISSION_SELECT} WHERE c.program_id = $1 AND c.id = $2 FOR UPDATE OF c`, [programId, commissionId]);
  return rows[0] ? toCommissionRow(rows[0]) : null;
}

/** The program's commissions among `ids`, locked in id order (the one lock order of commission batches). */
export async function lockCommissions(client: PoolClient, programId: number, ids: number[]): Promise<CommissionRow[]> {
  const { rows } = await client.query(`${COMMISSION_SELECT} WHERE c.program_id = $1 AND c.id = ANY ($2::bigint[]) ORDER BY c.id FOR UPDATE OF c`, [programId, ids]);
  return rows.map(toCommissionRow);
}

/** The program's commissions among `ids`, unlocked (what a bulk action would act on, read before asking). */
export async function commissionsOf(db: Queryable, programId: number, ids: number[]): Promise<CommissionRow[]> {
  const { rows } = await db.query(`${COMMISSION_SELECT} WHERE c.program_id = $1 AND c.id = ANY ($2::bigint[]) ORDER BY c.id`, [programId, ids]);
  return rows.map(toCommissionRow);
}

export async function getCommission(db: Queryable, programId: number, commissionId: number): Promise<CommissionRow | null> {
  const { rows } = await db.query(`${COMMISSION_SELECT} WHERE c.program_id = $1 AND c.id = $2`, [programId, commissionId]);
  return rows[0] ? toCommissionRow(rows[0]) : null;
}

/** What a bulk action on a filter selects, besides the stage it applies to. */
export interface CommissionFilter {
  state?: CommissionState;
  partner_id?: number;
  /** Made on or after / before these instants. */
  from?: Date;
  to?: Date;
  /** Only pending commissions whose hold is over at this instant. */
  pastHoldAt?: Date;
}

const FILTER_SQL = (p: number) => `($${p}::text IS NULL OR cs.state = $${p}) AND ($${p + 1}::bigint IS NULL OR c.partner_id = $${p + 1})
        AND ($${p + 2}::timestamptz IS NULL OR c.created_at >= $${p + 2}) AND ($${p + 3}::timestamptz IS NULL OR c.created_at < $${p + 3})
        AND ($${p + 4}::timestamptz IS NULL OR c.created_at <= $${p + 4}::timestamptz - make_interval(days => coalesce(c.hold_days, (SELECT hold_days FROM programs WHERE id = c.program_id))))`;
const filterParams = (f: CommissionFilter) => [f.state ?? null, f.partner_id ?? null, f.from ?? null, f.to ?? null, f.pastHoldAt ?? null];

/** Ids of the program's commissions in a stage (optionally filtered), after `afterId`, for bulk actions on a filter. */
export async function commissionIdsMatching(db: Queryable, programId: number, filter: CommissionFilter & { stage: CommissionStage }, afterId: number, limit: number): Promise<number[]> {
  const { rows } = await db.query(
    `SELECT c.id FROM commissions c JOIN commission_states cs ON cs.id = c.id
      WHERE c.program_id = $1 AND c.stage = $2 AND c.id > $3 AND ${FILTER_SQL(5)}
      ORDER BY c.id LIMIT $4`,
    [programId, filter.stage, afterId, limit, ...filterParams(filter)],
  );
  return rows.map((r) => Number(r.id));
}

/** Per currency: how many pending commissions (not test, earning something) a filter matches and what they earn, all and past their hold. */
export interface ApprovalSums {
  currency: Currency;
  count: number;
  cents: number;
  pastHoldCount: number;
  pastHoldCents: number;
}

/**
 * The program's pending commissions a filter matches, summed per currency, and those past their
 * hold at `now`: what an approval of them all would approve. Without dates (the Payouts page as it
 * opens, or filtered by partner) the totals come from the page rollups and only the commissions
 * still inside their hold are read, so the cost follows the hold period, not the program's
 * history; with dates, the commissions made in that range are read.
 */
export async function approvalSums(db: Queryable, programId: number, filter: CommissionFilter, now: Date): Promise<ApprovalSums[]> {
  if (filter.from || filter.to) return approvalSumsInRange(db, programId, filter, now);
  // The commission_states rule ('pending': waiting, earning something, not a test, not moved), as the rollups count it.
  const { rows: totals } = await db.query(
    `SELECT currency, coalesce(sum(value) FILTER (WHERE measure = 'commissions:pending'), 0)::bigint AS n,
            coalesce(sum(value) FILTER (WHERE measure = 'earned:pending'), 0)::bigint AS cents
       FROM page_rollups WHERE program_id = $1 AND partner_id = $2 AND link_id = -1 AND day < 'infinity' AND measure IN ('commissions:pending', 'earned:pending')
      GROUP BY currency HAVING sum(value) FILTER (WHERE measure = 'commissions:pending') <> 0 ORDER BY currency`,
    [programId, filter.partner_id ?? -1],
  );
  if (totals.length === 0) return [];
  // Still inside their hold: made within the longest hold any waiting commission has (the
  // program's, or a group's kept on the commission), then each against its own. No sale is read:
  // a test sale's commission is itself marked test (src/core/track-sale.ts), so the rule alone
  // leaves out what the rollups leave out.
  const params: unknown[] = [programId, now];
  const partner = filter.partner_id === undefined ? '' : ` AND c.partner_id = $${params.push(filter.partner_id)}`;
  const { rows: holding } = await db.query(
    `SELECT c.currency, count(*)::bigint AS n, sum(c.amount_cents - c.deducted_cents)::bigint AS cents
       FROM programs p JOIN commissions c ON c.program_id = p.id
      WHERE p.id = $1 AND c.program_id = $1 AND c.stage IN ('pending', 'held')
        AND c.created_at > $2::timestamptz - make_interval(days => (
              SELECT greatest(hold_days, coalesce((SELECT max(o.hold_days) FROM commissions o WHERE o.program_id = $1 AND o.stage IN ('pending', 'held') AND o.hold_days IS NOT NULL), 0))
                FROM programs WHERE id = $1))
        AND c.created_at > $2::timestamptz - make_interval(days => coalesce(c.hold_days, p.hold_days))
        AND commission_state(c.moved_to_sale_id, c.stage, c.status, c.amount_cents, c.deducted_cents, c.test, c.payout_id) = 'pending'${partner}
      GROUP BY c.currency`,
    params,
  );
  const held = new Map(holding.map((r) => [r.currency as string, { n: Number(r.n), cents: Number(r.cents) }]));
  return totals.map((r) => {
    const count = Number(r.n);
    const cents = Number(r.cents);
    const inHold = held.get(r.currency) ?? { n: 0, cents: 0 };
    return { currency: r.currency, count, cents, pastHoldCount: count - inHold.n, pastHoldCents: cents - inHold.cents };
  });
}

/** approvalSums for commissions made in a date range: the range's rows are read (the pending-by-program index). */
async function approvalSumsInRange(db: Queryable, programId: number, filter: CommissionFilter, now: Date): Promise<ApprovalSums[]> {
  const params: unknown[] = [programId, now];
  const where: string[] = [];
  if (filter.partner_id !== undefined) where.push(`c.partner_id = $${params.push(filter.partner_id)}`);
  if (filter.from) where.push(`c.created_at >= $${params.push(filter.from)}`);
  if (filter.to) where.push(`c.created_at < $${params.push(filter.to)}`);
  const { rows } = await db.query(
    `SELECT c.currency, count(*)::int AS n, sum(c.amount_cents - c.deducted_cents)::bigint AS cents,
            count(*) FILTER (WHERE c.created_at <= $2::timestamptz - make_interval(days => coalesce(c.hold_days, p.hold_days)))::int AS past_n,
            coalesce(sum(c.amount_cents - c.deducted_cents) FILTER (WHERE c.created_at <= $2::timestamptz - make_interval(days => coalesce(c.hold_days, p.hold_days))), 0)::bigint AS past_cents
       FROM programs p JOIN commissions c ON c.program_id = p.id
      WHERE p.id = $1 AND c.program_id = $1 AND c.stage IN ('pending', 'held')
        AND commission_state(c.moved_to_sale_id, c.stage, c.status, c.amount_cents, c.deducted_cents, c.test, c.payout_id) = 'pending'${where.map((w) => ` AND ${w}`).join('')}
      GROUP BY c.currency ORDER BY c.currency`,
    params,
  );
  return rows.map((r) => ({ currency: r.currency, count: r.n, cents: Number(r.cents), pastHoldCount: r.past_n, pastHoldCents: Number(r.past_cents) }));
}

/**
 * Pending commissions whose hold may be over (the caller's rule decides each), oldest first,
 * locked; ones another worker holds are skipped (it is approving them).
 */
export async function lockApprovalCandidates(client: PoolClient, now: Date, limit: number): Promise<Array<CommissionRow & { holdDays: number }>> {
  const { rows } = await client.query(
    `SELECT coalesce(c.hold_days, p.hold_days) AS hold_days, ${COMMISSION_FIELDS} FROM ${COMMISSION_FROM} JOIN programs p ON p.id = c.program_id
      WHERE c.stage = 'pending' AND c.auto_approve AND c.status <> 'reversed' AND c.amount_cents > c.deducted_cents AND NOT c.test
        AND c.created_at <= $1::timestamptz - make_interval(days => coalesce(c.hold_days, p.hold_days))
      ORDER BY c.created_at LIMIT $2 FOR UPDATE OF c SKIP LOCKED`,
    [now, limit],
  );
  return rows.map((row) => ({ ...toCommissionRow(row), holdDays: row.hold_days as number }));
}

export interface StageChange {
  commission: CommissionRow;
  entry: LedgerEntry;
}

/** Moves commissions to a stage and appends each one's entry. */
export async function changeStage(
  client: PoolClient,
  stage: CommissionStage,
  changes: StageChange[],
  options: { autoApprove?: boolean; at: Date },
): Promise<void> {
  if (changes.length === 0) return;
  const ids = changes.map((c) => c.commission.id);
  await client.query(
    `UPDATE commissions SET stage = $2, updated_at = $3,
            approved_at = CASE WHEN $2 = 'approved' THEN $3 WHEN $2 = 'pending' THEN NULL ELSE approved_at END,
            paid_at = CASE WHEN $2 = 'paid' THEN $3 ELSE paid_at END,
            auto_approve = coalesce($4, auto_approve)
      WHERE id = ANY ($1::bigint[])`,
    [ids, stage, options.at, options.autoApprove ?? null],
  );
  await appendLines(
    client,
    changes.map(({ commission, entry }) => ({
      commissionId: commission.id,
      programId: commission.programId,
      partnerId: commission.partnerId,
      currency: commission.currency,
      entry,
      payoutId: commission.payoutId,
    })),
  );
}

/**
 * Serializes what changes one program's payouts (runs, cancels, marking paid): two managers
 * pressing "run" at once make one batch. An advisory lock, so nothing that tracking references
 * is locked: clicks, sales and refunds of the program go on during a run (a row lock on the
 * program would block every insert whose foreign key names it).
 *
 * The lock order wherever money moves: this program lock (payout operations only), then the
 * customer (sales), then the payout row, then commissions in ascending id, then clawbacks. A
 * refund takes only its one commission, so it waits for a run at most as long as the run's
 * few statements, and never deadlocks with it.
 */
export async function lockProgramPayouts(client: PoolClient, programId: number): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended('affix:payouts', $1::bigint))", [programId]);
}

/**
 * Approved commissions (never test ones) and clawbacks no payout has claimed yet, locked in id
 * order: the run pays exactly these rows, whatever changes meanwhile. A banned partner's balance
 * stays owed and waits (paid after the ban is lifted).
 */
export async function lockPayableItems(client: PoolClient, programId: number): Promise<PayableItem[]> {
  const commissions = await client.query(
    `SELECT id, partner_id, currency, amount_cents - deducted_cents AS cents FROM commissions
      WHERE program_id = $1 AND stage = 'approved' AND payout_id IS NULL AND partner_id IS NOT NULL AND amount_cents > deducted_cents
        AND NOT test AND moved_to_sale_id IS NULL AND partner_id NOT IN (SELECT id FROM partners WHERE program_id = $1 AND status = 'banned')
      ORDER BY id FOR UPDATE`,
    [programId],
  );
  const clawbacks = await client.query(
    `SELECT id, partner_id, currency, amount_cents AS cents FROM clawbacks
      WHERE program_id = $1 AND payout_id IS NULL AND partner_id NOT IN (SELECT id FROM partners WHERE program_id = $1 AND status = 'banned')
      ORDER BY id FOR UPDATE`,
    [programId],
  );
  const row = (kind: PayableItem['kind']) => (r: any): PayableItem => ({ kind, id: Number(r.id), partnerId: Number(r.partner_id), currency: r.currency, cents: Number(r.cents) });
  return [...commissions.rows.map(row('commission')), ...clawbacks.rows.map(row('clawback'))];
}

/**
 * A batch with one payout per line; each payout claims the locked rows of its partner and
 * currency (the rows its amount was summed from). Three statements whatever the batch's size.
 */
export async function insertBatch(client: PoolClient, programId: number, lines: PayoutLine[], rows: PayableItem[]): Promise<number> {
  const { rows: batch } = await client.query('INSERT INTO payout_batches (program_id) VALUES ($1) RETURNING id', [programId]);
  const batchId = Number(batch[0].id);
  const { rows: made } = await client.query(
    // The method and where to pay as they stand now: the statement shows what the payout was sent with.
    `INSERT INTO payouts (batch_id, program_id, partner_id, currency, amount_cents, payout_method, pay_to)
     SELECT $1, $2, l.partner_id, l.currency, l.amount_cents, pa.payout_method, pa.payout_reference
       FROM unnest($3::bigint[], $4::text[], $5::bigint[]) AS l (partner_id, currency, amount_cents) JOIN partners pa ON pa.id = l.partner_id AND pa.program_id = $2
     RETURNING id, partner_id, currency`,
    [batchId, programId, lines.map((l) => l.partnerId), lines.map((l) => l.currency), lines.map((l) => l.amountCents)],
  );
  const payoutOf = new Map(made.map((r) => [`${r.partner_id}:${r.currency}`, Number(r.id)]));
  const claims = rows.flatMap((r) => {
    const payoutId = payoutOf.get(`${r.partnerId}:${r.currency}`);
    return payoutId === undefined ? [] : [{ ...r, payoutId }];
  });
  const pick = (kind: PayableItem['kind']) => claims.filter((c) => c.kind === kind);
  await client.query(
    `WITH c AS (UPDATE commissions c SET payout_id = x.payout_id, payout_cents = c.amount_cents - c.deducted_cents
                  FROM unnest($1::bigint[], $2::bigint[]) AS x (id, payout_id) WHERE c.id = x.id)
     UPDATE clawbacks k SET payout_id = x.payout_id FROM unnest($3::bigint[], $4::bigint[]) AS x (id, payout_id) WHERE k.id = x.id`,
    [pick('commission').map((c) => c.id), pick('commission').map((c) => c.payoutId), pick('clawback').map((c) => c.id), pick('clawback').map((c) => c.payoutId)],
  );
  return batchId;
}

export type PayoutStatus = 'pending' | 'processing' | 'paid' | 'canceled' | 'failed';

export interface PayoutRow {
  id: number;
  batchId: number;
  programId: number;
  partnerId: number;
  partnerName: string;
  currency: Currency;
  amountCents: number;
  /** processing: claimed by a Stripe transfer in flight. */
  status: PayoutStatus;
  reference: string | null;
  paidAt: Date | null;
  createdAt: Date;
  payoutMethod: string | null;
  payoutReference: string | null;
  partnerEmail: string | null;
}

const PAYOUT_SELECT = `SELECT po.id, po.batch_id, po.program_id, po.partner_id, pa.name AS partner_name, po.currency, po.amount_cents, po.status,
         po.reference, po.paid_at, po.created_at, pa.payout_method, pa.payout_reference, pa.email AS partner_email
    FROM payouts po JOIN partners pa ON pa.id = po.partner_id`;

const toPayout = (row: any): PayoutRow => ({
  id: Number(row.id),
  batchId: Number(row.batch_id),
  programId: Number(row.program_id),
  partnerId: Number(row.partner_id),
  partnerName: row.partner_name,
  currency: row.currency,
  amountCents: Number(row.amount_cents),
  status: row.status,
  reference: row.reference,
  paidAt: row.paid_at,
  createdAt: row.created_at,
  payoutMethod: row.payout_method,
  payoutReference: row.payout_reference,
  partnerEmail: row.partner_email,
});

export async function lockPayout(client: PoolClient, programId: number, payoutId: number): Promise<PayoutRow | null> {
  const { rows } = await client.query(`${PAYOUT_SELECT} WHERE po.program_id = $1 AND po.id = $2 FOR UPDATE OF po`, [programId, payoutId]);
  return rows[0] ? toPayout(rows[0]) : null;
}

export async function getPayout(db: Queryable, programId: number, payoutId: number): Promise<PayoutRow | null> {
  const { rows } = await db.query(`${PAYOUT_SELECT} WHERE po.program_id = $1 AND po.id = $2`, [programId, payoutId]);
  return rows[0] ? toPayout(rows[0]) : null;
}

export async function listPayouts(db: Queryable, programId: number, options: { batchId?: number; limit?: number; beforeId?: number } = {}): Promise<PayoutRow[]> {
  const { rows } = await db.query(
    `${PAYOUT_SELECT} WHERE po.program_id = $1 AND ($2::bigint IS NULL OR po.batch_id = $2) AND ($4::bigint IS NULL OR po.id < $4) ORDER BY po.id DESC LIMIT $3`,
    [programId, options.batchId ?? null, options.limit ?? 200, options.beforeId ?? null],
  );
  return rows.map(toPayout);
}

/** A batch's payouts, newest first, a page at a time (keyset by id): an export streams them. */
export async function* batchPayoutPages(db: Queryable, programId: number, batchId: number, pageSize = 1000) {
  for (let before: number | undefined; ; ) {
    const rows = await listPayouts(db, programId, { batchId, limit: pageSize, beforeId: before });
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    before = rows[rows.length - 1]!.id;
  }
}

/** What a payout claimed: its commissions (locked) and its clawbacks. */
export async function payoutContents(client: PoolClient, payoutId: number): Promise<{ commissions: CommissionRow[]; clawbacks: Array<{ id: number; commissionId: number; amountCents: number }> }> {
  const commissions = await client.query(`${COMMISSION_SELECT} WHERE c.payout_id = $1 ORDER BY c.id FOR UPDATE OF c`, [payoutId]);
  const clawbacks = await client.query('SELECT id, commission_id, amount_cents FROM clawbacks WHERE payout_id = $1 ORDER BY id', [payoutId]);
  return {
    commissions: commissions.rows.map(toCommissionRow),
    clawbacks: clawbacks.rows.map((row) => ({ id: Number(row.id), commissionId: Number(row.commission_id), amountCents: Number(row.amount_cents) })),
  };
}

export async function setPayoutStatus(client: PoolClient, payoutId: number, status: PayoutStatus, reference: string | null, at: Date): Promise<void> {
  await client.query(
    `UPDATE payouts SET status = $2, reference = coalesce($3, reference), paid_at = CASE WHEN $2 = 'paid' THEN $4 ELSE paid_at END WHERE id = $1`,
    [payoutId, status, reference, at],
  );
}

/** A canceled payout's approved commissions are unclaimed (payable again); returns their ids. */
export async function unclaimCommissions(client: PoolClient, payoutId: number): Promise<number[]> {
  const { rows } = await client.query(
    `UPDATE commissions SET payout_id = NULL, payout_cents = NULL WHERE payout_id = $1 AND stage = 'approved' RETURNING id`,
    [payoutId],
  );
  return rows.map((row) => Number(row.id));
}

/** The clawbacks made while this payout had claimed these commissions (locked), and whether another payout netted them. */
export async function clawbacksMadeUnder(client: PoolClient, payoutId: number, commissionIds: number[]): Promise<ClaimedClawback[]> {
  const { rows } = await client.query(
    'SELECT id, commission_id, amount_cents, payout_id FROM clawbacks WHERE made_under_payout_id = $1 AND commission_id = ANY ($2::bigint[]) ORDER BY id FOR UPDATE',
    [payoutId, commissionIds],
  );
  return rows.map((row) => ({ id: Number(row.id), commissionId: Number(row.commission_id), amountCents: Number(row.amount_cents), nettedByPayoutId: row.payout_id === null ? null : Number(row.payout_id) }));
}

/** Writes a claim's release (core releaseClaim) and frees the other clawbacks the payout had netted. */
export async function applyClaimRelease(client: PoolClient, payout: Pick<PayoutRow, 'id' | 'programId' | 'partnerId' | 'currency'>, release: ClaimRelease): Promise<void> {
  await client.query(
    `WITH dropped AS (DELETE FROM clawbacks WHERE id = ANY ($2::bigint[])),
     credited AS (
       INSERT INTO clawbacks (commission_id, program_id, partner_id, currency, amount_cents)
       SELECT x.commission_id, $3, $4, $5, x.amount_cents FROM unnest($6::bigint[], $7::bigint[]) AS x (commission_id, amount_cents))
     UPDATE clawbacks SET payout_id = NULL WHERE payout_id = $1`,
    [payout.id, release.drop, payout.programId, payout.partnerId, payout.currency, release.credits.map((c) => c.commissionId), release.credits.map((c) => c.amountCents)],
  );
}

export interface PartnerBalance {
  partnerId: number;
  partnerName: string;
  currency: Currency;
  pendingCents: number;
  approvedCents: number;
  paidCents: number;
  /** Part of approved that an open payout has claimed. */
  inPayoutCents: number;
  payoutMethod: string | null;
  payoutReference: string | null;
}

/** Each partner's balances per currency: the ledger's sums (kept by the database as entries are appended). */
export async function partnerBalances(db: Queryable, programId: number): Promise<PartnerBalance[]> {
  const { rows } = await db.query(
    `WITH sums AS (
       -- The ledger's sums, as the rollups keep them (migration 0028).
       SELECT partner_id, currency, coalesce(sum(value) FILTER (WHERE measure = 'ledger_pending'), 0)::bigint AS pending,
              coalesce(sum(value) FILTER (WHERE measure = 'ledger_approved'), 0)::bigint AS approved,
              coalesce(sum(value) FILTER (WHERE measure = 'ledger_paid'), 0)::bigint AS paid
         FROM page_rollups WHERE program_id = $1 AND partner_id > 0 AND day = 'infinity' AND measure LIKE 'ledger\\_%' GROUP BY partner_id, currency
     ), open AS (
       SELECT partner_id, currency, sum(amount_cents)::bigint AS in_payout FROM payouts WHERE program_id = $1 AND status IN ('pending', 'processing') GROUP BY partner_id, currency
     )
     SELECT s.*, coalesce(o.in_payout, 0) AS in_payout, pa.name, pa.payout_method, pa.payout_reference
       FROM sums s JOIN partners pa ON pa.id = s.partner_id
       LEFT JOIN open o ON o.partner_id = s.partner_id AND o.currency = s.currency
      ORDER BY pa.name, pa.id, s.currency`,
    [programId],
  );
  return rows.map((row) => ({
    partnerId: Number(row.partner_id),
    partnerName: row.name,
    currency: row.currency,
    pendingCents: Number(row.pending),
    approvedCents: Number(row.approved),
    paidCents: Number(row.paid),
    inPayoutCents: Number(row.in_payout),
    payoutMethod: row.payout_method,
    payoutReference: row.payout_reference,
  }));
}

export async function listCommissions(db: Queryable, programId: number, filter: CommissionFilter & { limit?: number; offset?: number }): Promise<CommissionRow[]> {
  const { rows } = await db.query(
    `${COMMISSION_SELECT} WHERE c.program_id = $1 AND ${FILTER_SQL(4)} ORDER BY c.id DESC LIMIT $2 OFFSET $3`,
    [programId, filter.limit ?? 50, filter.offset ?? 0, ...filterParams(filter)],
  );
  return rows.map(toCommissionRow);
}

export interface PayoutSettings {
  holdDays: number;
  /** Per currency, in its smallest unit. */
  payoutMinimumsCents: PayoutMinimums;
  fraud: FraudThresholds;
  /** Partners may create their own referral links in the portal. */
  partnersCanCreateLinks: boolean;
  /** How many links each partner may have when they make their own. */
  partnerLinkLimit: number;
}

export async function payoutSettings(db: Queryable, programId: number): Promise<PayoutSettings | null> {
  const { rows } = await db.query(
    `SELECT hold_days, payout_minimums, fraud_min_signup_seconds, fraud_max_leads_per_ip, fraud_ip_window_minutes, partners_can_create_links, partner_link_limit
       FROM programs WHERE id = $1`,
    [programId],
  );
  const row = rows[0];
  return row
    ? {
        holdDays: row.hold_days,
        payoutMinimumsCents: row.payout_minimums,
        fraud: { minSignupSeconds: row.fraud_min_signup_seconds, maxLeadsPerIp: row.fraud_max_leads_per_ip, ipWindowMinutes: row.fraud_ip_window_minutes },
        partnersCanCreateLinks: row.partners_can_create_links,
        partnerLinkLimit: row.partner_link_limit,
      }
    : null;
}

export async function setPayoutSettings(db: Queryable, programId: number, settings: PayoutSettings): Promise<void> {
  await db.query(
    `UPDATE programs SET hold_days = $2, payout_minimums = $3, fraud_min_signup_seconds = $4, fraud_max_leads_per_ip = $5, fraud_ip_window_minutes = $6,
            partners_can_create_links = $7, partner_link_limit = $8
      WHERE id = $1`,
    [programId, settings.holdDays, JSON.stringify(settings.payoutMinimumsCents), settings.fraud.minSignupSeconds, settings.fraud.maxLeadsPerIp, settings.fraud.ipWindowMinutes,
      settings.partnersCanCreateLinks, settings.partnerLinkLimit],
  );
  linksChanged();
}

export interface PayoutDetails {
  payoutMethod: 'paypal' | 'wise' | 'bank_transfer' | 'stripe' | null;
  payoutReference: string | null;
  payoutCurrency: Currency | null;
}

/** false when the partner is not the program's. */
export async function setPartnerPayoutDetails(db: Queryable, programId: number, partnerId: number, details: PayoutDetails): Promise<boolean> {
  const { rowCount } = await db.query(
    // The person's details (their profile): every program of the account pays them the same way.
    `UPDATE partner_profiles pp SET payout_method = $3, payout_reference = $4, payout_currency = $5, updated_at = now()
       FROM partners pa WHERE pa.program_id = $1 AND pa.id = $2 AND pp.id = pa.profile_id`,
    [programId, partnerId, details.payoutMethod, details.payoutReference, details.payoutCurrency],
  );
  return (rowCount ?? 0) > 0;
}

/** Each partner's payout minimums (their group's, else the program's), for the partners named. */
export async function payoutMinimumsOf(client: PoolClient, programId: number, partnerIds: number[]): Promise<Map<number, PayoutMinimums>> {
  const { rows } = await client.query('SELECT partner_id, payout_minimums FROM partner_terms WHERE program_id = $1 AND partner_id = ANY ($2::bigint[])', [
    programId,
    partnerIds,
  ]);
  return new Map(rows.map((r) => [Number(r.partner_id), r.payout_minimums as PayoutMinimums]));
}

/** Where each named partner of the program is paid (a run pays only those with details). */
export async function payoutDetailsOf(db: Queryable, programId: number, partnerIds: number[]): Promise<Map<number, { payoutMethod: string | null; payoutReference: string | null }>> {
  const { rows } = await db.query('SELECT id, payout_method, payout_reference FROM partners WHERE program_id = $1 AND id = ANY ($2::bigint[])', [programId, partnerIds]);
  return new Map(rows.map((r) => [Number(r.id), { payoutMethod: r.payout_method, payoutReference: r.payout_reference }]));
}

/** The named partners of the program with an address to write to (name, email, and whether they have payout details now). */
export async function partnersToRemind(db: Queryable, programId: number, partnerIds: number[]) {
  const { rows } = await db.query(
    `SELECT id, name, email, payout_method, payout_reference FROM partners
      WHERE program_id = $1 AND id = ANY ($2::bigint[]) AND email IS NOT NULL AND status <> 'banned' ORDER BY id`,
    [programId, partnerIds],
  );
  return rows.map((r) => ({ partnerId: Number(r.id), name: r.name as string, email: r.email as string, payoutMethod: r.payout_method as string | null, payoutReference: r.payout_reference as string | null }));
}

/** A batch's payouts (not canceled) per currency: how many and how much. */
export async function batchTotals(db: Queryable, programId: number, batchId: number): Promise<{ currency: Currency; count: number; cents: number }[]> {
  const { rows } = await db.query(
    `SELECT currency, count(*)::int AS n, sum(amount_cents)::bigint AS cents FROM payouts
      WHERE batch_id = $1 AND program_id = $2 AND status NOT IN ('canceled', 'failed') GROUP BY currency ORDER BY currency`,
    [batchId, programId],
  );
  return rows.map((r) => ({ currency: r.currency, count: r.n, cents: Number(r.cents) }));
}

/** The named partners of the program: id and name. */
export async function partnersByIds(db: Queryable, programId: number, partnerIds: number[]): Promise<{ partnerId: number; name: string }[]> {
  const { rows } = await db.query('SELECT id, name FROM partners WHERE program_id = $1 AND id = ANY ($2::bigint[])', [programId, partnerIds]);
  return rows.map((r) => ({ partnerId: Number(r.id), name: r.name }));
}
