// The reward rules in recordSale (docs/rewards.md): which published rule set pays a partner's
// sale, and its decision, read through the tracking transaction. A partner on their own terms
// (an override) and a program without a published set pay by the commission type, as before.
import { type CommissionExplanation, type PublishedRuleSet, type RuleOutcome, decideUnderRules, explainTerms, rewardMonth, saleRewardFacts, tierWindow, usesCaps } from './commission-rewards.js';
import { type SaleHistory, isEarlier } from './attribution.js';
import type { Terms } from './partners.js';
import type { TrackingTx } from './ports.js';
import { NO_PURCHASE_FACTS, type PurchaseFacts } from './sale-facts.js';
import type { Currency } from './types.js';

export interface SaleToReward {
  programId: number;
  partnerId: number;
  customerId: number;
  transactionId: string;
  amountCents: number;
  currency: Currency;
  paidAt: Date;
  purchase: PurchaseFacts | undefined;
}

/** The published set that pays this partner's sales, or null (their own terms, or none published). */
export async function rewardRuleSetFor(tx: TrackingTx, programId: number, terms: Terms): Promise<{ ruleSet: PublishedRuleSet | null; groupName: string | null }> {
  const found = await tx.rewardTerms(programId, terms.groupId);
  return { ruleSet: terms.source === 'override' ? null : found.ruleSet, groupName: found.groupName };
}

/** Decides the sale under the set; under caps, after every earlier decision of the program committed. */
export async function decideUnderRuleSet(tx: TrackingTx, ruleSet: PublishedRuleSet, sale: SaleToReward, customerIsNew: boolean): Promise<RuleOutcome> {
  const history = customerIsNew ? { firstPaidAt: null, earlierPaidSales: 0 } : await tx.rewardHistory(sale.customerId, sale.paidAt, sale.transactionId);
  const window = tierWindow(ruleSet.document, sale.paidAt);
  const figures = window ? await tx.partnerFigures(sale.programId, sale.partnerId, window.from, window.to) : null;
  const facts = saleRewardFacts({ amountCents: sale.amountCents, currency: sale.currency, paidAt: sale.paidAt, purchase: sale.purchase ?? NO_PURCHASE_FACTS }, history, ruleSet.document, figures);
  let usage = { customer: 0, partnerMonth: 0, programMonth: 0 };
  if (usesCaps(ruleSet.document)) {
    await tx.lockRewardCaps(sale.programId);
    usage = await tx.rewardUsage({ programId: sale.programId, partnerId: sale.partnerId, customerId: sale.customerId, currency: sale.currency, month: rewardMonth(sale.paidAt) });
  }
  return decideUnderRules(ruleSet, facts, usage);
}

/** A commission paid by the commission type explains itself too: the month counted from the customer's first paid sale. */
export function termsExplanation(terms: Terms, history: SaleHistory, sale: SaleToReward, cents: number, groupName: string | null): CommissionExplanation {
  const first = history.firstSale;
  const firstPaidAt = first && isEarlier(first, { occurredAt: sale.paidAt, transactionId: sale.transactionId }) ? first.occurredAt : null;
  return explainTerms(terms, { currency: sale.currency, paidAt: sale.paidAt, firstPaidAt, cents }, groupName);
}
