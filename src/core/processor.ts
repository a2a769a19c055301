// Payments reported by a payment processor (its webhooks, through the workers; src/core/processor-port.ts).
// The attribution order of spec §6, then the same recordSale / refundSale as the API.
import { NO_PURCHASE_FACTS, type PurchaseFacts } from './sale-facts.js';
import { customerForPromoCode } from './promo-codes.js';
import { acceptedCurrency } from './currency.js';
import { attributedClick, customerForClick } from './customers.js';
import { AffixError, errors } from './errors.js';
import { standingChargebackCents } from './disputes.js';
import { amountProblem } from './money.js';
import type { Transactions, TrackingTx } from './ports.js';
import { PROCESSOR_NAMES, type ProcessorName } from './processor-names.js';
import { hashEmail } from './secrets.js';
import { type TrackRefundResult, commissionAtRefundRows, refundKey, refundSale, setCommissionAfterRefund } from './track-refund.js';
import { type ResolvedCustomer, RolledBack, recordSale } from './track-sale.js';
import type { Program, Sale } from './types.js';

/** What the checkout / invoice carries, already read out of the processor's object. */
export interface ProcessorPayment {
  programId: number;
  /** Which processor reported it: the sale's provider and source. */
  processor: ProcessorName;
  /** Session id for checkouts, invoice id for invoices: the sale's transaction_id. */
  transactionId: string;
  amountCents: number;
  /**
   * Why the amount could not be read exactly (Stripe ISK 550), if so: a final failure, reported
   * after the currency rule (a currency the program refuses is answered in the contract's words).
   */
  amountProblem?: string | null;
  currency: string;
  occurredAt: Date;
  livemode: boolean;
  metadata: {
    clickId: string | null;
    customerKey: string | null;
    /** The customer key is only the checkout's client_reference_id (no affix_ metadata). */
    customerKeyIsReference: boolean;
    programId: string | null;
  };
  email: string | null;
  processorCustomerId: string | null;
  /** Payment intent (or charge) ids a later refund or dispute will name. */
  paymentIds: string[];
  /** Promotion code ids, codes and coupon ids the payment used (the fifth step, promo_code). */
  promotionRefs: string[];
  isRecurring: boolean;
  saleType: 'payment' | 'subscription';
  subscriptionId: string | null;
  eventName: string;
  /** Tax included in the amount, when the processor says. */
  taxCents?: number | null;
  /** Products, prices, interval and country, for the reward rules (src/core/sale-facts.ts). */
  purchase?: PurchaseFacts;
}

export type ProcessorOutcome =
  | { kind: 'recorded'; saleId: number; commissionId: number | null; step: ResolvedCustomer['step'] }
  | { kind: 'bound'; customerId: number; step: ResolvedCustomer['step'] }
  | { kind: 'duplicate'; saleId: number }
  | { kind: 'window_expired'; clickAgeDays: number; windowDays: number }
  | { kind: 'program_mismatch'; metadataProgramId: string }
  /** Not attributable yet: re-examined when a checkout or first sale binds this processor customer. */
  | { kind: 'waiting_for_customer'; processorCustomerId: string }
  /** Our metadata, nothing matches yet: waits for a click, lead or customer with one of these keys. */
  | { kind: 'waiting_for_attribution'; keys: AttributionKeys }
  /** `waited`: it had waited for its click or lead, and nothing came (its last attempt). */
  | { kind: 'unresolved'; referenceOnly: boolean; waited?: boolean };

/** What a click, lead or customer recorded (or bound) later would match a payment by (spec §6 steps 1 to 4). */
export interface AttributionKeys {
  clickId: string | null;
  customerKey: string | null;
  emailHash: Buffer | null;
  processorCustomerId: string | null;
}

/** How an attempt goes: `lastAttempt` once the event has waited for its attribution (it waits once). */
export interface AttemptOptions {
  lastAttempt?: boolean;
}

/** A processor amount we cannot use exactly is a permanent failure (400: never retried), never rounded. */
function assertAmount(name: string, value: number, allowZero = false): void {
  const problem = amountProblem(value, { allowZero });
  if (problem) throw errors.badRequest(`The ${name} ${problem}`);
}

