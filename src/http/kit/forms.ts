// Form values -> the core's program input, and core messages -> the field they are about.
import { AffixError, errors } from '../../core/errors.js';
import { minorUnitDigits, toCurrency } from '../../core/currency.js';
import { majorUnits, parseMajorUnits } from '../../core/money.js';
import { type Currency, SUPPORTED_CURRENCIES } from '../../core/types.js';
import { type Html, field, html } from './html.js';

/** "50.00" for dollars, "5000" for yen, "50.000" for dinars, "500000" for dong: an amount as typed. */
export function exampleAmount(currency: Currency): string {
  if (currency === 'VND') return '500000';
  const digits = minorUnitDigits(currency);
  return digits === 0 ? '5000' : `50.${'0'.repeat(digits)}`;
}

/**
 * Minimum payouts as people type them, in each currency's own units ("50.00" is $50, "5000" is
 * 5000 yen): every field `<name>XXX` the form sent (one per currency it shows), plus the pair
 * `<name>other_currency` / `<name>other` for a currency not shown yet. Minor units per
 * currency, null for an emptied field (no minimum); a typo is refused beside its field.
 */
export function typedMinimums(form: Record<string, unknown>, name: string): Partial<Record<Currency, number | null>> {
  const read = (field: string) => String(form[field] ?? '').trim();
  const minimums: Partial<Record<Currency, number | null>> = {};
  const take = (currency: Currency, typed: string, field: string) => {
    const cents = typed === '' ? null : parseMajorUnits(typed, currency);
    if (cents === null && typed !== '') {
      throw errors.invalid(`Minimum payout in ${currency} is not an amount`, { [field]: `Give an amount in ${currency}, like ${exampleAmount(currency)}.` });
    }
    minimums[currency] = cents;
  };
  for (const field of Object.keys(form)) {
    const code = field.startsWith(name) ? field.slice(name.length) : '';
    if (/^[A-Z]{3}$/.test(code) && toCurrency(code)) take(code as Currency, read(field), field);
  }
  const otherCode = read(`${name}other_currency`);
  const otherAmount = read(`${name}other`);
  if (otherCode !== '' || otherAmount !== '') {
    const currency = toCurrency(otherCode);
    if (!currency) throw errors.invalid('The other currency is not a currency code', { [`${name}other_currency`]: 'Give a currency code like GBP, JPY or KWD.' });
    if (otherAmount === '') throw errors.invalid(`Minimum payout in ${currency} is empty`, { [`${name}other`]: `Give an amount in ${currency}, like ${exampleAmount(currency)}.` });
    take(currency, otherAmount, `${name}other`);
  }
  return minimums;
}

/**
 * The minimum fields of a form: one per contract currency and per currency that has a minimum,
 * then a pair for another currency (code and amount), so any ISO 4217 currency can get one.
 */
export function minimumFields(name: string, minimums: Partial<Record<Currency, number>>, fe: Record<string, string>): Html {
  const shown = [...new Set([...SUPPORTED_CURRENCIES, ...(Object.keys(minimums) as Currency[]).filter((c) => toCurrency(c)).sort()])];
  return html`${shown.map((currency) => field(`${name}${currency}`, `Minimum payout in ${currency} (like ${exampleAmount(currency)}; empty for none)`, minimums[currency] === undefined ? '' : majorUnits(minimums[currency]!, currency), fe, 'inputmode="decimal"'))}
${field(`${name}other_currency`, 'Minimum payout in another currency: its code (like GBP, JPY or KWD)', '', fe, 'autocomplete="off" maxlength="3"')}
${field(`${name}other`, '…and the amount in it (like 50.00, or 5000 for yen)', '', fe, 'inputmode="decimal"')}`;
}

const numberOrText = (value: unknown) => {
  const text = String(value ?? '').trim();
  if (text === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
};

export function programInput(form: Record<string, unknown>): Record<string, unknown> {
  const text = (name: string) => (form[name] === undefined ? undefined : String(form[name]).trim());
  return {
    name: text('name'),
    domain: text('domain'),
    commission_type: text('commission_type'),
    commission_rate: numberOrText(form.commission_rate),
    attribution_window_days: numberOrText(form.attribution_window_days),
    lead_auth: text('lead_auth') || undefined,
    allowed_origins: form.allowed_origins === undefined ? undefined : String(form.allowed_origins).split(/[\s,]+/).filter(Boolean),
    duration_months: numberOrText(form.duration_months) ?? null,
  };
}

/**
 * Puts each validation message beside the field it names (the error's `fields`). `aliases`
 * maps request field names to this form's.
 */
export function fieldErrors(error: unknown, aliases: Record<string, string> = {}): Record<string, string> {
  if (!(error instanceof AffixError) || (error.status !== 400 && error.status !== 409)) throw error;
  const named = error.init.fields ?? { form: error.message };
  return Object.fromEntries(Object.entries(named).map(([field, message]) => [aliases[field] ?? field, inWords(field, message)]));
}

/**
 * Beside its field a message need not name the field: "commission_rate must be a positive
 * number" reads "Must be a positive number."
 */
function inWords(field: string, message: string): string {
  const rest = message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message.startsWith(`${field} `) ? message.slice(field.length + 1) : message;
  const sentence = rest.charAt(0).toUpperCase() + rest.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
