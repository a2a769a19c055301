// What a sale's commission is under the program's (or the partner's group's) published rule set,
// and the one sentence that explains every commission, made by rules or by the commission type
// (issue 46 items 2 and 3, docs/rewards.md). Pure: recordSale reads the facts and the caps'
// usage, this decides.
import { tenureMonth } from './attribution.js';
import type { Reward, TermsSource } from './partners.js';
import {
  type MoneyCap,
  type RewardDecision,
  type RewardEvent,
  type RewardFacts,
  type RewardRule,
  type RewardRuleSet,
  type RewardTier,
  type RewardUsage,
  decideReward,
  decidingRule,
  rewardWords,
  tierOf,
} from './rewards.js';
import type { PurchaseFacts } from './sale-facts.js';
import { PROGRAM_CURRENCY } from './currency.js';
import type { Currency } from './types.js';

/** A rule set as stored (docs/rewards.md): the ordered rules, defaults, budget and tiers. */
export interface RuleSetDocument {
  rules: RewardRule[];
  defaults: Partial<Record<RewardEvent, RewardRule>>;
  monthlyBudget?: MoneyCap;
  /** Lowest first; a partner is in the highest whose thresholds their trailing figures meet. */
  tiers?: RewardTier[];
  /** The trailing window tiers are counted over (default 90 days). */
  tierWindowDays?: number;
}

export const DEFAULT_TIER_WINDOW_DAYS = 90;

/** The published version that pays a partner's sales: their group's, else the program's. */
export interface PublishedRuleSet {
  id: number;
  version: number;
  groupId: number | null;
  groupName: string | null;
  document: RuleSetDocument;
}

/** The customer's paid sales before this one (non-test, by when they were paid). */
export interface RewardHistory {
  firstPaidAt: Date | null;
  earlierPaidSales: number;
}

/** A partner's figures over the tier window. */
export interface PartnerFigures {
  customers: number;
  revenue: Partial<Record<Currency, number>>;
}

const DAY_MS = 86_400_000;

export const asRuleSet = (published: PublishedRuleSet): RewardRuleSet => ({ version: published.version, ...published.document });

/** Whether deciding needs what caps have used (then decisions of one program run one at a time). */
export function usesCaps(document: RuleSetDocument): boolean {
  const named = (cap: MoneyCap | undefined) => cap !== undefined && Object.keys(cap).length > 0;
  return named(document.monthlyBudget) || [...document.rules, ...Object.values(document.defaults)].some((r) => r && (named(r.caps?.perCustomer) || named(r.caps?.perPartnerMonth)));
}

/** The window a partner's tier is counted over, ending when the sale was paid; null: the set has no tiers. */
export function tierWindow(document: RuleSetDocument, paidAt: Date): { from: Date; to: Date } | null {
  if (!document.tiers?.length) return null;
  return { from: new Date(paidAt.getTime() - (document.tierWindowDays ?? DEFAULT_TIER_WINDOW_DAYS) * DAY_MS), to: paidAt };
}

/** The calendar month (UTC) caps and the budget count a sale in: its first day. */
export const rewardMonth = (paidAt: Date): Date => new Date(Date.UTC(paidAt.getUTCFullYear(), paidAt.getUTCMonth(), 1));

export function saleRewardFacts(
  sale: { amountCents: number; currency: Currency; paidAt: Date; purchase: PurchaseFacts },
  history: RewardHistory,
  document: RuleSetDocument,
  figures: PartnerFigures | null,
): RewardFacts {
  return {
    event: 'sale',
    amountCents: sale.amountCents,
    currency: sale.currency,
    occurredAt: sale.paidAt,
    products: sale.purchase.productIds,
    prices: sale.purchase.priceIds,
    interval: sale.purchase.interval,
    country: sale.purchase.country,
    firstPaidAt: history.firstPaidAt,
    paymentNumber: history.earlierPaidSales + 1,
    partnerTier: document.tiers?.length && figures ? tierOf(document.tiers, figures) : null,
  };
}

/** Whether the set has a rule (or a default) for the event: without one, the event is not decided at all. */
export const paysEvent = (document: RuleSetDocument, event: RewardEvent): boolean => document.defaults[event] !== undefined || document.rules.some((r) => r.event === event);

/** A lead's facts: no amount, no products, no tenure; the partner's tier when the set has tiers (docs/rewards.md "Leads and clicks"). */
export function leadRewardFacts(at: Date, document: RuleSetDocument, figures: PartnerFigures | null): RewardFacts {
  return {
    event: 'lead', amountCents: 0, currency: PROGRAM_CURRENCY, occurredAt: at, products: [], prices: [], interval: null,
    // A lead carries no country (the lead API takes none).
    country: null, firstPaidAt: null, paymentNumber: 1,
    partnerTier: document.tiers?.length && figures ? tierOf(document.tiers, figures) : null,
  };
}

/**
 * A lead's or click day's facts in the currency it is paid in: the deciding rule's (its only
 * condition is the tier, so the currency never changes which rule decides). Caps and the budget
 * are then read and applied in that currency. A rule stored before rules named one pays in
 * PROGRAM_CURRENCY. Null: no rule of the set decides the event.
 */
export function inRuleCurrency(published: PublishedRuleSet, facts: RewardFacts): RewardFacts | null {
  const found = decidingRule(asRuleSet(published), facts);
  return found ? { ...facts, currency: found.rule.currency ?? PROGRAM_CURRENCY } : null;
}

/** The first instant of a UTC day ("2026-11-26"). */
export const dayStart = (day: string): Date => new Date(`${day}T00:00:00Z`);

