// Supported currencies (spec §8). Codes are accepted in any case; no conversion happens.
import { errors } from './errors.js';
import { SUPPORTED_CURRENCIES, type Currency } from './types.js';

/** Missing means USD; anything else must be one of USD, EUR, VND (422 otherwise, nothing created). */
export function toSupportedCurrency(value: unknown): Currency {
  if (value === undefined || value === null || value === '') return 'USD';
  const code = typeof value === 'string' ? value.trim().toUpperCase() : '';
  if (!SUPPORTED_CURRENCIES.includes(code as Currency)) throw errors.unsupportedCurrency(String(value));
  return code as Currency;
}
