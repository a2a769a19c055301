// A rule of a reward rule set in words, for the editor's list (docs/rewards.md): when it pays
// (its event and conditions, the same words as a commission's), how much in which months, for how
// long, and its caps. Pure.
import { PROGRAM_CURRENCY } from './currency.js';
import { majorUnits, parseMajorUnits } from './money.js';
import { type MoneyCap, type RewardAmount, type RewardRule, conditionWords } from './rewards.js';
import type { Currency } from './types.js';

const EVENT_WORDS = { sale: 'Sales', lead: 'Leads', click: 'Clicks' } as const;

/** "100.00 USD, 80.00 EUR" (the order the cap names them). */
export const moneyCapWords = (cap: MoneyCap | undefined): string =>
  Object.entries(cap ?? {}).map(([currency, cents]) => `${majorUnits(cents as number, currency as Currency)} ${currency}`).join(', ');

const amountWords = (amount: RewardAmount) => (amount.type === 'percent' ? `${amount.rate} %` : `${amount.rate} in the sale's currency`);

/** "30 % through month 3, then 20 % through month 12". */
export function stepWords(rule: RewardRule): string {
  return rule.steps
    .map((step, i) => `${i === 0 ? '' : 'then '}${amountWords(step.amount)}${step.throughMonth === null ? (rule.steps.length > 1 ? ' after that' : '') : ` through month ${step.throughMonth}`}`)
    .join(', ');
}

export function durationWords(rule: RewardRule): string {
  const d = rule.duration;
  if (d.kind === 'first_sale') return "the customer's first paid sale only";
  if (d.kind === 'months') return `for ${d.months} month${d.months === 1 ? '' : 's'} from the customer's first paid sale`;
  if (d.kind === 'payments') return `for the customer's first ${d.payments} paid sale${d.payments === 1 ? '' : 's'}`;
  return "for the customer's lifetime";
}

/** The rule's parts in words: when it applies, what it pays, how long, and what limits it. */
export function ruleWords(rule: RewardRule): { when: string; pays: string; duration: string; caps: string } {
  const when = conditionWords(rule);
  const amounts = [
    rule.when.minAmount && Object.keys(rule.when.minAmount).length ? `sale at least ${moneyCapWords(rule.when.minAmount)}` : '',
    rule.when.maxAmount && Object.keys(rule.when.maxAmount).length ? `sale at most ${moneyCapWords(rule.when.maxAmount)}` : '',
  ].filter(Boolean);
  const caps = [
    rule.caps?.perCustomer && Object.keys(rule.caps.perCustomer).length ? `at most ${moneyCapWords(rule.caps.perCustomer)} per customer` : '',
    rule.caps?.perPartnerMonth && Object.keys(rule.caps.perPartnerMonth).length ? `at most ${moneyCapWords(rule.caps.perPartnerMonth)} per partner per month` : '',
  ].filter(Boolean);
  // A lead or a click pays one flat amount in the rule's currency ("5.00 EUR per lead"): a lead when the server records it, clicks once a day.
  const currency = rule.currency ?? PROGRAM_CURRENCY;
  const flatCents = rule.steps[0] ? parseMajorUnits(rule.steps[0].amount.rate, currency) : null;
  const each = rule.event === 'sale' ? null : `${flatCents === null ? (rule.steps[0]?.amount.rate ?? '0') : majorUnits(flatCents, currency)} ${currency} per ${rule.event}`;
  return {
    when: [`${EVENT_WORDS[rule.event]}`, [when, ...amounts].filter(Boolean).join(', ') || 'any'].join(': '),
    pays: each ?? stepWords(rule),
    duration: rule.event === 'lead' ? "when the brand's server records the lead" : rule.event === 'click' ? "paid once a day for the day's clicks" : durationWords(rule),
    caps: caps.join('; '),
  };
}