/** Thrown when an event must wait for something else to arrive first (its sale): retried on the back-off. */
export class NotYetResolvable extends Error {
  /**
   * @param awaitingSale the ids the event looks its sale up by, when the sale is what it waits
   * for: recording that sale retries the event at once instead of at its next back-off.
   */
  constructor(
    reason: string,
    readonly awaitingSale: string[] = [],
  ) {
    super(reason);
    this.name = 'NotYetResolvable';
  }
}

/** Our own metadata says the payment is referred: worth waiting for its click or lead. */
const hasAffixMetadata = (payment: Pick<ProcessorPayment, 'metadata'>) =>
  Boolean(payment.metadata.clickId || (payment.metadata.customerKey && !payment.metadata.customerKeyIsReference));

const attributionKeys = (payment: Pick<ProcessorPayment, 'metadata' | 'email' | 'processorCustomerId'>): AttributionKeys => ({
  clickId: payment.metadata.clickId,
  customerKey: payment.metadata.customerKey,
  emailHash: payment.email ? hashEmail(payment.email) : null,
  processorCustomerId: payment.processorCustomerId,
});

/**
 * Our metadata and nothing matches: its click or lead may not be recorded yet. One attempt, then
 * it waits for a click, lead or customer with one of its keys (or the fallback time) without
 * retrying; the attempt after that wait is its last. Without our metadata nothing could ever
 * attribute it: null (the caller decides).
 */
function awaitAttribution(payment: Pick<ProcessorPayment, 'metadata' | 'email' | 'processorCustomerId'>, options: AttemptOptions): ProcessorOutcome | null {
  if (!hasAffixMetadata(payment)) return null;
  if (options.lastAttempt) return { kind: 'unresolved', referenceOnly: false, waited: true };
  return { kind: 'waiting_for_attribution', keys: attributionKeys(payment) };
}

/**
 * Nothing matches. Our metadata: its click or lead may come later (awaitAttribution). A
 * subscription payment of a processor customer: its checkout (or first invoice) may bind the
 * customer within the second, in any order, so it waits for that. Otherwise simply unreferred.
 */
function unmatched(payment: Pick<ProcessorPayment, 'metadata' | 'email' | 'processorCustomerId' | 'saleType'>, options: AttemptOptions): ProcessorOutcome {
  const waiting = awaitAttribution(payment, options);
  if (waiting) return waiting;
  if (payment.saleType === 'subscription' && payment.processorCustomerId) {
    return { kind: 'waiting_for_customer', processorCustomerId: payment.processorCustomerId };
  }
  return { kind: 'unresolved', referenceOnly: payment.metadata.customerKeyIsReference };
}

/**
 * Spec §6 order: (1) affix_click_id, (2) email matched to a lead, (3) processor customer seen in an
 * earlier attributed session, (4) affix_customer_key alone; then ours, (5) a promotion code the
 * brand mapped to a partner. Last, because a code is shared on coupon sites: a click or a
 * customer the partner really brought is stronger evidence. Null when nothing matches.
 */
export async function resolveProcessorCustomer(
  tx: TrackingTx,
  program: Program,
  payment: Pick<ProcessorPayment, 'metadata' | 'email' | 'processorCustomerId' | 'promotionRefs'>,
  now: Date,
): Promise<ResolvedCustomer | null> {
  const { clickId, customerKey } = payment.metadata;
  if (clickId) {
    const first = await attributedClick(tx, clickId);
    if (first && first.programId === program.id) return { ...(await customerForClick(tx, first, customerKey, payment.processorCustomerId)), step: 'click_id' };
  }
  if (payment.email) {
    const byEmail = await tx.findCustomerByEmailHash(program.id, hashEmail(payment.email));
    if (byEmail) return { customer: byEmail, step: 'email' };
  }
  if (payment.processorCustomerId) {
    const byStripe = await tx.findCustomerByProcessorCustomer(program.id, payment.processorCustomerId);
    if (byStripe) return { customer: byStripe, step: 'stripe_customer' };
  }
  if (customerKey) {
    const byKey = await tx.findCustomerByKey(program.id, customerKey);
    if (byKey) return { customer: byKey, step: 'customer_key' };
  }
  return customerForPromoCode(tx, program, payment.promotionRefs, { customerKey, email: payment.email }, now);
}

