import { describe, expect, it } from 'vitest';
import { atOnceCount } from './fact-keys.js';
import type { ProcessorFact } from './processor-port.js';

const payment = (n: number, change: Record<string, unknown> = {}): ProcessorFact => ({
  kind: 'payment',
  payment: {
    processor: 'stripe',
    transactionId: `cs_${n}`,
    amountCents: 4900,
    currency: 'usd',
    occurredAt: new Date(0),
    livemode: true,
    metadata: { clickId: `clk_${n}`, customerKey: `user_${n}`, customerKeyIsReference: false, programId: null },
    email: `buyer${n}@example.com`,
    processorCustomerId: `cus_${n}`,
    paymentIds: [`pi_${n}`],
    promotionRefs: [],
    isRecurring: false,
    saleType: 'payment',
    subscriptionId: null,
    eventName: 'checkout',
    ...change,
  },
});

describe('atOnceCount: the leading payments of a batch that name nothing in common', () => {
  it('payments of different buyers all go at once', () => {
    expect(atOnceCount([payment(1), payment(2), payment(3)])).toBe(3);
  });

  it('stops before a payment sharing any id with an earlier one: the email (any case), the customer, the payment, the click', () => {
    expect(atOnceCount([payment(1), payment(2, { email: ' BUYER1@example.com' }), payment(3)])).toBe(1);
    expect(atOnceCount([payment(1), payment(2, { processorCustomerId: 'cus_1' })])).toBe(1);
    expect(atOnceCount([payment(1), payment(2, { paymentIds: ['pi_9', 'pi_1'] })])).toBe(1);
    expect(atOnceCount([payment(1), payment(2), payment(3, { metadata: { clickId: 'clk_2', customerKey: null, customerKeyIsReference: false, programId: null } })])).toBe(2);
    expect(atOnceCount([payment(1), payment(2, { transactionId: 'cs_1' })])).toBe(1);
    expect(atOnceCount([payment(1, { promotionRefs: ['SPRING'] }), payment(2, { promotionRefs: ['spring'] })])).toBe(1);
  });

  it('stops at the first event that is not a payment: what follows keeps the batch order', () => {
    const refund: ProcessorFact = { kind: 'payment_link', transactionId: 'in_1', paymentIds: ['pi_7'] };
    expect(atOnceCount([payment(1), payment(2), refund, payment(3)])).toBe(2);
    expect(atOnceCount([refund, payment(1), payment(2)])).toBe(0);
  });
});