/** A partner's click day: its counted clicks, decided as of the day's start (the month caps count it in is the day's). */
export function clickDayFacts(day: string, clicks: number, document: RuleSetDocument, figures: PartnerFigures | null): RewardFacts {
  return { ...leadRewardFacts(dayStart(day), document, figures), event: 'click', count: clicks };
}

/** Why a click day pays nothing before any rule is read: the partner's standing, their own terms, or no click rule in force. */
export type ClickDayUnpaid = { kind: 'not_approved'; status: string } | { kind: 'own_terms' } | { kind: 'no_click_rule'; group: string | null };

/**
 * A click day decided to pay nothing, in words ("Nothing — 12 clicks on 2026-11-26: the partner
 * was banned"): the day is decided once, on the first run after it ends, so a later change of
 * group, terms or ban never re-decides it.
 */
export function unpaidClickDayWords(day: string, clicks: number, why: ClickDayUnpaid): string {
  const counted = `${clicks} ${clicks === 1 ? 'click' : 'clicks'} on ${day}`;
  const reason = why.kind === 'not_approved'
    ? `the partner was ${why.status}, not approved`
    : why.kind === 'own_terms'
      ? "the partner's own terms pay sales only"
      : `${why.group ? `group ${why.group}: ` : ''}no click rule was in force`;
  return `Nothing — ${counted}: ${reason}`;
}

/**
 * The UTC days a click rule pays, in order: each day that has ended by `now`, from the first
 * whole day after `since` (a rule set pays no clicks made before it was published), at most
 * `lookBackDays` back.
 */
export function clickDaysToPay(since: Date, now: Date, lookBackDays: number): string[] {
  const today = Math.floor(now.getTime() / DAY_MS);
  const first = Math.max(Math.ceil(since.getTime() / DAY_MS), lookBackStart(now, lookBackDays).getTime() / DAY_MS);
  const days: string[] = [];
  for (let d = first; d < today; d++) days.push(new Date(d * DAY_MS).toISOString().slice(0, 10));
  return days;
}

/** The first instant of a look-back of `lookBackDays` whole UTC days before today's (the first day a run may still decide). */
export const lookBackStart = (now: Date, lookBackDays: number): Date => new Date((Math.floor(now.getTime() / DAY_MS) - lookBackDays) * DAY_MS);

/** Why a sale under rules has no commission, in the sale's commission_reason words. */
export type RuleCommissionReason = 'not_first_sale' | 'duration_ended' | 'no_reward_rule' | 'cap_reached';

export type RuleOutcome =
  | { pays: true; cents: number; explanation: CommissionExplanation }
  | { pays: false; reason: RuleCommissionReason; words: string };

/** What a commission stores to explain itself. */
export interface CommissionExplanation {
  ruleSetId: number | null;
  ruleSetVersion: number | null;
  ruleId: string | null;
  words: string;
  /** The month caps count it in; null for a commission the rules did not make. */
  rewardMonth: Date | null;
}

/** Decides a sale (a lead, a click day) under the published set; a decision paying 0 (a 0 % rule) is no commission either. */
export function decideUnderRules(published: PublishedRuleSet, facts: RewardFacts, usage: RewardUsage): RuleOutcome {
  const decision = decideReward(asRuleSet(published), facts, usage);
  const words = rewardWords(decision, facts, { group: published.groupName });
  if (!decision.pays) return { pays: false, reason: decision.reason === 'no_rule' ? 'no_reward_rule' : decision.reason, words };
  return {
    pays: true,
    cents: decision.cents,
    explanation: { ruleSetId: published.id, ruleSetVersion: published.version, ruleId: decision.rule.id, words, rewardMonth: rewardMonth(facts.occurredAt) },
  };
}

/** The commission type as the rule it is: percent/fixed on the first paid sale, recurring_* for N months or every sale. */
export function termsAsRule(reward: Reward): RewardRule {
  const recurring = reward.commissionType === 'recurring_percent' || reward.commissionType === 'recurring_fixed';
  const percent = reward.commissionType === 'percent' || reward.commissionType === 'recurring_percent';
  return {
    id: reward.commissionType,
    name: reward.commissionType,
    event: 'sale',
    when: {},
    duration: !recurring ? { kind: 'first_sale' } : reward.recurringDurationMonths ? { kind: 'months', months: reward.recurringDurationMonths } : { kind: 'lifetime' },
    steps: [{ throughMonth: null, amount: { type: percent ? 'percent' : 'flat', rate: reward.commissionRate } }],
  };
}

/** A commission made by the commission type explains itself in the same words as one made by rules. */
export function explainTerms(
  terms: Reward & { source: TermsSource },
  sale: { currency: Currency; paidAt: Date; firstPaidAt: Date | null; cents: number },
  group: string | null,
): CommissionExplanation {
  const rule = termsAsRule(terms);
  const month = tenureMonth(sale.firstPaidAt ?? sale.paidAt, sale.paidAt);
  const decision: RewardDecision = { pays: true, rule, ruleIndex: 0, step: 0, month, cents: sale.cents, cappedBy: null };
  return { ruleSetId: null, ruleSetVersion: null, ruleId: null, words: rewardWords(decision, { currency: sale.currency, paymentNumber: 1 }, { group, terms: terms.source }), rewardMonth: null };
}

/** What webhooks and the API show of it: the words, and the rule-set version and rule that paid (null: the commission type). */
export const rewardSnapshot = (e: CommissionExplanation) => ({ words: e.words, rule_set_id: e.ruleSetId, rule_set_version: e.ruleSetVersion, rule_id: e.ruleId });