async function loadProgram(tx: TrackingTx, programId: number): Promise<Program> {
  const program = await tx.getProgram(programId);
  if (!program) throw errors.notFound('Program not found');
  return program;
}

/**
 * Remembers the processor customer on the attributed customer, so renewals without metadata still
 * resolve. The first customer bound keeps it: nothing changes when any customer of the program
 * (this one included) already holds it.
 */
async function bindProcessorCustomer(tx: TrackingTx, resolved: ResolvedCustomer, processorCustomerId: string | null, program: Program) {
  // A customer created by this resolution was bound as it was written (customerForClick).
  if (processorCustomerId && !resolved.created) await tx.bindProcessorCustomerIfFree(program.id, resolved.customer.id, processorCustomerId);
}

const mismatch = (program: Program, payment: Pick<ProcessorPayment, 'metadata'>): ProcessorOutcome | null =>
  payment.metadata.programId && payment.metadata.programId.trim() !== String(program.id)
    ? { kind: 'program_mismatch', metadataProgramId: payment.metadata.programId }
    : null;

/**
 * Records a processor payment as a sale. Unresolvable payments that carry our metadata, and
 * renewals, wait (without retrying: see awaitAttribution); others are simply not ours.
 */
export async function recordProcessorPayment(store: Transactions, payment: ProcessorPayment, now: Date, options: AttemptOptions = {}): Promise<ProcessorOutcome> {
  assertAmount('amount', payment.amountCents);
  try {
    return await store.transaction(async (tx) => {
      const program = await loadProgram(tx, payment.programId);
      // The program's choice decides (the same rule as the tracking API); a refusal is final.
      const currency = acceptedCurrency(payment.currency, program);
      if (payment.amountProblem) throw errors.badRequest(payment.amountProblem);
      const wrongProgram = mismatch(program, payment);
      if (wrongProgram) return wrongProgram;
      const duplicateId = await tx.findSaleIdByTransactionId(payment.programId, payment.transactionId);
      if (duplicateId !== null) return { kind: 'duplicate', saleId: duplicateId };
      const resolved = await resolveProcessorCustomer(tx, program, payment, now);
      if (!resolved) return unmatched(payment, options);
      await bindProcessorCustomer(tx, resolved, payment.processorCustomerId, program);
      const outcome = await recordSale(
        tx,
        program,
        resolved,
        payment.transactionId,
        {
          amountCents: payment.amountCents,
          currency,
          occurredAt: payment.occurredAt,
          provider: payment.processor,
          providerPaymentId: payment.paymentIds[0] ?? null,
          livemode: payment.livemode,
          test: !payment.livemode && program.livemodeOnlyCommissions,
          saleType: payment.saleType,
          isRecurring: payment.isRecurring,
          subscriptionId: payment.subscriptionId,
          subscriptionInterval: null,
          eventName: payment.eventName,
          taxCents: payment.taxCents ?? null,
          source: payment.processor,
          details: { payment_ids: payment.paymentIds },
          purchase: payment.purchase ?? NO_PURCHASE_FACTS,
        },
        now,
        // A failed commission fails the event: it is retried as a whole, nothing is left half-done.
        'roll_back',
      );
      if (!outcome.attributed) throw new RolledBack(outcome);
      if (outcome.partnerMissing) return { kind: 'recorded', saleId: outcome.saleId, commissionId: null, step: resolved.step };
      return { kind: 'recorded', saleId: outcome.saleId, commissionId: outcome.commissionId, step: resolved.step };
    });
  } catch (error) {
    if (error instanceof RolledBack) {
      return { kind: 'window_expired', clickAgeDays: error.outcome.clickAgeDays, windowDays: error.outcome.windowDays };
    }
    if (error instanceof AffixError && error.status === 409) {
      return { kind: 'duplicate', saleId: (error.init.details?.sale_id as number) ?? 0 };
    }
    throw error;
  }
}

