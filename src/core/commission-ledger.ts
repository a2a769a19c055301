// The commission lifecycle (pending -> approved -> paid) and the ledger entries each change
// writes. Balances are never stored: they are sums of these entries (docs/payouts.md).
import type { CommissionStatus, Currency } from './types.js';

/** `held`: a fraud signal; a manager releases it (pending) or rejects it (never owed). */
export type CommissionStage = 'pending' | 'held' | 'approved' | 'paid' | 'rejected';
export const COMMISSION_STAGES: readonly CommissionStage[] = ['pending', 'held', 'approved', 'paid', 'rejected'];

export type LedgerKind = 'created' | 'adjusted' | 'approved' | 'unapproved' | 'paid' | 'clawed_back' | 'clawback_settled' | 'released' | 'rejected';

/** One append-only entry: what it moves in or out of each of the commission's three buckets. */
export interface LedgerEntry {
  kind: LedgerKind;
  pendingCents: number;
  approvedCents: number;
  paidCents: number;
  reason: string | null;
}

const entry = (kind: LedgerKind, deltas: Partial<Pick<LedgerEntry, 'pendingCents' | 'approvedCents' | 'paidCents'>>, reason: string | null = null): LedgerEntry => ({
  kind,
  pendingCents: deltas.pendingCents ?? 0,
  approvedCents: deltas.approvedCents ?? 0,
  paidCents: deltas.paidCents ?? 0,
  reason,
});

/** What the lifecycle rules need to know about a commission. */
export interface CommissionPosition {
  stage: CommissionStage;
  status: CommissionStatus;
  /** A payout (open or paid) has claimed it: its amount in that payout is fixed. */
  payoutId: number | null;
  amountCents: number;
  deductedCents: number;
  createdAt: Date;
  autoApprove: boolean;
}

export const netCents = (c: Pick<CommissionPosition, 'amountCents' | 'deductedCents'>): number => c.amountCents - c.deductedCents;

export const createdEntry = (amountCents: number): LedgerEntry => entry('created', { pendingCents: amountCents });

/**
 * A refund, chargeback or failed refund changed what is deducted from the commission. Before
 * a payout claims it, the change adjusts the bucket it sits in. Once claimed or paid, the
 * paid record is never edited: the change is a clawback the partner's next payout carries.
 */
export function deductionChange(
  commission: Pick<CommissionPosition, 'stage' | 'payoutId'>,
  deductedBefore: number,
  deductedAfter: number,
): { ledger: LedgerEntry; clawbackCents: number | null } | null {
  const change = deductedBefore - deductedAfter; // negative: taken off
  // A rejected commission is owed nothing: a refund changes no balance.
  if (change === 0 || commission.stage === 'rejected') return null;
  if (commission.stage === 'paid' || commission.payoutId !== null) {
    return { ledger: entry('clawed_back', { approvedCents: change }), clawbackCents: change };
  }
  const bucket = commission.stage === 'approved' ? 'approvedCents' : 'pendingCents';
  return { ledger: entry('adjusted', { [bucket]: change }), clawbackCents: null };
}

/** Days after its creation a commission's hold ends. */
export const holdEndsAt = (createdAt: Date, holdDays: number): Date => new Date(createdAt.getTime() + holdDays * 86_400_000);

export type ApprovalRefusal = 'not_pending' | 'held' | 'reversed' | 'in_hold' | 'approval_taken_back';

/**
 * Why this commission cannot be approved now, or null. The schedule approves only after the
 * hold and never one a manager took back; a manager may approve early.
 */
export function approvalRefusal(c: CommissionPosition, holdDays: number, now: Date, byHand: boolean): ApprovalRefusal | null {
  if (c.stage === 'held') return 'held';
  if (c.stage !== 'pending') return 'not_pending';
  if (c.status === 'reversed' || netCents(c) <= 0) return 'reversed';
  if (byHand) return null;
  if (!c.autoApprove) return 'approval_taken_back';
  return holdEndsAt(c.createdAt, holdDays).getTime() <= now.getTime() ? null : 'in_hold';
}

export const approvedEntry = (c: CommissionPosition, reason: string | null): LedgerEntry =>
  entry('approved', { pendingCents: -netCents(c), approvedCents: netCents(c) }, reason);

export type UnapprovalRefusal = 'not_approved' | 'in_payout';

export function unapprovalRefusal(c: CommissionPosition): UnapprovalRefusal | null {
  if (c.stage !== 'approved') return 'not_approved';
  return c.payoutId !== null ? 'in_payout' : null;
}

export const unapprovedEntry = (c: CommissionPosition, reason: string): LedgerEntry =>
  entry('unapproved', { pendingCents: netCents(c), approvedCents: -netCents(c) }, reason);

export type ReviewRefusal = 'not_held';

/** Only a held commission is released or rejected. */
export const reviewRefusal = (c: Pick<CommissionPosition, 'stage'>): ReviewRefusal | null => (c.stage === 'held' ? null : 'not_held');

/** Released: pending again, its money stays in the pending bucket (the entry records the reason). */
export const releasedEntry = (reason: string): LedgerEntry => entry('released', {}, reason);

/** Rejected: never owed; its money leaves the pending bucket. */
export const rejectedEntry = (c: CommissionPosition, reason: string): LedgerEntry => entry('rejected', { pendingCents: -netCents(c) }, reason);

/** A payout marked paid: the amount it claimed moves from approved to paid. */
export const paidEntry = (claimedCents: number): LedgerEntry => entry('paid', { approvedCents: -claimedCents, paidCents: claimedCents });

/** A clawback netted in a paid payout: what was owed back leaves the approved bucket and lowers the paid total. */
export const clawbackSettledEntry = (clawbackCents: number): LedgerEntry =>
  entry('clawback_settled', { approvedCents: -clawbackCents, paidCents: clawbackCents });

/** A partner's approved balance in one currency, before a payout run. */
export interface PayableBalance {
  partnerId: number;
  currency: Currency;
  /** Net of approved commissions no payout has claimed. */
  approvedCents: number;
  /** Clawbacks not yet netted (negative: owed back). */
  clawbackCents: number;
}

export interface PayoutLine {
  partnerId: number;
  currency: Currency;
  amountCents: number;
}

/**
 * A payout run pays each partner's balance per currency when it reaches the program's minimum
 * (and is positive): a clawback larger than what is approved waits for later commissions.
 */
export function payoutLines(balances: PayableBalance[], minimumCents: number): PayoutLine[] {
  return balances
    .map((b) => ({ partnerId: b.partnerId, currency: b.currency, amountCents: b.approvedCents + b.clawbackCents }))
    .filter((line) => line.amountCents > 0 && line.amountCents >= minimumCents)
    .sort((a, b) => a.partnerId - b.partnerId || a.currency.localeCompare(b.currency));
}
