// The Rewards page's forms as the editor's input (docs/rewards.md): a rule's fields to the rule
// the admin API takes, the tiers and budget to the set's limits, and back (a stored rule as the
// form's values). Only translation: the rules are checked by the API's schemas (src/app/money/reward-rules.ts).
import { errors } from '../../core/errors.js';
import { toCurrency } from '../../core/currency.js';
import { majorUnits, parseMajorUnits } from '../../core/money.js';
import type { MoneyCap, RewardRule } from '../../core/rewards.js';
import { moneyCapWords } from '../../core/reward-rule-words.js';
import type { RuleSetDocument } from '../../core/commission-rewards.js';
import type { Currency } from '../../core/types.js';

export type FormValues = Record<string, string | string[] | undefined>;

/** Staggered steps a rule's form offers (the API takes up to 24). */
export const STEP_ROWS = 3;
/** Tiers the limits form offers (an empty row is none). */
export const TIER_ROWS = 4;
/** The most the API takes (src/app/money/reward-rules.ts): a set written through it may have more rows than the form offers. */
const MOST_ROWS = { step: 24, tier: 20 } as const;

/**
 * How many numbered rows a form has (step1_…, step2_…): at least the form's own, and every row
 * given, so a rule or a set written through the API keeps all its steps and tiers when edited here.
 */
export function rowCount(form: FormValues, prefix: 'step' | 'tier', least: number): number {
  let rows = least;
  for (const name of Object.keys(form)) {
    const numbered = new RegExp(`^${prefix}(\\d+)_`).exec(name);
    if (numbered) rows = Math.max(rows, Number(numbered[1]));
  }
  return Math.min(rows, MOST_ROWS[prefix]);
}

const text = (form: FormValues, name: string) => {
  const value = form[name];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim();
};
const list = (form: FormValues, name: string) => {
  const value = form[name];
  return (Array.isArray(value) ? value : value ? [value] : []).map((v) => v.trim()).filter(Boolean);
};
const words = (typed: string) => typed.split(/[,\s]+/).map((w) => w.trim()).filter(Boolean);
const count = (typed: string) => (/^\d+$/.test(typed) ? Number(typed) : typed === '' ? undefined : typed);

/** "100.00 USD, 80 EUR" (either order, commas or semicolons between) in minor units per currency. */
export function parseMoneyList(typed: string, field: string): MoneyCap | undefined {
  if (typed.trim() === '') return undefined;
  const cap: MoneyCap = {};
  for (const part of typed.split(/[,;]/).map((p) => p.trim()).filter(Boolean)) {
    const before = /^([A-Za-z]{3})\s*([\d.]+)$/.exec(part);
    const after = /^([\d.]+)\s*([A-Za-z]{3})$/.exec(part);
    const [code, amount] = before ? [before[1]!, before[2]!] : after ? [after[2]!, after[1]!] : ['', ''];
    const currency = toCurrency(code.toUpperCase());
    const cents = currency ? parseMajorUnits(amount, currency) : null;
    if (!currency || cents === null) throw errors.invalid(`${part} is not an amount with its currency`, { [field]: `Write each amount with its currency, like 100.00 USD, 80 EUR ("${part}" is not one).` });
    cap[currency] = cents;
  }
  return cap;
}

/** A cap as the form shows it: the words the rule list uses ("100.00 USD, 80.00 EUR"), which parseMoneyList reads back. */
const moneyValue = moneyCapWords;

/** A rule's form to the rule the API takes (its id is the editor's to give). */
export function ruleFromForm(form: FormValues): Record<string, unknown> {
  const steps: Record<string, unknown>[] = [];
  for (let i = 1; i <= rowCount(form, 'step', STEP_ROWS); i += 1) {
    const rate = text(form, `step${i}_rate`);
    const through = text(form, `step${i}_through`);
    if (rate === '' && through === '' && i > 1) continue;
    steps.push({ throughMonth: through === '' ? null : (count(through) ?? null), amount: { type: text(form, `step${i}_type`) || 'percent', rate } });
  }
  const kind = text(form, 'duration') || 'lifetime';
  const n = count(text(form, 'duration_n'));
  const duration = kind === 'months' ? { kind, months: n } : kind === 'payments' ? { kind, payments: n } : { kind };
  const when: Record<string, unknown> = {};
  const lists = { products: words(text(form, 'products')), prices: words(text(form, 'prices')), countries: words(text(form, 'countries')).map((c) => c.toUpperCase()), tiers: text(form, 'tiers').split(',').map((t) => t.trim()).filter(Boolean), intervals: list(form, 'intervals') };
  for (const [name, values] of Object.entries(lists)) if (values.length) when[name] = values;
  const min = parseMoneyList(text(form, 'min_amount'), 'min_amount');
  const max = parseMoneyList(text(form, 'max_amount'), 'max_amount');
  if (min) when.minAmount = min;
  if (max) when.maxAmount = max;
  if (text(form, 'customer')) when.customer = text(form, 'customer');
  const perCustomer = parseMoneyList(text(form, 'cap_customer'), 'cap_customer');
  const perPartnerMonth = parseMoneyList(text(form, 'cap_partner_month'), 'cap_partner_month');
  const event = text(form, 'event') || 'sale';
  // Only a lead or click rule names its currency (a sale pays in its own): the field is ignored on a sale rule.
  const currency = text(form, 'currency').toUpperCase();
  return {
    name: text(form, 'name'),
    event,
    ...(event !== 'sale' && currency !== '' ? { currency } : {}),
    when,
    duration,
    steps,
    ...(perCustomer || perPartnerMonth ? { caps: { ...(perCustomer ? { perCustomer } : {}), ...(perPartnerMonth ? { perPartnerMonth } : {}) } } : {}),
  };
}

