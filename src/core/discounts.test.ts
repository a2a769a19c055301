// The terms of a discount for referred buyers (docs/discounts.md): their words, the code made from
// a link code, and what each processor cannot express.
import { describe, expect, it } from 'vitest';
import { describeDiscount, discountCodeFor, processorRefusal } from './discounts.js';

describe('discount terms', () => {
  it('are said in words, codes come from link codes, and what a processor cannot express is refused', () => {
    expect(describeDiscount({ amount: { kind: 'percent', basisPoints: 2000 }, duration: { kind: 'repeating', months: 3 } })).toBe('20 % off for 3 months');
    expect(describeDiscount({ amount: { kind: 'amount', cents: 1000, currency: 'EUR' }, duration: { kind: 'once' } })).toBe('€10.00 off the first payment');
    expect(describeDiscount({ amount: { kind: 'percent', basisPoints: 1250 }, duration: { kind: 'forever' } })).toBe('12.5 % off every payment');
    expect(discountCodeFor('jane-doe_1', 7, 0)).toBe('JANEDOE1');
    expect(discountCodeFor('jane-doe_1', 7, 1)).toBe('JANEDOE12');
    expect(discountCodeFor('a', 7, 0)).toBe('AP7');
    expect(discountCodeFor('x'.repeat(40), 7, 2)).toHaveLength(32);
    expect(processorRefusal({ processor: 'paddle', amount: { kind: 'percent', basisPoints: 2000 }, duration: { kind: 'repeating', months: 3 } })).toMatch(/Paddle repeats a discount per billing period/);
    expect(processorRefusal({ processor: 'lemonsqueezy', amount: { kind: 'percent', basisPoints: 1250 }, duration: { kind: 'once' } })).toMatch(/whole percentages/);
    expect(processorRefusal({ processor: 'stripe', amount: { kind: 'percent', basisPoints: 1250 }, duration: { kind: 'repeating', months: 3 } })).toBeNull();
  });
});