/**
 * Subscription checkouts: the sale comes with the invoice (spec §3), the checkout binds the
 * processor customer through the same resolution. A provisional lead is settled by the payment
 * (the invoice), not here: with a free trial nothing may ever be paid.
 */
export async function bindProcessorCheckout(
  store: Transactions,
  checkout: Pick<ProcessorPayment, 'programId' | 'metadata' | 'email' | 'processorCustomerId' | 'promotionRefs'>,
  now: Date,
  options: AttemptOptions = {},
): Promise<ProcessorOutcome> {
  return store.transaction(async (tx) => {
    const program = await loadProgram(tx, checkout.programId);
    const wrongProgram = mismatch(program, checkout);
    if (wrongProgram) return wrongProgram;
    const resolved = await resolveProcessorCustomer(tx, program, checkout, now);
    if (!resolved) return awaitAttribution(checkout, options) ?? { kind: 'unresolved', referenceOnly: checkout.metadata.customerKeyIsReference };
    await bindProcessorCustomer(tx, resolved, checkout.processorCustomerId, program);
    return { kind: 'bound', customerId: resolved.customer.id, step: resolved.step };
  });
}

export interface ProcessorRefund {
  programId: number;
  processor: ProcessorName;
  /** Payment intent / charge ids and invoice id the refunded charge names. */
  paymentIds: string[];
  transactionIds: string[];
  /** Individual refunds when the processor lists them; else the charge's cumulative refunded amount. */
  refunds: { id: string; amountCents: number }[] | null;
  /** What the payment says was refunded in all; null when each refund stands alone (Paddle's adjustments). */
  cumulativeRefundedCents: number | null;
  chargeId: string;
}

export type ProcessorRefundOutcome = { kind: 'applied'; saleId: number; results: TrackRefundResult[] };

async function findPaidSale(tx: TrackingTx, programId: number, ids: { paymentIds: string[]; transactionIds: string[] }): Promise<Sale> {
  const sale = await tx.findSaleByPayment(programId, ids);
  if (!sale) throw new NotYetResolvable('the sale this refers to is not recorded yet', [...ids.paymentIds, ...ids.transactionIds]);
  return sale;
}

/** charge.refunded: one refund per Stripe refund object, never more than the charge says was refunded. */
export async function recordProcessorRefund(store: Transactions, refund: ProcessorRefund): Promise<ProcessorRefundOutcome> {
  const cumulative = refund.cumulativeRefundedCents;
  if (cumulative === null && refund.refunds === null) throw errors.badRequest('The refund names no amount');
  if (cumulative !== null) assertAmount('refunded amount', cumulative, true);
  for (const piece of refund.refunds ?? []) assertAmount('refund amount', piece.amountCents, true);
  return store.transaction(async (tx) => {
    const sale = await findPaidSale(tx, refund.programId, refund);
    // The commission is locked before what is already counted is read: two events of the same
    // money (Lemon Squeezy's order_refunded and its initial invoice's refund) taken at once would
    // otherwise both find nothing counted and count it twice.
    await tx.lockCommissionForSale(sale.id);
    const results: TrackRefundResult[] = [];
    // Refunds that failed later no longer count toward the charge's cumulative amount.
    let counted = await tx.processorRefundedCents(sale.id, refund.processor);
    const pieces = refund.refunds ?? [{ id: `${refund.chargeId}:total:${cumulative}`, amountCents: cumulative! - counted }];
    for (const piece of pieces) {
      const room = cumulative === null ? piece.amountCents : cumulative - counted;
      const amountCents = Math.min(piece.amountCents, room);
      if (amountCents <= 0) continue;
      const result = await refundSale(tx, sale, { refundAmountCents: amountCents, refundId: piece.id, reason: 'refund', refundReason: null, source: refund.processor });
      if (result.status !== 'skipped') counted += amountCents;
      results.push(result);
    }
    return { kind: 'applied', saleId: sale.id, results };
  });
}

