// POST /track/refund: reverse or reduce a sale's commission (spec §3 commission rows, §4.4).
import { deductionChange } from './commission-ledger.js';
import { MESSAGES, errors } from './errors.js';
import { refundedTotalCents } from './disputes.js';
import { type RefundState, type RefundedCommission, applyRefund, commissionAtRefundedTotal } from './money.js';
import type { Store, TrackingTx } from './ports.js';
import type { Commission, RefundReason, Sale } from './types.js';

export interface RefundRequest {
  /** undefined or 0: refund everything not yet refunded. */
  refundAmountCents: number | undefined;
  refundId: string | null;
  reason: RefundReason;
  refundReason: string | null;
  source: string;
}

export interface TrackRefundInput extends RefundRequest {
  programId: number;
  transactionId: string;
}

export type TrackRefundResult =
  | { status: 'no_commission'; saleId: number }
  | {
      status: 'reversed' | 'refunded' | 'skipped';
      saleId: number;
      commissionId: number;
      deductionCents: number;
      refundCents: number;
      refundedTotalCents: number;
      commissionRemainingCents: number;
    };

/**
 * Without a refund_id, a refund is identified by its amount: a retry of the same amount is
 * ignored (spec §3), so two equal refunds need distinct refund_ids.
 */
export function refundKey(refundId: string | null, amountCents: number | undefined): string {
  if (refundId) return `id:${refundId}`;
  return amountCents ? `amount:${amountCents}` : 'full';
}

/** Where a sale's commission stands before a refund (or its reversal) is counted; `refundsCents`: what refunds count of it. */
const refundStateOf = (sale: Sale, commission: Commission, refundsCents: number): RefundState => ({
  saleAmountCents: sale.amountCents,
  commissionAmountCents: commission.amountCents,
  refundedTotalCents: commission.refundedTotalCents,
  refundsCents,
  deductedCents: commission.deductedCents,
  status: commission.status,
});

/**
 * The commission at what the sale's refunds and standing chargebacks count together (the rule in
 * src/core/disputes.ts), with `change` added to them first (a row about to be written).
 */
export async function commissionAtRefundRows(
  tx: TrackingTx,
  sale: Sale,
  commission: Commission,
  change: { refundsCents?: number; chargebacksCents?: number } = {},
): Promise<RefundedCommission> {
  const parts = await tx.refundParts(sale.id);
  const refundsCents = parts.refundsCents + (change.refundsCents ?? 0);
  const chargebacksCents = parts.chargebacksCents + (change.chargebacksCents ?? 0);
  return commissionAtRefundedTotal(refundStateOf(sale, commission, refundsCents), refundedTotalCents(sale.amountCents, refundsCents, chargebacksCents));
}

/** The commission after a refund, a chargeback or their reversal: its totals, and the ledger's part of the change. */
export async function setCommissionAfterRefund(tx: TrackingTx, commission: Commission, next: Pick<RefundState, 'status' | 'refundedTotalCents' | 'deductedCents'>): Promise<void> {
  await tx.updateCommissionAfterRefund(commission.id, {
    status: next.status,
    refundedTotalCents: next.refundedTotalCents,
    deductedCents: next.deductedCents,
    ledger: deductionChange(commission, commission.deductedCents, next.deductedCents),
  });
}

/** Applies one refund to a sale inside the caller's transaction (the Stripe workers use it too). */
export async function refundSale(tx: TrackingTx, sale: Sale, request: RefundRequest): Promise<TrackRefundResult> {
  const commission = await tx.lockCommissionForSale(sale.id);
  if (!commission) return { status: 'no_commission', saleId: sale.id };
  const remaining = () => commission.amountCents - commission.deductedCents;
  const skipped = () => ({
    status: 'skipped' as const,
    saleId: sale.id,
    commissionId: commission.id,
    deductionCents: 0,
    refundCents: 0,
    refundedTotalCents: commission.refundedTotalCents,
    commissionRemainingCents: remaining(),
  });
  const { refundsCents } = await tx.refundParts(sale.id);
  const outcome = applyRefund(refundStateOf(sale, commission, refundsCents), request.refundAmountCents, request.reason === 'chargeback' ? 'chargeback' : 'refund');
  if (outcome.kind === 'skipped') return skipped();
  const counted = await tx.insertRefund({
    saleId: sale.id,
    commissionId: commission.id,
    refundKey: refundKey(request.refundId, request.refundAmountCents),
    amountCents: outcome.refundCents,
    deductionCents: outcome.deductionCents,
    reason: request.reason,
    refundReason: request.refundReason,
    source: request.source,
  });
  if (!counted) return skipped();
  await setCommissionAfterRefund(tx, commission, outcome);
  const ids = { program_id: sale.programId, sale_id: sale.id, transaction_id: sale.processorEventId, commission_id: commission.id, partner_id: commission.partnerId };
  await tx.emit({
    programId: sale.programId,
    type: 'refund.applied',
    test: sale.test,
    data: { ...ids, refund_cents: outcome.refundCents, deduction_cents: outcome.deductionCents, currency: commission.currency, reason: request.reason, refund_status: outcome.status },
  });
  // A refund of a sale that chargebacks already reversed is counted, but reverses nothing new.
  if (outcome.status === 'reversed' && commission.status !== 'reversed') {
    await tx.emit({ programId: sale.programId, type: 'commission.reversed', test: sale.test, data: { ...ids, amount_cents: commission.amountCents, currency: commission.currency } });
  }
  return {
    status: outcome.status,
    saleId: sale.id,
    commissionId: commission.id,
    deductionCents: outcome.deductionCents,
    refundCents: outcome.refundCents,
    refundedTotalCents: outcome.refundedTotalCents,
    commissionRemainingCents: commission.amountCents - outcome.deductedCents,
  };
}

export async function trackRefund(store: Store, input: TrackRefundInput): Promise<TrackRefundResult> {
  return store.transaction(async (tx) => {
    const sale = await tx.findSaleInProgram(input.programId, input.transactionId);
    if (!sale) throw errors.notFound(MESSAGES.saleNotFound);
    return refundSale(tx, sale, input);
  });
}
