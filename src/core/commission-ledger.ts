// The commission lifecycle (pending -> approved -> paid) and the ledger entries each change
// writes. Balances are never stored: they are sums of these entries (docs/payouts.md).
import type { CommissionStatus, Currency } from './types.js';

/** `held`: a fraud signal; a manager releases it (pending) or rejects it (never owed). */
export type CommissionStage = 'pending' | 'held' | 'approved' | 'paid' | 'rejected';

/**
 * What a commission is, as every surface shows it (docs/architecture.md, "Commission state is one fact"). The
 * rule that derives it is the database view commission_states (migrations/0019), read by every
 * page, export, portal and MCP answer; these are its values and the words for them.
 */
export type CommissionState = 'pending' | 'held' | 'approved' | 'in_payout' | 'paid' | 'rejected' | 'reversed' | 'moved' | 'test';
export const COMMISSION_STATE_WORDS: Record<CommissionState, string> = {
  pending: 'awaiting approval',
  held: 'held for review',
  approved: 'approved',
  in_payout: 'in an open payout',
  paid: 'paid',
  rejected: 'rejected',
  reversed: 'reversed',
  moved: 'moved to an earlier sale',
  test: 'test mode (never paid)',
};
/** What a commission was made for: a sale, a bounty award, a lead or a partner's click day (migrations 0069, 0075). */
export type CommissionSource = 'sale' | 'bounty' | 'lead' | 'clicks';
/** A commission without a sale, where a sale's customer would be named. */
export const NO_SALE_WORDS: Record<Exclude<CommissionSource, 'sale'>, string> = { bounty: 'A bounty (no sale)', lead: 'A lead (no sale)', clicks: 'Clicks (no sale)' };
/** Where a commission without a sale names its transaction on the dashboard: what it was made for. */
export const noSaleWords = (c: { leadCustomerId: number | null; clickRewardDayId: number | null; bountyAwardId: number | null }): string =>
  c.leadCustomerId !== null ? NO_SALE_WORDS.lead : c.clickRewardDayId !== null ? NO_SALE_WORDS.clicks : c.bountyAwardId !== null ? NO_SALE_WORDS.bounty : '—';

export const COMMISSION_STATES = Object.keys(COMMISSION_STATE_WORDS) as CommissionState[];

export type LedgerKind = 'created' | 'adjusted' | 'approved' | 'unapproved' | 'paid' | 'clawed_back' | 'clawback_settled' | 'released' | 'rejected' | 'moved' | 'reinstated' | 'payout_failed';

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
  /** Made from a processor's test-mode payment: never approved, paid or exported. */
  test: boolean;
}

export const netCents = (c: Pick<CommissionPosition, 'amountCents' | 'deductedCents'>): number => c.amountCents - c.deductedCents;

export const createdEntry = (amountCents: number): LedgerEntry => entry('created', { pendingCents: amountCents });

/** What a change of a commission's deduction writes: its ledger entry, and what is owed back once a payout claimed it. */
export interface DeductionChange {
  ledger: LedgerEntry;
  clawbackCents: number | null;
}

/**
 * A refund, chargeback or failed refund changed what is deducted from the commission. Before
 * a payout claims it, the change adjusts the bucket it sits in. Once claimed or paid, the
 * paid record is never edited: the change is a clawback the partner's next payout carries.
 */
export function deductionChange(
  commission: Pick<CommissionPosition, 'stage' | 'payoutId'>,
  deductedBefore: number,
  deductedAfter: number,
): DeductionChange | null {
  const change = deductedBefore - deductedAfter; // negative: taken off
  // A rejected commission is owed nothing: a refund changes no balance.
  if (change === 0 || commission.stage === 'rejected') return null;
  if (commission.stage === 'paid' || commission.payoutId !== null) {
    return { ledger: entry('clawed_back', { approvedCents: change }), clawbackCents: change };
  }
  const bucket = commission.stage === 'approved' ? 'approvedCents' : 'pendingCents';
  return { ledger: entry('adjusted', { [bucket]: change }), clawbackCents: null };
}

/** The ledger reason of a commission rejected because its partner is banned. */
export const BANNED_REASON = 'partner banned';

/** The ledger reason of a first-sale commission that moved to an earlier sale. */
export const MOVED_REASON = 'first sale moved to an earlier sale of the customer';

/**
 * The first-sale commission moved to an earlier sale (docs/architecture.md, "Commission types"): all that is
 * left of this one leaves the partner's balance. Unclaimed, out of the bucket it sits in;
 * claimed by a payout or paid, as a clawback the next payout nets. A rejected one owed nothing.
 */
export function movedAwayChange(
  c: Pick<CommissionPosition, 'stage' | 'payoutId' | 'amountCents' | 'deductedCents'>,
): DeductionChange | null {
  const net = netCents(c);
  if (net === 0 || c.stage === 'rejected') return null;
  if (c.stage === 'paid' || c.payoutId !== null) return { ledger: entry('clawed_back', { approvedCents: -net }, MOVED_REASON), clawbackCents: -net };
  const bucket = c.stage === 'approved' ? 'approvedCents' : 'pendingCents';
  return { ledger: entry('moved', { [bucket]: -net }, MOVED_REASON), clawbackCents: null };
}

/** Days after its creation a commission's hold ends. */
export const holdEndsAt = (createdAt: Date, holdDays: number): Date => new Date(createdAt.getTime() + holdDays * 86_400_000);