/** A stored rule as its form's values. */
export function ruleValues(rule: RewardRule): FormValues {
  const values: FormValues = {
    name: rule.name,
    event: rule.event,
    duration: rule.duration.kind,
    duration_n: rule.duration.kind === 'months' ? String(rule.duration.months) : rule.duration.kind === 'payments' ? String(rule.duration.payments) : '',
    products: (rule.when.products ?? []).join(', '),
    prices: (rule.when.prices ?? []).join(', '),
    countries: (rule.when.countries ?? []).join(', '),
    tiers: (rule.when.tiers ?? []).join(', '),
    intervals: [...(rule.when.intervals ?? [])],
    min_amount: moneyValue(rule.when.minAmount),
    max_amount: moneyValue(rule.when.maxAmount),
    customer: rule.when.customer ?? '',
    cap_customer: moneyValue(rule.caps?.perCustomer),
    cap_partner_month: moneyValue(rule.caps?.perPartnerMonth),
    currency: rule.currency ?? '',
  };
  rule.steps.forEach((step, i) => {
    values[`step${i + 1}_type`] = step.amount.type;
    values[`step${i + 1}_rate`] = step.amount.rate;
    values[`step${i + 1}_through`] = step.throughMonth === null ? '' : String(step.throughMonth);
  });
  return values;
}

/**
 * Which field an API refusal is about: its path in the rule ("steps.1.amount.rate",
 * "when.countries.0", "duration.months") or in the limits ("tiers.0.minRevenue.USD").
 */
export function formField(path: string): string {
  const p = path.split('.');
  if (p[0] === 'steps') return p[1] === undefined ? 'steps' : `step${Number(p[1]) + 1}_${p[2] === 'throughMonth' ? 'through' : 'rate'}`;
  if (p[0] === 'duration') return p[1] === 'kind' ? 'duration' : 'duration_n';
  if (p[0] === 'when') return ({ minAmount: 'min_amount', maxAmount: 'max_amount' } as Record<string, string>)[p[1]!] ?? p[1] ?? 'name';
  if (p[0] === 'caps') return p[1] === 'perCustomer' ? 'cap_customer' : 'cap_partner_month';
  if (p[0] === 'tiers') return p[1] === undefined ? 'tier1_name' : `tier${Number(p[1]) + 1}_${p[2] === 'minCustomers' ? 'customers' : p[2] === 'minRevenue' ? 'revenue' : 'name'}`;
  if (p[0] === 'monthlyBudget') return 'monthly_budget';
  if (p[0] === 'tierWindowDays') return 'tier_window_days';
  return p[0] ?? 'name';
}

/** The limits form to the set's limits: the monthly budget, the tiers (lowest first), their window. */
export function limitsFromForm(form: FormValues): Record<string, unknown> {
  const tiers: Record<string, unknown>[] = [];
  for (let i = 1; i <= rowCount(form, 'tier', TIER_ROWS); i += 1) {
    const name = text(form, `tier${i}_name`);
    const customers = text(form, `tier${i}_customers`);
    const revenue = parseMoneyList(text(form, `tier${i}_revenue`), `tier${i}_revenue`);
    if (name === '' && customers === '' && !revenue) continue;
    tiers.push({ name, ...(customers === '' ? {} : { minCustomers: count(customers) }), ...(revenue ? { minRevenue: revenue } : {}) });
  }
  const budget = parseMoneyList(text(form, 'monthly_budget'), 'monthly_budget');
  const window = text(form, 'tier_window_days');
  return { ...(budget ? { monthlyBudget: budget } : {}), ...(tiers.length ? { tiers } : {}), ...(window === '' ? {} : { tierWindowDays: count(window) }) };
}

export function limitsValues(document: RuleSetDocument): FormValues {
  const values: FormValues = { monthly_budget: moneyValue(document.monthlyBudget), tier_window_days: document.tierWindowDays === undefined ? '' : String(document.tierWindowDays) };
  (document.tiers ?? []).forEach((tier, i) => {
    values[`tier${i + 1}_name`] = tier.name;
    values[`tier${i + 1}_customers`] = tier.minCustomers === undefined ? '' : String(tier.minCustomers);
    values[`tier${i + 1}_revenue`] = moneyValue(tier.minRevenue);
  });
  return values;
}
