// POST /track/sale: record a payment, attribute it, create the commission (spec §3, §4.3).
// The Stripe workers call recordSale too, with the customer they resolved.
import { BANNED_REASON, MOVED_REASON, createdEntry, movedAwayChange, rejectedEntry } from './commission-ledger.js';
import { type SaleToReward, decideUnderRuleSet, rewardRuleSetFor, termsExplanation } from './sale-rewards.js';
import { rewardSnapshot } from './commission-rewards.js';
import { NO_PURCHASE_FACTS, type PurchaseFacts } from './sale-facts.js';
import { type Terms, termsSnapshot } from './partners.js';
import { heldCommissionMail } from './mail.js';
import { fraudSignals } from './fraud.js';
import { customerForPromoCode } from './promo-codes.js';
import { type CommissionReason, type FirstSale, NO_SALES, checkAttributionWindow, commissionEligibility } from './attribution.js';
import { attributedClick, customerForClick } from './customers.js';
import { acceptedCurrency } from './currency.js';
import { MESSAGES, errors } from './errors.js';
import { computeCommissionCents } from './money.js';
import type { NewSale, Store, TrackingTx } from './ports.js';
import type { AttributionStep, Currency, Program, ResolvedCustomer } from './types.js';

export interface SaleDetails {
  amountCents: number;
  currency: Currency;
  occurredAt: Date | null;
  provider: string | null;
  providerPaymentId: string | null;
  livemode: boolean | null;
  test: boolean;
  saleType: NewSale['saleType'];
  isRecurring: boolean;
  subscriptionId: string | null;
  subscriptionInterval: NewSale['subscriptionInterval'];
  eventName: string | null;
  taxCents: number | null;
  source: string;
  details: Record<string, unknown>;
  /** Products, prices, interval and country, for the reward rules (src/core/sale-facts.ts). */
  purchase?: PurchaseFacts;
}

export interface TrackSaleInput extends Omit<SaleDetails, 'currency'> {
  programId: number;
  /** As sent (missing, any case): the program's currency rule decides inside the sale's transaction. */
  currency: unknown;
  /** Omitted only in test mode, where `test_txn_<timestamp>` is generated. */
  transactionId: string | null;
  customerKey: string | null;
  clickId: string | null;
  /** A discount code the customer used: attributes the sale when nothing else does (step promo_code). */
  promoCode?: string | null;
  now: Date;
}

export type TrackSaleResult =
  | {
      attributed: true;
      transactionId: string;
      saleId: number;
      commissionId: number | null;
      commissionCents: number | null;
      /** Why there is no commission, when there is none. */
      commissionReason: CommissionReason | null;
      attributionStep: AttributionStep;
    }
  | { attributed: false; reason: 'attribution_window_expired'; clickAgeDays: number; windowDays: number; transactionId: string };

/** What recordSale returns; the caller turns the two after-commit failures into errors. */
export type RecordSaleOutcome =
  | (Extract<TrackSaleResult, { attributed: true }> & { partnerMissing: boolean; commissionFailed: boolean; cause?: unknown })
  | Extract<TrackSaleResult, { attributed: false }>;

export type { ResolvedCustomer };

/** Customer by customer_key first, then by click_id (spec §4.3). Creates the customer from a click when needed. */
export async function resolveSaleCustomer(
  tx: TrackingTx,
  program: Program,
  customerKey: string | null,
  clickId: string | null,
  now: Date,
  promoCode: string | null = null,
): Promise<ResolvedCustomer> {
  if (customerKey) {
    const byKey = await tx.findCustomerByKey(program.id, customerKey);
    if (byKey) return { customer: byKey, step: 'customer_key' };
  }
  if (clickId) {
    const first = await attributedClick(tx, clickId);
    if (first) {
      if (first.programId !== program.id) throw errors.noAttribution(MESSAGES.noAttributionInProgram);
      return { ...(await customerForClick(tx, first, customerKey)), step: 'click_id' };
    }
  }
  if (customerKey && (await tx.customerKeyExistsInOtherProgram(program.id, customerKey))) {
    throw errors.noAttribution(MESSAGES.noAttributionInProgram);
  }
  const byPromo = promoCode ? await customerForPromoCode(tx, program, [promoCode], { customerKey, email: null }, now) : null;
  if (byPromo) return byPromo;
  throw errors.noAttribution(MESSAGES.saleCustomerNotFound);
}

