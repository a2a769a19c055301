// Click rewards (issue 46 item 2, docs/rewards.md "Leads and clicks"), as Dub pays them: never per
// click request (the click's path does no more work), but once per partner and ended UTC day,
// the click rule's flat amount times the day's counted clicks, by a scheduled job. The version
// in force at the day's start decides the whole day (a set pays no clicks made before it was
// published); caps and the monthly budget bound the day as any reward, under the sales' lock.
// Each partner's day is its own transaction; its unique key makes a repeated or concurrent run
// pay nothing twice.
import { createdEntry } from '../../core/commission-ledger.js';
import { type ClickDayUnpaid, clickDayFacts, clickDaysToPay, dayStart, decideUnderRules, inRuleCurrency, lookBackStart, paysEvent, rewardMonth, rewardSnapshot, tierWindow, unpaidClickDayWords, usesCaps } from '../../core/commission-rewards.js';
import { termsSnapshot } from '../../core/partners.js';
import * as clickRewards from '../../db/money/click-rewards.js';
import { lockRewardCaps, partnerFigures, rewardTerms, rewardUsage } from '../../db/money/reward-rules.js';
import { type PoolClient, withTransaction } from '../../db/infra/pool.js';
import { DEFAULT_OUTBOUND_QUEUE, writeMessages } from '../../db/outbound/messages.js';
import type { ManagementDeps } from '../programs/management.js';

/** How far back a run looks for days not yet decided (a job down this long pays them on its return). */
export const CLICK_DAYS_LOOK_BACK = 14;

/**
 * Decides one partner's day in the caller's transaction, once: every counted ended day gets its
 * row, paying or not (the words say why not), so a later run never re-decides it under the
 * partner's terms of that later time. True when it made a commission.
 */
async function decideClickDay(client: PoolClient, programId: number, found: clickRewards.ClickDay, at: Date): Promise<boolean> {
  const notPaid = (ruleSetId: number | null, why: ClickDayUnpaid) =>
    clickRewards.insertClickDay(client, { programId, partnerId: found.partnerId, day: found.day, clicks: found.clicks, ruleSetId, ruleId: null, words: unpaidClickDayWords(found.day, found.clicks, why), at }).then(() => false);
  const terms = await clickRewards.partnerTermsIn(client, programId, found.partnerId);
  // Only an approved partner earns; a partner on their own terms is paid by their commission type, which pays sales only.
  if (!terms || terms.status !== 'approved') return notPaid(null, { kind: 'not_approved', status: terms?.status ?? 'removed' });
  if (terms.source === 'override') return notPaid(null, { kind: 'own_terms' });
  const start = dayStart(found.day);
  const { ruleSet, groupName } = await rewardTerms(client, programId, terms.groupId, start);
  if (!ruleSet || !paysEvent(ruleSet.document, 'click')) return notPaid(ruleSet?.id ?? null, { kind: 'no_click_rule', group: ruleSet ? ruleSet.groupName : groupName });
  const window = tierWindow(ruleSet.document, start);
  const figures = window ? await partnerFigures(client, programId, found.partnerId, window.from, window.to) : null;
  // The deciding rule first (it names the currency), then caps read in that currency.
  const counted = clickDayFacts(found.day, found.clicks, ruleSet.document, figures);
  const facts = inRuleCurrency(ruleSet, counted) ?? counted;
  let usage = { customer: 0, partnerMonth: 0, programMonth: 0 };
  if (usesCaps(ruleSet.document)) {
    await lockRewardCaps(client, programId);
    usage = await rewardUsage(client, { programId, partnerId: found.partnerId, customerId: null, currency: facts.currency, month: rewardMonth(start) });
  }
  // A day no click rule matches is decided too (its words say so), never again later.
  const outcome = decideUnderRules(ruleSet, facts, usage);
  const dayId = await clickRewards.insertClickDay(client, {
    programId, partnerId: found.partnerId, day: found.day, clicks: found.clicks, ruleSetId: ruleSet.id,
    ruleId: outcome.pays ? outcome.explanation.ruleId : null, words: outcome.pays ? outcome.explanation.words : outcome.words, at,
  });
  if (dayId === null || !outcome.pays || outcome.cents === 0) return false;
  const commissionId = await clickRewards.insertClickDayCommission(client, {
    saleId: null, clickRewardDayId: dayId, programId, partnerId: found.partnerId, amountCents: outcome.cents, currency: facts.currency,
    ledger: createdEntry(outcome.cents), holdReasons: [], test: false, terms, explanation: outcome.explanation, rejectedBy: null,
  });
  await writeMessages(client, DEFAULT_OUTBOUND_QUEUE, programId, [{
    type: 'commission.created',
    test: false,
    data: {
      program_id: programId, commission_id: commissionId, sale_id: null, transaction_id: null, partner_id: found.partnerId, amount_cents: outcome.cents,
      currency: facts.currency, hold_reasons: [],
      // The commission is a click day's: which day and how many clicks (a field beside the sale's, as a bounty's is).
      clicks: { day: found.day, count: found.clicks, click_reward_day_id: dayId },
      terms: termsSnapshot(terms),
      reward: rewardSnapshot(outcome.explanation),
    },
  }]);
  return true;
}

/** Pays one program's ended click days not yet decided; returns the commissions made. */
export async function payProgramClickDays(deps: Pick<ManagementDeps, 'pool' | 'now'>, programId: number): Promise<number> {
  const since = await clickRewards.clickRulesSince(deps.pool, programId);
  if (!since) return 0;
  const now = deps.now();
  const days = clickDaysToPay(since, now, CLICK_DAYS_LOOK_BACK);
  if (days.length === 0) return 0;
  let made = 0;
  for (const found of await clickRewards.undecidedClickDays(deps.pool, programId, days[0]!, days[days.length - 1]!)) {
    if (await withTransaction(deps.pool, (client) => decideClickDay(client, programId, found, now))) made++;
  }
  return made;
}

/** Every program with a click rule in force within the look-back (the job on the clock). */
export async function payAllClickDays(deps: Pick<ManagementDeps, 'pool' | 'now'>): Promise<number> {
  let made = 0;
  for (const programId of await clickRewards.programsWithClickRules(deps.pool, lookBackStart(deps.now(), CLICK_DAYS_LOOK_BACK))) made += await payProgramClickDays(deps, programId);
  return made;
}
