// Discounts for referred buyers (docs/discounts.md): the terms a group gives, in the shapes Stripe
// coupons take, what each processor can express of them, the words buyers read, and the code text
// made from a partner's link code.
import { formatMoney } from './money.js';
import { PROCESSOR_NAMES, type ProcessorName } from './processor-names.js';
import type { Currency } from './types.js';

export type DiscountDuration = { kind: 'once' } | { kind: 'repeating'; months: number } | { kind: 'forever' };
export type DiscountAmount = { kind: 'percent'; basisPoints: number } | { kind: 'amount'; cents: number; currency: Currency };

export interface DiscountTerms {
  processor: ProcessorName;
  amount: DiscountAmount;
  duration: DiscountDuration;
}

/** 12.5 % is 1250 basis points; the text drops trailing zeros ("12.5", "20"). */
export const percentText = (basisPoints: number): string => (basisPoints / 100).toFixed(2).replace(/\.?0+$/, '');

/** What buyers read (the tracker's getDiscount(), the dashboard): "20 % off for 3 months". */
export function describeDiscount(terms: Pick<DiscountTerms, 'amount' | 'duration'>): string {
  const off = terms.amount.kind === 'percent' ? `${percentText(terms.amount.basisPoints)} % off` : `${formatMoney(terms.amount.cents, terms.amount.currency)} off`;
  switch (terms.duration.kind) {
    case 'once':
      return `${off} the first payment`;
    case 'repeating':
      return `${off} for ${terms.duration.months} month${terms.duration.months === 1 ? '' : 's'}`;
    case 'forever':
      return `${off} every payment`;
  }
}

/**
 * Why the processor cannot give these terms, or null when it can. Stripe takes every shape;
 * Paddle repeats a discount per billing period (not per month, so "3 months" on a yearly plan would
 * be 3 years); Lemon Squeezy takes whole percentages and amounts in the store's own currency.
 */
export function processorRefusal(terms: DiscountTerms): string | null {
  const name = PROCESSOR_NAMES[terms.processor];
  if (terms.processor === 'paddle' && terms.duration.kind === 'repeating') {
    return `${name} repeats a discount per billing period, not per month: choose once or forever for a ${name} discount.`;
  }
  if (terms.processor === 'lemonsqueezy' && terms.amount.kind === 'percent' && terms.amount.basisPoints % 100 !== 0) {
    return `${name} takes whole percentages only: choose ${Math.floor(terms.amount.basisPoints / 100) || 1} or ${Math.ceil(terms.amount.basisPoints / 100)} %.`;
  }
  return null;
}

/** Every processor takes letters and digits in a code (Paddle at most 32, Lemon Squeezy at least 3). */
const CODE_MAX = 32;
export const DISCOUNT_CODE_ATTEMPTS = 5;

/**
 * The code for a partner, from their link code: uppercase letters and digits. Attempt 0 is the
 * link code itself ("jane-doe" → "JANEDOE"); a taken one gets a number (JANEDOE2, JANEDOE3…). A
 * link code too short for Lemon Squeezy is completed with the partner's id.
 */
export function discountCodeFor(linkCode: string, partnerId: number, attempt: number): string {
  let base = linkCode.toUpperCase().replace(/[^A-Z0-9]/g, '');
  if (base.length < 3) base = `${base}P${partnerId}`;
  const suffix = attempt === 0 ? '' : String(attempt + 1);
  return `${base.slice(0, CODE_MAX - suffix.length)}${suffix}`;
}