/**
 * What a failed commission does. The API keeps the sale (spec §4.3): the commission runs in a
 * savepoint. The workers retry the whole event instead, so the failure rolls everything back
 * and no savepoint is needed.
 */
export type OnCommissionFailure = 'keep_sale' | 'roll_back';

/** Thrown (in 'roll_back' mode) when the commission cannot be written; the cause is the database's error. */
export class CommissionFailed extends Error {
  constructor(cause: unknown) {
    super('commission could not be created', { cause });
    this.name = 'CommissionFailed';
  }
}

/**
 * Records one sale for a resolved customer inside the caller's transaction: window check,
 * sale row, customer conversion (settling a provisional lead), tracking event, commission.
 */
export async function recordSale(
  tx: TrackingTx,
  program: Program,
  resolved: ResolvedCustomer,
  transactionId: string,
  sale: SaleDetails,
  now: Date,
  onCommissionFailure: OnCommissionFailure = 'keep_sale',
): Promise<RecordSaleOutcome> {
  const { customer, step } = resolved;
  if (!customer.clickId) throw errors.noAttribution(MESSAGES.noPartnerProgram);
  const paymentAt = sale.occurredAt ?? now;
  const verdict = checkAttributionWindow({
    clickedAt: customer.clickedAt,
    leadAt: customer.leadAt,
    paymentAt,
    convertedAt: customer.convertedAt,
    windowDays: program.attributionWindowDays,
  });
  if (!verdict.ok) {
    return { attributed: false, reason: 'attribution_window_expired', clickAgeDays: verdict.clickAgeDays, windowDays: verdict.windowDays, transactionId };
  }

  // The partner's terms now (override, then group, then program); the commission keeps them.
  const terms: Terms & { banId?: number | null } = (customer.partnerId !== null ? await tx.partnerTerms(customer.partnerId) : null) ?? programTerms(program);
  const banId = terms.banId ?? null;
  // Decided before the sale row exists, so the row says why it has no commission (if so).
  // The first paid sale rule: sale.isRecurring is stored, never consulted (docs/architecture.md, "Commission types").
  const history = resolved.created ? NO_SALES : await tx.saleHistory(customer.id);
  const toReward: SaleToReward | null = customer.partnerId === null || sale.test ? null : {
    programId: program.id, partnerId: customer.partnerId, customerId: customer.id, transactionId,
    amountCents: sale.amountCents, currency: sale.currency, paidAt: paymentAt, purchase: sale.purchase,
  };
  // A published rule set (the group's, else the program's) decides instead of the commission type (docs/rewards.md).
  const rewardTerms = toReward ? await rewardRuleSetFor(tx, program.id, terms) : null;
  const ruled = toReward && rewardTerms?.ruleSet ? await decideUnderRuleSet(tx, rewardTerms.ruleSet, toReward, resolved.created === true) : null;
  const eligibility = ruled
    ? ({ eligible: true, moveFrom: null } as const)
    : commissionEligibility({
        type: terms.commissionType,
        history,
        sale: { occurredAt: paymentAt, transactionId },
        recurringDurationMonths: terms.recurringDurationMonths,
      });
  const commissionReason: CommissionReason | null = sale.test
    ? 'test_mode'
    : customer.partnerId === null
      ? 'no_partner'
      : ruled && !ruled.pays
        ? ruled.reason
        : eligibility.eligible
          ? null
          : eligibility.reason;

  const saleId = await tx.insertSale(
    {
      programId: program.id,
      customerId: customer.id,
      partnerId: customer.partnerId,
      processorEventId: transactionId,
      amountCents: sale.amountCents,
      currency: sale.currency,
      occurredAt: paymentAt,
      provider: sale.provider,
      providerPaymentId: sale.providerPaymentId,
      livemode: sale.livemode,
      test: sale.test,
      saleType: sale.saleType,
      isRecurring: sale.isRecurring,
      subscriptionId: sale.subscriptionId,
      subscriptionInterval: sale.subscriptionInterval,
      eventName: sale.eventName,
      taxCents: sale.taxCents,
      attributionStep: step,
      source: sale.source,
      details: sale.details,
      purchase: sale.purchase ?? NO_PURCHASE_FACTS,
      commissionReason,
    },
    {
      // Test sales prove the wiring but are not conversions: the window stays checked for real ones.
      customer: sale.test
        ? null
        : { id: customer.id, convertedAt: customer.convertedAt ? null : paymentAt },
      event: {
        programId: program.id,
        kind: 'sale',
        customerId: customer.id,
        clickId: customer.clickId,
        test: sale.test,
        details: { transaction_id: transactionId, amount_cents: sale.amountCents, currency: sale.currency, attribution_step: step },
        createdAt: now,
      },
    },
  );

  const saleData = {
    program_id: program.id, sale_id: saleId, transaction_id: transactionId, partner_id: customer.partnerId, customer_key: customer.customerKey,
    amount_cents: sale.amountCents, currency: sale.currency, occurred_at: paymentAt.toISOString(), attribution_step: step, commission_reason: commissionReason,
  };
  await tx.emit({ programId: program.id, type: 'sale.created', test: sale.test, data: saleData });
  const base = { attributed: true as const, transactionId, saleId, attributionStep: step };
  const withoutCommission = { commissionId: null, commissionCents: null, commissionReason, commissionFailed: false };
  if (commissionReason !== null) return { ...base, ...withoutCommission, partnerMissing: commissionReason === 'no_partner' };
  const partnerId = customer.partnerId as number;

  const commissionCents = ruled?.pays
    ? ruled.cents
    : computeCommissionCents({
        type: terms.commissionType,
        rate: terms.commissionRate,
        amountCents: sale.amountCents,
        currency: sale.currency,
      });
  const explanation = ruled?.pays ? ruled.explanation : termsExplanation(terms, history, toReward!, commissionCents, rewardTerms?.groupName ?? null);
  // Signals hold the commission for a manager; the sale is recorded either way.
  const holdReasons = fraudSignals(await tx.fraudFacts(customer.id, partnerId, program.fraud.ipWindowMinutes), program.fraud);
  const moveFrom = eligibility.eligible ? eligibility.moveFrom : null;
  // The move and the new commission stand or fall together (the savepoint covers both).
  const insert = async () => {
    if (moveFrom) await moveFirstSaleCommission(tx, program.id, moveFrom, saleId, sale.test);
    return tx.insertCommission({
      saleId, programId: program.id, partnerId, amountCents: commissionCents, currency: sale.currency, ledger: createdEntry(commissionCents), holdReasons,
      // A processor's test-mode payment the program chose to see as a commission: never approved or paid.
      test: sale.livemode === false,
      terms,
      explanation,
      // A banned partner's sale is recorded; its commission is rejected under the ban (lifting it restores the commission).
      rejectedBy: banId !== null ? { sanctionId: banId, ledger: rejectedEntry({ amountCents: commissionCents, deductedCents: 0 }, BANNED_REASON) } : null,
    });
  };
  let commissionId: number;
  try {
    commissionId = onCommissionFailure === 'keep_sale' ? await tx.withSavepoint(insert) : await insert();
  } catch (error) {
    if (onCommissionFailure === 'roll_back') throw new CommissionFailed(error);
    // The sale stays (spec §4.3); the cause is kept on the error the caller raises.
    await tx.setCommissionReason(saleId, 'commission_failed');
    return { ...base, ...withoutCommission, commissionReason: 'commission_failed', partnerMissing: false, commissionFailed: true, cause: error };
  }
  if (holdReasons.length && banId === null && !sale.test) await tx.notifyManagers(program.id, heldCommissionMail(program.id, commissionId, `sale ${transactionId}`, holdReasons));
  await tx.emit({
    programId: program.id,
    type: 'commission.created',
    // A test-mode payment's commission is a test event for the brand's endpoints too.
    test: sale.test || sale.livemode === false,
    data: {
      program_id: program.id, commission_id: commissionId, sale_id: saleId, transaction_id: transactionId, partner_id: partnerId, amount_cents: commissionCents,
      // Its state is added where the event is written, from the one rule (commission_states).
      currency: sale.currency, hold_reasons: holdReasons,
      terms: termsSnapshot(terms),
      reward: rewardSnapshot(explanation),
    },
  });
  return { ...base, commissionId, commissionCents, commissionReason: null, partnerMissing: false, commissionFailed: false };
}