const disputeKey = (disputeId: string) => `dispute:${disputeId}`;
/** A dispute counts as a chargeback of its own amount (a partial dispute deducts part), once per dispute. */
const chargeback = (dispute: ProcessorDispute) => ({
  refundAmountCents: dispute.amountCents ?? undefined,
  refundId: disputeKey(dispute.disputeId),
  reason: 'chargeback' as const,
  refundReason: `${PROCESSOR_NAMES[dispute.processor]} dispute`,
  source: dispute.processor,
});

export interface ProcessorDispute {
  programId: number;
  processor: ProcessorName;
  disputeId: string;
  paymentIds: string[];
  /** The disputed amount (smallest unit); null when the processor does not say: the whole sale. */
  amountCents: number | null;
}

export type ProcessorDisputeOutcome = { kind: 'deducted' | 'restored' | 'nothing_to_restore'; saleId: number; results: TrackRefundResult[] };

/**
 * A dispute's effect (src/core/disputes.ts) on its sale's commission, idempotent in any order.
 * Deduct: counted once under the dispute's key. Restore: the counted chargeback is reverted;
 * processed before the event that counts it, it is counted and reverted at once, so the late
 * event finds it counted and changes nothing: every order ends in the same rows.
 */
export async function applyProcessorDispute(store: Transactions, dispute: ProcessorDispute, effect: 'deduct' | 'restore'): Promise<ProcessorDisputeOutcome> {
  if (dispute.amountCents !== null) assertAmount('dispute amount', dispute.amountCents);
  return store.transaction(async (tx) => {
    const sale = await findPaidSale(tx, dispute.programId, { paymentIds: dispute.paymentIds, transactionIds: [] });
    const key = refundKey(disputeKey(dispute.disputeId), undefined);
    if (effect === 'deduct') return { kind: 'deducted', saleId: sale.id, results: [await refundSale(tx, sale, chargeback(dispute))] };
    if (!(await tx.refundKeyUsed(sale.id, key))) await refundSale(tx, sale, chargeback(dispute));
    const restored = await revertCountedRefund(tx, sale, key);
    return { kind: restored ? 'restored' : 'nothing_to_restore', saleId: sale.id, results: [] };
  });
}

export interface ProcessorChargebackAdjustment {
  programId: number;
  processor: ProcessorName;
  /** The adjustment's own id: each one counts once, by its own amount. */
  adjustmentId: string;
  paymentIds: string[];
  amountCents: number;
  /** A chargeback takes money; its reversal gives some (or all) of it back. */
  direction: 'taken' | 'given_back';
}

export type ProcessorChargebackOutcome = { kind: 'counted' | 'already_counted' | 'no_commission'; saleId: number };

/**
 * One chargeback adjustment (Paddle's chargeback / chargeback_reverse): stored under its own id with
 * its own amount; the commission follows what stands charged back (src/core/disputes.ts), so two
 * partial chargebacks both count, a reversal gives back only its amount, a second chargeback after
 * a reversal counts again, and any delivery order ends at the same figures.
 */
export async function applyChargebackAdjustment(store: Transactions, adjustment: ProcessorChargebackAdjustment): Promise<ProcessorChargebackOutcome> {
  assertAmount('chargeback amount', adjustment.amountCents, true);
  return store.transaction(async (tx) => {
    const sale = await findPaidSale(tx, adjustment.programId, { paymentIds: adjustment.paymentIds, transactionIds: [] });
    const commission = await tx.lockCommissionForSale(sale.id);
    if (!commission) return { kind: 'no_commission', saleId: sale.id };
    const key = refundKey(`${adjustment.direction === 'taken' ? 'chargeback' : 'chargeback_reverse'}:${adjustment.adjustmentId}`, undefined);
    if (await tx.refundKeyUsed(sale.id, key)) return { kind: 'already_counted', saleId: sale.id };
    const before = await tx.chargebackAdjustmentCents(sale.id, adjustment.processor);
    const taken = before.takenCents + (adjustment.direction === 'taken' ? adjustment.amountCents : 0);
    const givenBack = before.givenBackCents + (adjustment.direction === 'given_back' ? adjustment.amountCents : 0);
    const standingChange = standingChargebackCents(taken, givenBack) - standingChargebackCents(before.takenCents, before.givenBackCents);
    const after = await commissionAtRefundRows(tx, sale, commission, { chargebacksCents: standingChange });
    const next = after.refundedTotalCents === commission.refundedTotalCents && after.deductedCents === commission.deductedCents ? null : after;
    const inserted = await tx.insertRefund({
      saleId: sale.id,
      commissionId: commission.id,
      refundKey: key,
      amountCents: adjustment.amountCents,
      deductionCents: next ? Math.abs(next.deductedCents - commission.deductedCents) : 0,
      reason: adjustment.direction === 'taken' ? 'chargeback' : 'chargeback_reversed',
      refundReason: `${PROCESSOR_NAMES[adjustment.processor]} ${adjustment.direction === 'taken' ? 'chargeback' : 'chargeback reversed'}`,
      source: adjustment.processor,
    });
    if (!inserted) return { kind: 'already_counted', saleId: sale.id };
    if (next) await setCommissionAfterRefund(tx, commission, next);
    return { kind: 'counted', saleId: sale.id };
  });
}

