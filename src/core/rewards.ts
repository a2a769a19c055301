// Reward rules (issue 46; docs/rewards.md): what a click, a lead or a sale pays, decided by an
// ordered, versioned rule set. The first rule whose conditions the event meets decides it, else
// the set's default for that event; the rule's duration and steps say how much, in which month of
// the customer's tenure; caps and the program's monthly budget bound it. Pure: the caller passes
// the facts and what the caps have already used.
import { tenureMonth } from './attribution.js';
import { type CurrencyPolicy, currencyAccepted } from './currency.js';
import { MAX_FLAT_REWARD_MAJOR, computeCommissionCents, flatIsWholeMinor, flatTimesCount, formatMoney } from './money.js';
import type { Currency } from './types.js';

export const REWARD_EVENTS = ['click', 'lead', 'sale'] as const;
export type RewardEvent = (typeof REWARD_EVENTS)[number];
export const BILLING_INTERVALS = ['day', 'week', 'month', 'year', 'one_time'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];

/** A percentage of the sale ("30", "12.5") or a flat amount in the event's currency's major unit ("10" = 10.00 USD). */
export type RewardAmount = { type: 'percent'; rate: string } | { type: 'flat'; rate: string };

/** How long a customer's sales pay, counted from their first paid sale. */
export type RewardDuration =
  | { kind: 'first_sale' }
  | { kind: 'months'; months: number }
  | { kind: 'payments'; payments: number }
  | { kind: 'lifetime' };

/** One stage of a staggered reward: this amount through month `throughMonth` of the tenure (null: to the duration's end). */
export interface RewardStep {
  throughMonth: number | null;
  amount: RewardAmount;
}

/** Every condition given must hold; a list holds when the event's value is in it. */
export interface RewardConditions {
  products?: string[];
  prices?: string[];
  intervals?: BillingInterval[];
  /** ISO 3166-1 alpha-2, upper case. */
  countries?: string[];
  /** The sale's amount in its own minor unit, per currency (a currency not named: no bound). */
  minAmount?: Partial<Record<Currency, number>>;
  maxAmount?: Partial<Record<Currency, number>>;
  /** new: the customer's first paid sale; existing: a later one. */
  customer?: 'new' | 'existing';
  tiers?: string[];
}

/** Per currency, in its minor unit (a currency not named has no cap). */
export type MoneyCap = Partial<Record<Currency, number>>;

export interface RewardRule {
  id: string;
  name: string;
  event: RewardEvent;
  when: RewardConditions;
  duration: RewardDuration;
  /** Ascending by throughMonth; the last one's throughMonth may be null. */
  steps: RewardStep[];
  caps?: { perCustomer?: MoneyCap; perPartnerMonth?: MoneyCap };
  /** What a lead or click rule pays in (required for those; a sale pays in its own currency, so a sale rule names none). */
  currency?: Currency;
}

export interface RewardRuleSet {
  version: number;
  /** In the order the brand sees; the first that matches decides. */
  rules: RewardRule[];
  /** What an event no rule matches pays, per event (none: it pays nothing). */
  defaults: Partial<Record<RewardEvent, RewardRule>>;
  /** The program's budget per calendar month (UTC), per currency. */
  monthlyBudget?: MoneyCap;
}

/** What the rules read about an event. */
export interface RewardFacts {
  event: RewardEvent;
  /** The sale's amount (0 for clicks and leads). */
  amountCents: number;
  currency: Currency;
  occurredAt: Date;
  products: string[];
  prices: string[];
  interval: BillingInterval | null;
  country: string | null;
  /** The customer's first paid sale, when it is another sale; null: this sale is the first (or the event is no sale). */
  firstPaidAt: Date | null;
  /** Which paid sale of the customer this is (1 = the first). */
  paymentNumber: number;
  partnerTier: string | null;
  /** A click day's counted clicks (each pays the click rule's amount); absent: one event. */
  count?: number;
}

/** The conditions a click or a lead can meet: neither carries a product, price, interval, amount, customer or country (docs/rewards.md). */
export const NON_SALE_CONDITIONS: readonly (keyof RewardConditions)[] = ['tiers'];

/** What caps and the budget have already used, in the event's currency. */
export interface RewardUsage {
  customer: number;
  partnerMonth: number;
  programMonth: number;
}

export type RewardCap = 'per_customer' | 'per_partner_month' | 'monthly_budget';
export type NoRewardReason = 'no_rule' | 'not_first_sale' | 'duration_ended' | 'cap_reached';

export type RewardDecision =
  | { pays: true; rule: RewardRule; ruleIndex: number | null; step: number; month: number; cents: number; cappedBy: RewardCap | null }
  | { pays: false; rule: RewardRule | null; ruleIndex: number | null; reason: NoRewardReason; cappedBy: RewardCap | null };

