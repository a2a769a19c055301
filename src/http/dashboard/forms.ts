// Form values -> the core's program input, and core messages -> the field they are about.
import { AffixError, errors } from '../../core/errors.js';
import { parseMajorUnits } from '../../core/money.js';
import { type Currency, SUPPORTED_CURRENCIES } from '../../core/types.js';

/**
 * Minimum payouts as people type them, in each currency's own units ("50.00" is $50), from the
 * fields `<name>USD`, `<name>EUR`, …: cents per currency (null when left empty); a typo is
 * refused beside its field.
 */
export function typedMinimums(read: (field: string) => string, name: string): Record<Currency, number | null> {
  return Object.fromEntries(
    SUPPORTED_CURRENCIES.map((currency) => {
      const typed = read(`${name}${currency}`).trim();
      const cents = typed === '' ? null : parseMajorUnits(typed, currency);
      if (cents === null && typed !== '') {
        throw errors.invalid(`Minimum payout in ${currency} is not an amount`, { [`${name}${currency}`]: `Give an amount in ${currency}, like ${currency === 'VND' ? '500000' : '50.00'}.` });
      }
      return [currency, cents];
    }),
  ) as Record<Currency, number | null>;
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
