// Stripe's amounts are in "the currency's minor unit", but Stripe's idea of that unit differs
// from ISO 4217 for a few currencies; Affix stores ISO minor units, so amounts are converted as
// they are read. Sources (docs/currencies.md): https://docs.stripe.com/currencies#zero-decimal,
// #three-decimal and #special-cases.
import { minorUnitDigits, toCurrency } from '../currency.js';
import { errors } from '../errors.js';

/**
 * Stripe's zero-decimal list, less UGX: Stripe lists it there, yet its special cases say UGX
 * (like ISK) is sent as a two-decimal value ending in 00 ("to charge 5 UGX, provide 500").
 */
const STRIPE_ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
/** Three decimals as in ISO (Stripe asks that the last digit of a charge be 0; the unit is still 1/1000). */
const STRIPE_THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/**
 * Digits in Stripe's amounts for a currency. Every other currency is two-decimal in the API,
 * HUF and TWD included (their zero-decimal rule applies to Stripe payouts only), ISK and UGX
 * included (x100, "the decimal amount is always 00").
 */
export function stripeDigits(code: string): number {
  if (STRIPE_ZERO_DECIMAL.has(code)) return 0;
  if (STRIPE_THREE_DECIMAL.has(code)) return 3;
  return 2;
}

/**
 * A Stripe amount as ISO minor units: ISK 500 -> 5 krónur, MGA 500 -> 50000 (ISO counts
 * iraimbilanja), JPY, USD, KWD unchanged. An amount that is no whole ISO unit (ISK 550) is
 * refused: it is final, nothing is guessed. A currency outside the ISO table is left as it is
 * (the currency rule refuses it).
 */
export function fromStripeAmount(amount: number, currencyCode: unknown): number {
  const code = toCurrency(currencyCode);
  if (!code || !Number.isSafeInteger(amount)) return amount;
  const shift = minorUnitDigits(code) - stripeDigits(code);
  if (shift === 0) return amount;
  if (shift > 0) return amount * 10 ** shift;
  const divisor = 10 ** -shift;
  if (amount % divisor !== 0) throw errors.badRequest(`Stripe amount ${amount} ${code} is not a whole number of ${code} (Stripe sends ${code} as hundredths ending in 00)`);
  return amount / divisor;
}