const within = <T>(list: readonly T[] | undefined, value: T | null) => list === undefined || list.length === 0 || (value !== null && list.includes(value));
const anyWithin = (list: readonly string[] | undefined, values: readonly string[]) => list === undefined || list.length === 0 || values.some((v) => list.includes(v));

/** Whether the event meets every condition of the rule. */
export function ruleMatches(rule: RewardRule, facts: RewardFacts): boolean {
  if (rule.event !== facts.event) return false;
  const w = rule.when;
  const min = w.minAmount?.[facts.currency];
  const max = w.maxAmount?.[facts.currency];
  return (
    anyWithin(w.products, facts.products) &&
    anyWithin(w.prices, facts.prices) &&
    within(w.intervals, facts.interval) &&
    within(w.countries, facts.country) &&
    (min === undefined || facts.amountCents >= min) &&
    (max === undefined || facts.amountCents <= max) &&
    (w.customer === undefined || (w.customer === 'new') === (facts.paymentNumber === 1)) &&
    within(w.tiers, facts.partnerTier)
  );
}

/** The rule that decides the event: the first that matches (its index), else the event's default (index null), else none. */
export function decidingRule(set: RewardRuleSet, facts: RewardFacts): { rule: RewardRule; index: number | null } | null {
  const index = set.rules.findIndex((rule) => ruleMatches(rule, facts));
  if (index >= 0) return { rule: set.rules[index]!, index };
  const fallback = set.defaults[facts.event];
  return fallback ? { rule: fallback, index: null } : null;
}

/** The step that pays in month `month` of the tenure, or null when the steps end before it. */
function stepFor(rule: RewardRule, month: number): number | null {
  const i = rule.steps.findIndex((s) => s.throughMonth === null || month <= s.throughMonth);
  return i >= 0 ? i : null;
}

/** What the event pays under the rule set, given what caps and the budget already used. */
export function decideReward(set: RewardRuleSet, facts: RewardFacts, usage: RewardUsage): RewardDecision {
  const found = decidingRule(set, facts);
  if (!found) return { pays: false, rule: null, ruleIndex: null, reason: 'no_rule', cappedBy: null };
  const { rule, index } = found;
  const none = (reason: NoRewardReason, cappedBy: RewardCap | null = null): RewardDecision => ({ pays: false, rule, ruleIndex: index, reason, cappedBy });
  const month = facts.event === 'sale' ? tenureMonth(facts.firstPaidAt ?? facts.occurredAt, facts.occurredAt) : 1;
  if (facts.event === 'sale') {
    const d = rule.duration;
    if (d.kind === 'first_sale' && facts.paymentNumber !== 1) return none('not_first_sale');
    if (d.kind === 'months' && month > d.months) return none('duration_ended');
    if (d.kind === 'payments' && facts.paymentNumber > d.payments) return none('duration_ended');
  }
  const step = stepFor(rule, month);
  if (step === null) return none('duration_ended');
  const amount = rule.steps[step]!.amount;
  // A flat reward of a click or a lead is its amount (× the day's clicks, rounded once: a
  // sub-cent rate pays exactly); a percentage of one is nothing (it has no amount).
  const full = facts.event === 'sale'
    ? computeCommissionCents({ type: amount.type === 'percent' ? 'percent' : 'fixed', rate: amount.rate, amountCents: facts.amountCents, currency: facts.currency })
    : amount.type === 'percent' ? 0 : flatTimesCount(amount.rate, facts.count ?? 1, facts.currency);
  // Each cap leaves what it has not used; the tightest decides.
  const room: [RewardCap, number | undefined, number][] = [
    ['per_customer', rule.caps?.perCustomer?.[facts.currency], usage.customer],
    ['per_partner_month', rule.caps?.perPartnerMonth?.[facts.currency], usage.partnerMonth],
    ['monthly_budget', set.monthlyBudget?.[facts.currency], usage.programMonth],
  ];
  let cents = full;
  let cappedBy: RewardCap | null = null;
  for (const [cap, limit, used] of room) {
    if (limit === undefined) continue;
    const left = Math.max(0, limit - used);
    if (left < cents) {
      cents = left;
      cappedBy = cap;
    }
  }
  if (cents === 0 && full > 0) return none('cap_reached', cappedBy);
  return { pays: true, rule, ruleIndex: index, step, month, cents, cappedBy };
}

const CAP_WORDS: Record<RewardCap, string> = { per_customer: "the customer's cap", per_partner_month: "the partner's monthly cap", monthly_budget: "the program's monthly budget" };
const REASON_WORDS: Record<NoRewardReason, string> = {
  no_rule: 'no rule pays this',
  not_first_sale: 'not the first paid sale',
  duration_ended: "past the rule's duration",
  cap_reached: 'cap reached',
};

