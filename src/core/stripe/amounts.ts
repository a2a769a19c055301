// Stripe's amounts are in "the currency's minor unit", but Stripe's idea of that unit differs
// from ISO 4217 for a few currencies; Affix stores ISO minor units, so amounts are converted as
// they are read (fromStripeAmount) and as they are sent (toStripeAmount), with the one table
// below. Sources (docs/currencies.md): https://docs.stripe.com/currencies#zero-decimal,
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

/** ISO digits less Stripe's: > 0, Stripe's unit is larger (MGA); < 0, smaller (ISK, UGX); 0, the same. */
const shiftOf = (code: string): number => minorUnitDigits(code) - stripeDigits(code);

/**
 * A Stripe amount as ISO minor units: ISK 500 -> 5 krónur, MGA 500 -> 50000 (ISO counts
 * iraimbilanja), JPY, USD, KWD unchanged. An amount that is no whole ISO unit (ISK 550) is
 * refused: it is final, nothing is guessed. A currency outside the ISO table is left as it is
 * (the currency rule refuses it).
 */
export function fromStripeAmount(amount: number, currencyCode: unknown): number {
  const code = toCurrency(currencyCode);
  if (!code || !Number.isSafeInteger(amount)) return amount;
  const shift = shiftOf(code);
  if (shift === 0) return amount;
  if (shift > 0) return amount * 10 ** shift;
  const divisor = 10 ** -shift;
  if (amount % divisor !== 0) throw errors.badRequest(`Stripe amount ${amount} ${code} is not a whole number of ${code} (Stripe sends ${code} as hundredths ending in 00)`);
  return amount / divisor;
}

/**
 * fromStripeAmount as a value: the amount, or why it cannot be read. A payment's reader keeps
 * the reason so that the currency rule answers first (a refused currency is the contract's
 * reason, not this one).
 */
export function readStripeAmount(amount: number, currencyCode: unknown): { amountCents: number; problem: string | null } {
  try {
    return { amountCents: fromStripeAmount(amount, currencyCode), problem: null };
  } catch (error) {
    return { amountCents: amount, problem: (error as Error).message };
  }
}

/**
 * ISO minor units as the amount Stripe expects (the inverse of fromStripeAmount): ISK 5000 ->
 * 500000, MGA 50000 -> 500, JPY, USD unchanged. An amount Stripe cannot represent is refused
 * with its reason, never rounded: MGA 50050 (Stripe counts whole ariary), and a three-decimal
 * amount whose last digit is not 0 (Stripe requires it for charges, refunds and disputes and
 * does not say transfers are exempt).
 */
export function toStripeAmount(minor: number, currencyCode: string): { amount: number } | { problem: string } {
  const code = toCurrency(currencyCode);
  if (!code) return { problem: `${currencyCode} is not an ISO 4217 currency Stripe can be sent` };
  if (!Number.isSafeInteger(minor)) return { problem: `${minor} is not a whole amount` };
  if (STRIPE_THREE_DECIMAL.has(code) && minor % 10 !== 0) {
    return { problem: `Stripe takes ${code} amounts only in multiples of 10 thousandths; ${minor} would have to be rounded` };
  }
  const shift = shiftOf(code);
  if (shift === 0) return { amount: minor };
  if (shift < 0) {
    const amount = minor * 10 ** -shift;
    return Number.isSafeInteger(amount) ? { amount } : { problem: `${minor} ${code} is too large for Stripe` };
  }
  const divisor = 10 ** shift;
  if (minor % divisor !== 0) return { problem: `Stripe counts ${code} in whole units; ${minor} minor units is not a whole number of ${code}` };
  return { amount: minor / divisor };
}
