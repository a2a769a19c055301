// A lead's reward (issue 46 item 2, docs/rewards.md "Leads and clicks"): when the brand's server
// records (or settles) a lead for a partner, the partner's published rule set (the group's, else the program's; a
// partner on their own terms has none, as for sales) decides it; a paying decision is one
// commission for the lead, in the lead's transaction, under the same caps and monthly budget as
// sales (counted in the same month, under the same lock). Only an approved partner earns.
import { createdEntry } from './commission-ledger.js';
import { decideUnderRules, inRuleCurrency, leadRewardFacts, paysEvent, rewardMonth, rewardSnapshot, tierWindow, usesCaps } from './commission-rewards.js';
import { fraudSignals } from './fraud.js';
import { heldCommissionMail } from './mail.js';
import { termsSnapshot } from './partners.js';
import type { TrackingTx } from './ports.js';
import { rewardRuleSetFor } from './sale-rewards.js';
import type { Program } from './types.js';

export interface LeadToReward {
  customerId: number;
  customerKey: string | null;
  clickId: string | null;
  partnerId: number;
  at: Date;
}

/** The lead's commission, if its partner's rules pay one (null: nothing to pay). */
export async function rewardLead(tx: TrackingTx, program: Program, lead: LeadToReward): Promise<{ commissionId: number; cents: number } | null> {
  const terms = await tx.partnerTerms(lead.partnerId);
  // A banned, archived or not yet approved partner earns nothing for a lead.
  if (!terms || terms.status !== 'approved') return null;
  const { ruleSet } = await rewardRuleSetFor(tx, program.id, terms);
  if (!ruleSet || !paysEvent(ruleSet.document, 'lead')) return null;
  const window = tierWindow(ruleSet.document, lead.at);
  const figures = window ? await tx.partnerFigures(program.id, lead.partnerId, window.from, window.to) : null;
  // The deciding rule first (it names the currency), then caps read in that currency.
  const facts = inRuleCurrency(ruleSet, leadRewardFacts(lead.at, ruleSet.document, figures));
  if (!facts) return null;
  let usage = { customer: 0, partnerMonth: 0, programMonth: 0 };
  if (usesCaps(ruleSet.document)) {
    // The sales' lock: a lead and a sale of the program never both take the last of a cap.
    await tx.lockRewardCaps(program.id);
    usage = await tx.rewardUsage({ programId: program.id, partnerId: lead.partnerId, customerId: lead.customerId, currency: facts.currency, month: rewardMonth(lead.at) });
  }
  const outcome = decideUnderRules(ruleSet, facts, usage);
  if (!outcome.pays || outcome.cents === 0) return null;
  const holdReasons = fraudSignals(await tx.fraudFacts(lead.customerId, lead.partnerId, program.fraud.ipWindowMinutes), program.fraud);
  const commissionId = await tx.insertCommission({
    saleId: null, leadCustomerId: lead.customerId, programId: program.id, partnerId: lead.partnerId, amountCents: outcome.cents, currency: facts.currency,
    ledger: createdEntry(outcome.cents), holdReasons, test: false, terms, explanation: outcome.explanation, rejectedBy: null,
  });
  const named = `the lead of customer ${lead.customerId}`;
  if (holdReasons.length) await tx.notifyManagers(program.id, heldCommissionMail(program.id, commissionId, named, holdReasons));
  await tx.emit({
    programId: program.id,
    type: 'commission.created',
    test: false,
    data: {
      program_id: program.id, commission_id: commissionId, sale_id: null, transaction_id: null, partner_id: lead.partnerId, amount_cents: outcome.cents,
      currency: facts.currency, hold_reasons: holdReasons,
      // The commission is a lead's: which one (a field beside the sale's, as a bounty's is).
      lead: { customer_id: lead.customerId, customer_key: lead.customerKey, click_id: lead.clickId },
      terms: termsSnapshot(terms),
      reward: rewardSnapshot(outcome.explanation),
    },
  });
  return { commissionId, cents: outcome.cents };
}