/** The conditions a rule names, in words ("interval year, country DE"). */
export function conditionWords(rule: RewardRule): string {
  const w = rule.when;
  const parts = [
    w.products?.length ? `product ${w.products.join(' or ')}` : '',
    w.prices?.length ? `price ${w.prices.join(' or ')}` : '',
    w.intervals?.length ? `interval ${w.intervals.join(' or ')}` : '',
    w.countries?.length ? `country ${w.countries.join(' or ')}` : '',
    w.customer ? `${w.customer} customer` : '',
    w.tiers?.length ? `tier ${w.tiers.join(' or ')}` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

function amountWords(amount: RewardAmount, currency: Currency): string {
  if (amount.type === 'percent') return `${amount.rate} %`;
  // A sub-cent rate (a click's 0.005 USD) as given: rounded to a cent it would say what it does not pay.
  if (!flatIsWholeMinor(amount.rate, currency)) return `${amount.rate} ${currency}`;
  return formatMoney(computeCommissionCents({ type: 'fixed', rate: amount.rate, amountCents: Number.MAX_SAFE_INTEGER, currency }), currency);
}

function durationMonths(rule: RewardRule): number | null {
  if (rule.duration.kind === 'months') return rule.duration.months;
  const last = rule.steps[rule.steps.length - 1]?.throughMonth;
  return rule.steps.length > 1 && last ? last : null;
}

const TERMS_WORDS: Record<'override' | 'group' | 'program', string> = { override: "the partner's own terms", group: 'group terms', program: 'program terms' };

/**
 * Why a commission is what it is, in words every surface shows:
 * "30 % — group Creators, rule 'Annual plans' (interval year), month 2 of 3". The one writer of
 * these words: a commission made by the commission type (no rule set) passes it as a rule and
 * `terms` says whose terms they are ("20 % — group Creators, first paid sale", "20 % — program terms").
 */
export function rewardWords(
  decision: RewardDecision,
  facts: Pick<RewardFacts, 'currency' | 'paymentNumber'> & Partial<Pick<RewardFacts, 'count' | 'occurredAt'>>,
  context: { group?: string | null; terms?: 'override' | 'group' | 'program' | null } = {},
): string {
  const where = context.group ? `group ${context.group}, ` : '';
  if (!decision.rule) return context.group ? `Nothing — group ${context.group}: ${REASON_WORDS.no_rule}` : REASON_WORDS.no_rule;
  const rule = decision.rule;
  const named = context.terms
    ? context.terms === 'group' && context.group ? `group ${context.group}` : `${where}${TERMS_WORDS[context.terms]}`
    : decision.ruleIndex === null ? `${where}default` : `${where}rule '${rule.name}'${conditionWords(rule) ? ` (${conditionWords(rule)})` : ''}`;
  if (!decision.pays) return `Nothing — ${named}: ${decision.cappedBy ? CAP_WORDS[decision.cappedBy] : REASON_WORDS[decision.reason]}`;
  const step = rule.steps[decision.step]!;
  const of = durationMonths(rule);
  // A click or a lead has no tenure: its rule's duration says nothing about it.
  const when = rule.event !== 'sale'
    ? ''
    : rule.duration.kind === 'first_sale'
    ? ', first paid sale'
    : rule.duration.kind === 'payments'
      ? `, payment ${facts.paymentNumber} of ${rule.duration.payments}`
      : of
        ? `, month ${decision.month} of ${of}`
        : rule.steps.length > 1 ? `, month ${decision.month}` : '';
  const capped = decision.cappedBy ? `, limited by ${CAP_WORDS[decision.cappedBy]}` : '';
  const each = amountWords(step.amount, facts.currency);
  // "0.10 USD × 120 clicks on 2026-11-26": what a click day's commission counted.
  const amount = rule.event === 'click' && facts.count !== undefined
    ? `${each} × ${facts.count} ${facts.count === 1 ? 'click' : 'clicks'}${facts.occurredAt ? ` on ${facts.occurredAt.toISOString().slice(0, 10)}` : ''}`
    : each;
  return `${amount} — ${named}${when}${capped}`;
}

/**
 * What is wrong with a rule set, in words the brand reads (empty: it can be published). Given the
 * program's currency policy, a lead or click rule's currency must be one the program takes (as a
 * sale's must).
 */
export function ruleSetProblems(set: RewardRuleSet, policy?: CurrencyPolicy): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  const all = [...set.rules, ...Object.values(set.defaults).filter((r): r is RewardRule => Boolean(r))];
  for (const rule of all) {
    const label = `Rule '${rule.name}'`;
    if (ids.has(rule.id)) problems.push(`${label}: its id ${rule.id} is used twice.`);
    ids.add(rule.id);
    if (rule.steps.length === 0) problems.push(`${label}: give it an amount.`);
    rule.steps.forEach((step, i) => {
      const next = rule.steps[i + 1];
      if (step.throughMonth === null && next) problems.push(`${label}: only its last step may run to the end.`);
      if (step.throughMonth !== null && (!Number.isSafeInteger(step.throughMonth) || step.throughMonth < 1)) problems.push(`${label}: a step ends at a month from 1 on.`);
      if (next && step.throughMonth !== null && next.throughMonth !== null && next.throughMonth <= step.throughMonth) problems.push(`${label}: its steps must end in later and later months.`);
      if (step.amount.type === 'percent' && Number(step.amount.rate) > 100) problems.push(`${label}: a percentage is at most 100.`);
      if (!/^\d+(\.\d{1,4})?$/.test(step.amount.rate)) problems.push(`${label}: an amount is a number with at most 4 decimals.`);
    });
    if (rule.event !== 'sale' && rule.steps.some((s) => s.amount.type === 'percent')) problems.push(`${label}: a ${rule.event} has no amount to take a percentage of; give a flat amount.`);
    if (rule.event === 'sale' && rule.currency !== undefined) problems.push(`${label}: a sale pays in the sale's own currency; a sale rule names none.`);
    if (rule.event !== 'sale' && rule.currency === undefined) problems.push(`${label}: give the currency a ${rule.event} reward is paid in.`);
    if (rule.event !== 'sale' && rule.currency !== undefined && policy && !currencyAccepted(rule.currency, policy)) {
      problems.push(`${label}: the program takes USD, EUR and VND only; accept all currencies to pay in ${rule.currency}.`);
    }
    if (rule.event !== 'sale') {
      const named = (Object.keys(rule.when) as (keyof RewardConditions)[]).filter((k) => rule.when[k] !== undefined && !NON_SALE_CONDITIONS.includes(k) && (!Array.isArray(rule.when[k]) || (rule.when[k] as unknown[]).length > 0));
      // (A default's conditions have their own problem below.)
      if (named.length && set.rules.includes(rule)) problems.push(`${label}: a ${rule.event} carries no ${named.join(', ')}; a ${rule.event} rule's only condition is the partner's tier.`);
      if (rule.steps.length > 1) problems.push(`${label}: a ${rule.event} pays one amount; give it one step.`);
      if (rule.steps.some((s) => /^\d+(\.\d{1,4})?$/.test(s.amount.rate) && Number(s.amount.rate) > MAX_FLAT_REWARD_MAJOR)) problems.push(`${label}: a ${rule.event} pays at most ${MAX_FLAT_REWARD_MAJOR.toLocaleString('en-US')}.`);
      if (rule.caps?.perCustomer && Object.keys(rule.caps.perCustomer).length) problems.push(`${label}: a ${rule.event} has no customer's sales to cap; cap it per partner per month or by the monthly budget.`);
    }
    if (rule.duration.kind === 'months' && rule.steps.some((s) => s.throughMonth !== null && s.throughMonth > (rule.duration as { months: number }).months)) {
      problems.push(`${label}: a step ends after the rule's ${rule.duration.months} months.`);
    }
  }
  for (const [event, rule] of Object.entries(set.defaults)) {
    if (rule && rule.event !== event) problems.push(`The default for ${event}s is a rule for ${rule.event}s.`);
    if (rule && Object.values(rule.when).some((v) => v !== undefined && (!Array.isArray(v) || v.length > 0))) problems.push(`The default for ${event}s takes no conditions: it pays what no rule matched.`);
  }
  return problems;
}

/** A partner's tier: the highest whose thresholds their trailing figures meet (tiers listed lowest first). */
export interface RewardTier {
  name: string;
  /** Customers referred over the trailing window. */
  minCustomers?: number;
  /** Revenue over the trailing window, per currency (any currency named reaching its figure counts). */
  minRevenue?: MoneyCap;
}

export function tierOf(tiers: readonly RewardTier[], figures: { customers: number; revenue: Partial<Record<Currency, number>> }): string | null {
  let reached: string | null = null;
  for (const tier of tiers) {
    const customersOk = tier.minCustomers === undefined || figures.customers >= tier.minCustomers;
    const revenueNamed = Object.entries(tier.minRevenue ?? {}) as [Currency, number][];
    const revenueOk = revenueNamed.length === 0 || revenueNamed.some(([currency, min]) => (figures.revenue[currency] ?? 0) >= min);
    if (customersOk && revenueOk) reached = tier.name;
  }
  return reached;
}