/** Past its hold: the hold period is over (the schedule approves it, unless a manager took it back). */
export const pastHold = (c: Pick<CommissionPosition, 'createdAt'>, holdDays: number, now: Date): boolean => holdEndsAt(c.createdAt, holdDays).getTime() <= now.getTime();

export type ApprovalRefusal = 'not_pending' | 'held' | 'reversed' | 'in_hold' | 'approval_taken_back' | 'test_mode';

/**
 * Why this commission cannot be approved now, or null. The schedule approves only after the
 * hold and never one a manager took back; a manager may approve early.
 */
export function approvalRefusal(c: CommissionPosition, holdDays: number, now: Date, byHand: boolean): ApprovalRefusal | null {
  if (c.test) return 'test_mode';
  if (c.stage === 'held') return 'held';
  if (c.stage !== 'pending') return 'not_pending';
  if (c.status === 'reversed' || netCents(c) <= 0) return 'reversed';
  if (byHand) return null;
  if (!c.autoApprove) return 'approval_taken_back';
  return pastHold(c, holdDays, now) ? null : 'in_hold';
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
export const rejectedEntry = (c: Pick<CommissionPosition, 'amountCents' | 'deductedCents'>, reason: string): LedgerEntry => entry('rejected', { pendingCents: -netCents(c) }, reason);

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

/** A row a payout run may claim: an approved commission's net, or a clawback (negative: owed back). */
export interface PayableItem {
  kind: 'commission' | 'clawback';
  id: number;
  partnerId: number;
  currency: Currency;
  cents: number;
}

/** Per partner and currency: what the claimable rows add up to. */
export function payableBalances(items: PayableItem[]): PayableBalance[] {
  const byKey = new Map<string, PayableBalance>();
  for (const item of items) {
    const key = `${item.partnerId}:${item.currency}`;
    const balance = byKey.get(key) ?? { partnerId: item.partnerId, currency: item.currency, approvedCents: 0, clawbackCents: 0 };
    if (item.kind === 'commission') balance.approvedCents += item.cents;
    else balance.clawbackCents += item.cents;
    byKey.set(key, balance);
  }
  return [...byKey.values()];
}

/** The smallest payout per currency, in its smallest unit; a currency not named has none. */
export type PayoutMinimums = Partial<Record<Currency, number>>;

/**
 * A payout run pays each partner's balance per currency when it reaches that currency's
 * minimum (the partner's group's, else the program's) (and is positive): a clawback larger than what is approved waits for later commissions.
 */
export function payoutLines(balances: PayableBalance[], minimumsOf: (partnerId: number) => PayoutMinimums): PayoutLine[] {
  return balances
    .map((b) => ({ partnerId: b.partnerId, currency: b.currency, amountCents: b.approvedCents + b.clawbackCents }))
    .filter((line) => line.amountCents > 0 && line.amountCents >= (minimumsOf(line.partnerId)[line.currency] ?? 0))
    .sort((a, b) => a.partnerId - b.partnerId || a.currency.localeCompare(b.currency));
}

/** Where a partner is paid: a method and the address, IBAN or account it pays to. */
export interface PayoutDetailsOf {
  payoutMethod: string | null;
  payoutReference: string | null;
}

/**
 * A partner can be paid only to details they gave: a method and its reference. A payout to no
 * details would go to their sign-in email or to nobody (PayPal's file keeps only PayPal partners,
 * Wise's only Wise's), so it is not made: the balance stays owed until the details are given.
 */
export const hasPayoutDetails = (p: PayoutDetailsOf | undefined): boolean => Boolean(p?.payoutMethod && p.payoutReference?.trim());

/** A run's lines split: the ones it pays, and the ones that wait for the partner's payout details. */
export function linesByPayoutDetails(lines: PayoutLine[], detailsOf: (partnerId: number) => PayoutDetailsOf | undefined): { pay: PayoutLine[]; waiting: PayoutLine[] } {
  const pay: PayoutLine[] = [];
  const waiting: PayoutLine[] = [];
  for (const line of lines) (hasPayoutDetails(detailsOf(line.partnerId)) ? pay : waiting).push(line);
  return { pay, waiting };
}

/** A clawback made while a payout had claimed its commission. */
export interface ClaimedClawback {
  id: number;
  commissionId: number;
  amountCents: number;
  /** The payout that netted it since, if any. */
  nettedByPayoutId: number | null;
}

export interface ClaimRelease {
  /** Not netted yet: dropped, the commission's own net carries the deduction. */
  drop: number[];
  /** Netted by another payout already: that much is credited back, once per commission. */
  credits: { commissionId: number; amountCents: number }[];
}

/**
 * Cancelling a payout releases exactly what it claimed. Its commissions return to the approved
 * balance at their current net, which already carries every deduction made since the claim.
 * Those deductions were also written as clawbacks: one not yet netted is dropped; one another
 * payout already netted was taken once, so the same amount is credited back. The partner is then
 * owed exactly each commission's net, never a deduction twice.
 */
export function releaseClaim(clawbacks: ClaimedClawback[]): ClaimRelease {
  const netted = new Map<number, number>();
  for (const c of clawbacks) if (c.nettedByPayoutId !== null) netted.set(c.commissionId, (netted.get(c.commissionId) ?? 0) + c.amountCents);
  return {
    drop: clawbacks.filter((c) => c.nettedByPayoutId === null).map((c) => c.id),
    credits: [...netted].filter(([, cents]) => cents !== 0).map(([commissionId, cents]) => ({ commissionId, amountCents: -cents })),
  };
}
