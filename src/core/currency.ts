// Which currencies a sale may be in, and how many digits each counts in. One rule for the
// tracking API and every processor: the contract's three (USD, EUR, VND) always; any ISO 4217
// currency when the program accepts all (docs/architecture.md, "Currencies"). No conversion ever happens.
import { errors } from './errors.js';
import { ISO_4217_MINOR_UNITS } from './iso-4217.js';
import { SUPPORTED_CURRENCIES, type Currency } from './types.js';

/** The program's choice the rule reads. */
export interface CurrencyPolicy {
  acceptAllCurrencies: boolean;
}

/** A code in the ISO table as a Currency ("gbp", " GBP " -> "GBP"); null for anything else. */
export function toCurrency(value: unknown): Currency | null {
  if (typeof value !== 'string') return null;
  const code = value.trim().toUpperCase();
  return /^[A-Z]{3}$/.test(code) && Object.hasOwn(ISO_4217_MINOR_UNITS, code) ? (code as Currency) : null;
}

/** A program's currency where nothing names one: a sale sent without one, and a lead's or a click day's reward. */
export const PROGRAM_CURRENCY: Currency = 'USD';

const isContractCurrency = (code: Currency): boolean => SUPPORTED_CURRENCIES.includes(code);

/** Whether the program takes this currency at all (the contract's three, or any when it accepts all). */
export const currencyAccepted = (code: Currency, policy: CurrencyPolicy): boolean => policy.acceptAllCurrencies || isContractCurrency(code);

/**
 * The currency of a sale: missing means USD; the contract's three always; any other ISO 4217
 * code only when the program accepts all currencies. Anything else is the spec's 422
 * (`currency XXX is not supported`, XXX as sent), and nothing is created.
 */
export function acceptedCurrency(value: unknown, policy: CurrencyPolicy): Currency {
  if (value === undefined || value === null || value === '') return PROGRAM_CURRENCY;
  const code = toCurrency(value);
  if (!code || !currencyAccepted(code, policy)) throw errors.unsupportedCurrency(String(value));
  return code;
}

export { minorUnitDigits } from './iso-4217.js';