/**
 * An earlier sale took the customer's first-sale commission: the later sale's commission is
 * taken out of the balance (a clawback once a payout claimed it), its sale says why it has none,
 * and the brand hears that it was reversed.
 */
async function moveFirstSaleCommission(tx: TrackingTx, programId: number, from: FirstSale, toSaleId: number, test: boolean): Promise<void> {
  const commission = await tx.lockCommissionForSale(from.saleId);
  if (!commission) return;
  await tx.moveCommission(commission.id, toSaleId, movedAwayChange(commission));
  await tx.setCommissionReason(from.saleId, 'not_first_sale');
  await tx.emit({
    programId,
    type: 'commission.reversed',
    test,
    data: {
      program_id: programId, sale_id: from.saleId, transaction_id: from.transactionId, commission_id: commission.id, partner_id: commission.partnerId,
      amount_cents: commission.amountCents, currency: commission.currency, reason: MOVED_REASON, moved_to_sale_id: toSaleId,
    },
  });
}

/** Carries a result out of a transaction that must not commit. */
export class RolledBack extends Error {
  constructor(readonly outcome: Extract<TrackSaleResult, { attributed: false }>) {
    super('rolled back');
  }
}

export async function trackSale(store: Store, input: TrackSaleInput): Promise<TrackSaleResult> {
  let transactionId = input.transactionId ?? `test_txn_${input.now.getTime()}`;
  const outcome = await store
    .transaction(async (tx) => {
      const program = await tx.getProgram(input.programId);
      if (!program) throw errors.unauthorized(MESSAGES.invalidToken);
      // The program's choice as it is now, in the transaction that records the sale; a refused
      // currency answers 422 before a duplicate's 409 (nothing is created either way).
      const currency = acceptedCurrency(input.currency, program);
      let duplicateId = await tx.findSaleIdByTransactionId(input.programId, transactionId);
      // A generated test id that is taken (two test sales in one millisecond) moves to the next one.
      for (let stamp = input.now.getTime() + 1; input.transactionId === null && duplicateId !== null; stamp++) {
        transactionId = `test_txn_${stamp}`;
        duplicateId = await tx.findSaleIdByTransactionId(input.programId, transactionId);
      }
      if (duplicateId !== null) throw errors.duplicateSale(duplicateId);
      const resolved = await resolveSaleCustomer(tx, program, input.customerKey, input.clickId, input.now, input.promoCode ?? null);
      const recorded = await recordSale(tx, program, resolved, transactionId, { ...input, currency }, input.now);
      // Window expired: roll back whatever resolving wrote, so nothing is recorded (spec §3).
      if (!recorded.attributed) throw new RolledBack(recorded);
      return recorded;
    })
    .catch((error: unknown) => {
      if (error instanceof RolledBack) return error.outcome;
      throw error;
    });
  if (!outcome.attributed) return outcome;
  // Both failures come after commit: the sale is stored and its transaction_id consumed.
  if (outcome.partnerMissing) throw errors.noAttribution(MESSAGES.partnerIdRequired);
  if (outcome.commissionFailed) throw errors.internal(MESSAGES.commissionFailed, { cause: outcome.cause });
  const { partnerMissing: _p, commissionFailed: _c, cause: _cause, ...result } = outcome;
  return result;
}

/** A sale without a partner's terms (no partner, or one not found) is on the program's. */
const programTerms = (program: Program): Terms => ({
  commissionType: program.commissionType,
  commissionRate: program.commissionRate,
  recurringDurationMonths: program.recurringDurationMonths,
  holdDays: program.holdDays,
  source: 'program',
  groupId: null,
  overrideId: null,
});