/**
 * Takes one counted refund or chargeback out; the commission follows what the rest count (a
 * won dispute leaves a refund made meanwhile counted). False when nothing active is under the key.
 */
async function revertCountedRefund(tx: TrackingTx, sale: Sale, key: string): Promise<boolean> {
  const commission = await tx.lockCommissionForSale(sale.id);
  const counted = await tx.findActiveRefund(sale.id, key);
  if (!commission || !counted) return false;
  await tx.markRefundReverted(counted.id);
  await setCommissionAfterRefund(tx, commission, await commissionAtRefundRows(tx, sale, commission));
  return true;
}

export type RefundFailureOutcome = { kind: 'reverted' | 'not_counted'; saleId: number };

/**
 * A refund that failed after Stripe reported it (charge.refund.updated / refund.failed): its
 * deduction is given back. Counted by its id: that row is reverted. Counted only inside a
 * charge's cumulative amount (current API versions): an offset row gives back the same share.
 * Not counted yet (its charge.refunded still to come): wait for it.
 */
export async function revertProcessorRefund(
  store: Transactions,
  failure: { programId: number; refundId: string; amountCents: number; paymentIds: string[] },
): Promise<RefundFailureOutcome> {
  assertAmount('refund amount', failure.amountCents, true);
  return store.transaction(async (tx) => {
    const sale = await findPaidSale(tx, failure.programId, { paymentIds: failure.paymentIds, transactionIds: [] });
    if (await revertCountedRefund(tx, sale, refundKey(failure.refundId, undefined))) return { kind: 'reverted', saleId: sale.id };
    const offsetKey = `failed:${failure.refundId}`;
    if (await tx.refundKeyUsed(sale.id, offsetKey)) return { kind: 'reverted', saleId: sale.id };
    const commission = await tx.lockCommissionForSale(sale.id);
    if (!commission) return { kind: 'not_counted', saleId: sale.id };
    const cumulative = await tx.processorRefundedCents(sale.id, 'stripe');
    if (cumulative < failure.amountCents) throw new NotYetResolvable('the refund that failed is not counted yet');
    const reverted = await commissionAtRefundRows(tx, sale, commission, { refundsCents: -failure.amountCents });
    await tx.insertRefund({
      saleId: sale.id,
      commissionId: commission.id,
      refundKey: offsetKey,
      amountCents: failure.amountCents,
      deductionCents: reverted.restoredCents,
      reason: 'refund_failed',
      refundReason: 'Stripe refund failed',
      source: 'stripe',
    });
    await setCommissionAfterRefund(tx, commission, reverted);
    return { kind: 'reverted', saleId: sale.id };
  });
}

/**
 * invoice_payment.paid: on Stripe API 2025-03-31+ invoices name no payment, so this event is
 * what ties the invoice to its payment intent for refunds and disputes. Either order with the
 * invoice works: the link does not need the sale to exist.
 */
export async function linkProcessorInvoicePayment(
  store: Transactions,
  link: { programId: number; invoiceId: string; paymentIds: string[] },
): Promise<void> {
  await store.transaction(async (tx) => {
    for (const paymentId of link.paymentIds) await tx.linkPaymentToInvoice(link.programId, paymentId, link.invoiceId);
  });
}
